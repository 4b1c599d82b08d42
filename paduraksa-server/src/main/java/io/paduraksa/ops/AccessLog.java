package io.paduraksa.ops;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.config.AccessLogSpec;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.snapshot.UpstreamCluster;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access log: one line per request, formatted and written by one writer thread, never by an
 * event loop. Each event loop that logs owns a ring of bytes (single producer, the writer the
 * single consumer): {@link #log} copies the line's fields (numbers, and request text cut to fixed
 * caps) into the ring and publishes it with one release store. 0 B per request, no lock, no
 * syscall; when the loop's ring is full the line is dropped and counted ({@link #dropped()}), so
 * a slow disk never slows a request. The writer polls the rings, formats JSON or the combined
 * format into a reused buffer and writes through a buffered stream, flushing whenever it has
 * caught up. {@link #reopen()} (SIGHUP) makes it reopen the file between lines, for logrotate.
 */
public final class AccessLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AccessLog.class);

    /** Protocols. */
    public static final int HTTP1 = 1;
    public static final int HTTP2 = 2;
    public static final int HTTP3 = 3;
    /** Decisions, as {@link Metrics} names them. */
    public static final int RESPOND = Metrics.RESPOND;
    public static final int DROP = Metrics.DROP;
    public static final int FORWARD = Metrics.FORWARD;
    public static final int REFUSED = Metrics.REFUSED;

    /** Caps of the copied text fields, in bytes. */
    static final int MAX_METHOD = 32;
    static final int MAX_HOST = 256;
    static final int MAX_PATH = 1024;
    static final int MAX_QUERY = 1024;
    static final int MAX_USER_AGENT = 256;
    static final int MAX_REFERER = 256;
    static final int MAX_NAME = 128;
    /** What a policy matched (the attacks policy's rule ids, parts, escaped excerpts). */
    static final int MAX_MATCHES = 512;
    /** Room the ring reserves per queued line when sizing ({@code queue} lines of this size, split over the loops). */
    static final int BYTES_PER_LINE = 256;
    static final int MIN_RING = 1 << 16;

    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
    private static final AsciiString REFERER = AsciiString.cached("referer");
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final String[] listeners;
    private final boolean combined;
    private final boolean includeQuery;
    private final String path;
    private final int ringBytes;
    private final List<Ring> rings = new CopyOnWriteArrayList<>();
    private final FastThreadLocal<Ring> local = new FastThreadLocal<>() {
        @Override
        protected Ring initialValue() {
            Ring r = new Ring(ringBytes);
            rings.add(r);
            return r;
        }
    };
    private final Thread writer;
    private final AccessLogFormat format;
    private volatile boolean reopen;
    private volatile boolean stopping;
    private volatile long written;
    private OutputStream out;

    /**
     * Opens the file (creating its directory) and starts the writer thread.
     *
     * @param listenerNames labels by listener index
     * @param loops         event loops that may log (the queue is split over them)
     */
    public AccessLog(AccessLogSpec spec, List<String> listenerNames, int loops) throws IOException {
        this.listeners = listenerNames.toArray(new String[0]);
        this.combined = spec.format().equals("combined");
        this.includeQuery = spec.includeQuery();
        this.path = spec.path();
        long wanted = (long) spec.queue() * BYTES_PER_LINE / Math.max(1, loops);
        this.ringBytes = (int) Math.min(1 << 30, Math.max(MIN_RING, Long.highestOneBit(Math.max(1, wanted - 1)) << 1));
        this.format = new AccessLogFormat(listeners, combined, includeQuery);
        this.out = open(path);
        this.writer = new Thread(this::run, "paduraksa-access-log");
        writer.setDaemon(true);
        writer.start();
    }

    private static OutputStream open(String path) throws IOException {
        if (path.equals("-")) {
            return new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        }
        Path p = Path.of(path);
        if (p.getParent() != null) {
            Files.createDirectories(p.getParent());
        }
        return new BufferedOutputStream(new FileOutputStream(p.toFile(), true), 1 << 16);
    }

    /** The decision label of a gate outcome answered with {@code status} (0: dropped). */
    public static int decision(GateOutcome outcome, int status) {
        return Metrics.decision(outcome, status);
    }

    // ---- per request, on the event loop (0 B) ----

    /**
     * Queues the line of a request that ended. {@code view} may be null (a head that never
     * parsed); {@code state} carries status, bytes, start, upstream, upstream error (the forwarder's
     * {@link UpstreamMetrics} kind) and trace (the one the forwarder sent upstream, or the client's
     * own: {@code TraceParent.keepClientTrace}; its snapshot is null when the gate did not run). The
     * status and bytes are the state's.
     */
    public void log(int listener, int protocol, RequestState state, RequestView view, ClientInfo client, int decision) {
        Ring r = local.get();
        byte[] b = r.buf;
        long tail = r.tail;
        int pos = (int) (tail & r.mask);
        int toEnd = b.length - pos;
        long free = b.length - (tail - (long) Ring.HEAD.getAcquire(r));
        // Worst case of one line: fixed part and every text field at its cap (the caps keep it small).
        int need = AccessLogFormat.MAX_RECORD;
        if (toEnd < need) {
            if (free < toEnd + need) {
                r.drop();
                return;
            }
            INT.set(b, pos, -1); // wrap marker: the reader skips to the start
            tail += toEnd;
            pos = 0;
        } else if (free < need) {
            r.drop();
            return;
        }
        int end = write(b, pos, listener, protocol, state, view, client, decision);
        int len = (end - pos + 7) & ~7;
        INT.set(b, pos, len);
        Ring.TAIL.setRelease(r, tail + len);
    }

    private int write(byte[] b, int pos, int listener, int protocol, RequestState state, RequestView view, ClientInfo client,
                      int decision) {
        long now = System.nanoTime();
        int p = pos + 8;
        p = putLong(b, p, System.currentTimeMillis());
        // Before the gate ran (refused) the state has no client IP yet: the peer's stands in.
        long ipHigh = state.snapshot() == null && client != null ? client.ipHigh() : state.clientIpHigh();
        long ipLow = state.snapshot() == null && client != null ? client.ipLow() : state.clientIpLow();
        p = putLong(b, p, ipHigh);
        p = putLong(b, p, ipLow);
        p = putLong(b, p, client == null ? ipHigh : client.ipHigh());
        p = putLong(b, p, client == null ? ipLow : client.ipLow());
        p = putLong(b, p, state.startNanos() == 0 ? -1 : now - state.startNanos());
        p = putLong(b, p, state.bytesSent());
        p = putLong(b, p, state.upstreamNanos());
        p = putLong(b, p, state.requestId());
        p = putLong(b, p, state.traceHigh());
        p = putLong(b, p, state.traceLow());
        INT.set(b, p, (listener << 16) | (protocol << 8) | decision);
        INT.set(b, p + 4, state.status());
        INT.set(b, p + 8, state.upstreamError());
        p += 12;
        CharSequence target = view == null ? null : view.target();
        int q = target == null ? -1 : indexOf(target, '?');
        p = putText(b, p, view == null ? null : view.method(), 0, -1, MAX_METHOD);
        p = putText(b, p, view == null ? null : view.authority(), 0, -1, MAX_HOST);
        p = putText(b, p, target, 0, q < 0 ? -1 : q, MAX_PATH);
        INT.set(b, p, q < 0 ? -1 : target.length() - q - 1);
        p += 4;
        p = putText(b, p, includeQuery && q >= 0 ? target : null, q + 1, -1, MAX_QUERY);
        p = putText(b, p, view == null ? null : view.header(USER_AGENT), 0, -1, MAX_USER_AGENT);
        p = putText(b, p, combined && view != null ? view.header(REFERER) : null, 0, -1, MAX_REFERER);
        RequestPolicy policy = state.snapshot() == null ? null : state.decidingPolicy();
        p = putText(b, p, policy == null ? null : policy.name(), 0, -1, MAX_NAME);
        UpstreamCluster cluster = state.upstreamIndex() < 0 ? null : state.cluster();
        p = putText(b, p, cluster == null ? null : cluster.name(), 0, -1, MAX_NAME);
        p = putText(b, p, cluster == null ? null : cluster.destinations().get(state.upstreamIndex()).url().toString(), 0, -1,
                MAX_HOST);
        p = putText(b, p, state.snapshot() == null ? null : state.matches(), 0, -1, MAX_MATCHES);
        return p;
    }

    private static int indexOf(CharSequence s, char c) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    private static int putLong(byte[] b, int p, long v) {
        LONG.set(b, p, v);
        return p + 8;
    }

    /** {@code [from, to)} of {@code s} (to -1: its end), at most {@code cap} bytes; length -1 for null. */
    private static int putText(byte[] b, int p, CharSequence s, int from, int to, int cap) {
        if (s == null) {
            INT.set(b, p, -1);
            return p + 4;
        }
        int end = to < 0 ? s.length() : to;
        int n = Math.min(cap, Math.max(0, end - from));
        INT.set(b, p, n);
        p += 4;
        for (int i = 0; i < n; i++) {
            b[p + i] = (byte) s.charAt(from + i);
        }
        return p + n;
    }

    // ---- any thread ----

    /** Lines dropped because a loop's queue was full (the writer fell behind). */
    public long dropped() {
        long n = 0;
        for (Ring r : rings) {
            n += (long) Ring.DROPPED.getOpaque(r);
        }
        return n;
    }

    /** Lines written so far. */
    public long written() {
        return written;
    }

    /** Reopens the file before the next line (SIGHUP, after logrotate moved it). */
    public void reopen() {
        reopen = true;
        LockSupport.unpark(writer);
    }

    /** Writes what is queued, closes the file and stops the writer (waits up to 2 s). */
    @Override
    public void close() {
        stopping = true;
        LockSupport.unpark(writer);
        try {
            writer.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- the writer thread ----

    private void run() {
        while (true) {
            boolean stop = stopping;
            boolean any = drain();
            if (!any) {
                flush();
                if (stop) {
                    break;
                }
                if (reopen) {
                    doReopen();
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
        }
        try {
            out.close();
        } catch (IOException e) {
            LOG.warn("access log {}: {}", path, e.toString());
        }
    }

    private boolean drain() {
        boolean any = false;
        for (Ring r : rings) {
            long head = r.head;
            long tail = (long) Ring.TAIL.getAcquire(r);
            byte[] b = r.buf;
            while (head < tail) {
                int pos = (int) (head & r.mask);
                int len = (int) INT.get(b, pos);
                if (len < 0) {
                    head += b.length - pos;
                    continue;
                }
                write(format.format(b, pos + 8));
                head += len;
                Ring.HEAD.setRelease(r, head);
                any = true;
            }
        }
        return any;
    }

    private void write(AccessLogFormat.Line line) {
        try {
            out.write(line.bytes(), 0, line.length());
            written++;
        } catch (IOException e) {
            failed(e);
        }
    }

    private void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            failed(e);
        }
    }

    private long lastFailureLog;

    private void failed(IOException e) {
        long now = System.nanoTime();
        if (now - lastFailureLog > TimeUnit.SECONDS.toNanos(10) || lastFailureLog == 0) {
            lastFailureLog = now;
            LOG.error("access log {}: {}", path, e.toString());
        }
    }

    private void doReopen() {
        reopen = false;
        if (path.equals("-")) {
            return;
        }
        try {
            OutputStream next = open(path);
            out.close();
            out = next;
            LOG.info("access log {} reopened", path);
        } catch (IOException e) {
            failed(e);
        }
    }

    /** One event loop's queue: bytes between head (the writer's) and tail (the loop's). */
    static final class Ring {
        static final VarHandle HEAD;
        static final VarHandle TAIL;
        static final VarHandle DROPPED;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                HEAD = l.findVarHandle(Ring.class, "head", long.class);
                TAIL = l.findVarHandle(Ring.class, "tail", long.class);
                DROPPED = l.findVarHandle(Ring.class, "dropped", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final byte[] buf;
        final long mask;
        long head;
        long tail;
        long dropped;

        Ring(int size) {
            this.buf = new byte[size];
            this.mask = size - 1;
        }

        void drop() {
            DROPPED.setOpaque(this, (long) DROPPED.getOpaque(this) + 1);
        }
    }
}
