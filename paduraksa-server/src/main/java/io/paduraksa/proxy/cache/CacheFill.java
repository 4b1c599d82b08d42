package io.paduraksa.proxy.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.ScheduledFuture;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardCall;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;
import io.paduraksa.snapshot.RouteCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One miss's fetch: stands between the forwarder and the client's exchange, passes everything on,
 * and keeps a copy of a storable response (its fields as immutable strings, its body in a pooled
 * buffer of at most {@code cache.max_object_size}), which it stores when the response ended
 * cleanly. Concurrent misses for the same key {@linkplain #join wait} for it and look the store up
 * again when it ends ({@link Waiter}), or when it gave them up after {@code cache.coalesce_timeout}.
 *
 * <p>Stale-if-error: a fill that refreshes a stale response holds it; when the upstream fails (the
 * forwarder answers 5xx itself: refused, unreachable, timed out) or answers 500, 502, 503 or 504,
 * the client gets the stale response instead, within its window, and the upstream's response is
 * read to its end and dropped.
 *
 * <p>Runs on the client's event loop (the forwarder's calls and the expiry task); only
 * {@link #join} and {@link #wakeWaiters} take the fill's lock, as waiters come from any loop.
 * The miss path: allocates.
 */
final class CacheFill implements ForwardExchange, Runnable {
    /** Misses that may wait for one fill; more go to the upstream themselves. */
    static final int MAX_WAITERS = 1024;

    private enum Mode { RELAY, STORE, SWALLOW, DONE }

    private final CachingForwarder forwarder;
    private final CacheStore store;
    private final CacheKey key;
    private final RequestState state;
    private final ForwardExchange exchange;
    private final RouteCache settings;
    private final boolean authorized;
    private final EventLoop loop;
    private final DateHeader date;
    private StoredResponse stale;
    private Mode mode = Mode.RELAY;
    private List<Waiter> waiters = new ArrayList<>();
    private long lastProgressNanos;
    private ScheduledFuture<?> expiry;

    private CacheKey storeKey;
    private CacheKey markerKey;
    private Storability storability;
    private int status;
    private AsciiString[] names;
    private AsciiString[] values;
    private long contentLength;
    private ByteBuf body;

    CacheFill(CachingForwarder forwarder, CacheStore store, CacheKey key, RequestState state, ForwardExchange exchange,
              RouteCache settings, boolean authorized, StoredResponse stale, DateHeader date) {
        this.forwarder = forwarder;
        this.store = store;
        this.key = key;
        this.state = state;
        this.exchange = exchange;
        this.settings = settings;
        this.authorized = authorized;
        this.stale = stale;
        this.date = date;
        this.loop = exchange.eventLoop();
        this.lastProgressNanos = System.nanoTime();
        this.expiry = loop.schedule(this, store.coalesceTimeoutNanos(), TimeUnit.NANOSECONDS);
    }

    CacheKey key() {
        return key;
    }

    /** Adds a miss that waits for this fetch; false when the fetch no longer takes waiters (ended, or full). */
    synchronized boolean join(Waiter w) {
        if (waiters == null || waiters.size() >= MAX_WAITERS) {
            return false;
        }
        waiters.add(w);
        return true;
    }

    /** No more waiters: each waiting miss looks the store up again on its own loop. */
    private void wakeWaiters() {
        List<Waiter> ws;
        synchronized (this) {
            ws = waiters;
            waiters = null;
        }
        store.unregister(this);
        if (ws != null) {
            for (int i = 0; i < ws.size(); i++) {
                ws.get(i).wake();
            }
        }
    }

    /**
     * The expiry: after {@code coalesce_timeout} the waiters stop waiting; a response that made no
     * progress for as long is no longer collected (its client may have left), so a fill never
     * holds a buffer longer than that after its last byte.
     */
    @Override
    public void run() {
        if (mode == Mode.DONE) {
            return;
        }
        wakeWaiters();
        long idle = System.nanoTime() - lastProgressNanos;
        if (idle >= store.coalesceTimeoutNanos()) {
            dropCopy();
            releaseStale();
            if (mode != Mode.SWALLOW) {
                mode = Mode.RELAY;
            }
            return;
        }
        expiry = loop.schedule(this, store.coalesceTimeoutNanos() - idle, TimeUnit.NANOSECONDS);
    }

    // ---- ForwardExchange: passed on, with the copy taken on the way ----

    @Override
    public void answer(PrecomputedResponse response) {
        if (mode == Mode.SWALLOW) {
            end();
            return;
        }
        StoredResponse s = stale;
        if (s != null && response.status() >= 500 && s.mayServeOnError(System.nanoTime())) {
            stale = null;
            forwarder.serveStale(s, state, exchange);
            s.release();
        } else {
            exchange.answer(response);
        }
        end();
    }

    @Override
    public boolean isOpen() {
        return mode == Mode.SWALLOW || exchange.isOpen();
    }

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public long requestBodyLength() {
        return exchange.requestBodyLength();
    }

    @Override
    public boolean isUpgradeRequest() {
        return exchange.isUpgradeRequest();
    }

    @Override
    public void offerRequestFields(FieldSink sink, ForwardingRules rules) {
        exchange.offerRequestFields(sink, rules);
    }

    @Override
    public void attach(ForwardCall call) {
        exchange.attach(call);
    }

    @Override
    public void requestBodyReady() {
        exchange.requestBodyReady();
    }

    @Override
    public void pauseRequestBody(boolean pause) {
        if (mode != Mode.SWALLOW) {
            exchange.pauseRequestBody(pause);
        }
    }

    @Override
    public void interimResponse(ResponseHead head) {
        if (mode != Mode.SWALLOW) {
            exchange.interimResponse(head);
        }
    }

    @Override
    public void responseHead(ResponseHead head, ResponseHeaderRules rules, byte[] extraLine) {
        lastProgressNanos = System.nanoTime();
        StoredResponse s = stale;
        if (s != null && isServerError(head.status()) && s.mayServeOnError(lastProgressNanos)) {
            // stale-if-error: the client gets the stale copy; the upstream's answer is read and dropped
            stale = null;
            mode = Mode.SWALLOW;
            forwarder.serveStale(s, state, exchange);
            s.release();
            wakeWaiters();
            return;
        }
        if (mode == Mode.RELAY && head.status() != 101) {
            collect(head);
        }
        if (mode != Mode.STORE) {
            wakeWaiters(); // nothing will be stored: the waiters need not wait for the body
        }
        exchange.responseHead(head, rules, extraLine);
    }

    private static boolean isServerError(int status) {
        return status == 500 || status == 502 || status == 503 || status == 504;
    }

    /** Decides whether the response is kept; if so copies its fields and prepares the body's buffer. */
    private void collect(ResponseHead head) {
        storability = Storability.of(head, settings, authorized, System.currentTimeMillis());
        long length = head.hasBody() ? head.contentLength() : 0;
        if (!storability.isStorable() || length > store.maxObjectBytes() || !keys(storability)) {
            return;
        }
        status = head.status();
        contentLength = status == 204 ? -1 : Math.max(0, length);
        copyFields(head);
        if (head.hasBody() && length != 0) {
            int initial = (int) (length > 0 ? length : Math.min(store.maxObjectBytes(), 4096));
            body = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(1, initial), (int) store.maxObjectBytes());
        }
        mode = Mode.STORE;
    }

    /**
     * The keys the response goes under: the fill's own for a response that does not vary; else the
     * primary key gets a marker naming the fields and the variant goes under the primary key plus
     * this request's values of them (read now, while the request's head is still held).
     */
    private boolean keys(Storability s) {
        if (s.vary == null) {
            storeKey = key;
            return true;
        }
        CacheKey probe = new CacheKey(256);
        if (!probe.primary(state)) {
            return false;
        }
        markerKey = probe.copy();
        if (!probe.addVary(state.view(), s.vary)) {
            return false;
        }
        storeKey = probe.copy();
        return true;
    }

    private void copyFields(ResponseHead head) {
        List<AsciiString> ns = new ArrayList<>();
        List<AsciiString> vs = new ArrayList<>();
        for (int i = 0, n = head.headerCount(); i < n; i++) {
            CharSequence name = head.headerName(i);
            if (StoredFields.isLeftOut(name, head) || (storability.hasSetCookie && StoredFields.isSetCookie(name))) {
                continue;
            }
            ns.add(new AsciiString(name));
            vs.add(new AsciiString(head.headerValue(i)));
        }
        if (!storability.hasDate) {
            ns.add(StoredFields.DATE); // RFC 9110 6.6.1: a cache adds the Date it received the response at
            vs.add(date.ascii()); // immutable, one per second
        }
        names = ns.toArray(new AsciiString[0]);
        values = vs.toArray(new AsciiString[0]);
    }

    @Override
    public void upgraded() {
        exchange.upgraded();
    }

    @Override
    public void responseBody(ByteBuf chunk) {
        if (mode == Mode.SWALLOW) {
            chunk.release();
            return;
        }
        lastProgressNanos = System.nanoTime();
        if (mode == Mode.STORE && body != null) {
            int n = chunk.readableBytes();
            if (body.readableBytes() + (long) n > store.maxObjectBytes()) {
                dropCopy(); // larger than the route may keep
                mode = Mode.RELAY;
                wakeWaiters();
            } else {
                body.writeBytes(chunk, chunk.readerIndex(), n);
            }
        }
        exchange.responseBody(chunk);
    }

    @Override
    public boolean isWritable() {
        return mode == Mode.SWALLOW || exchange.isWritable();
    }

    @Override
    public void flush() {
        if (mode != Mode.SWALLOW) {
            exchange.flush();
        }
    }

    @Override
    public void responseEnd(ResponseTrailers trailers) {
        if (mode == Mode.SWALLOW) {
            end();
            return;
        }
        exchange.responseEnd(trailers);
        if (mode == Mode.STORE && trailers == null) {
            storeCopy();
        }
        end();
    }

    @Override
    public void abort() {
        if (mode != Mode.SWALLOW) {
            exchange.abort();
        }
        end();
    }

    // ---- endings ----

    private void storeCopy() {
        long now = System.nanoTime();
        ByteBuf b = body;
        body = null;
        if (b != null && b.readableBytes() == 0) {
            b.release();
            b = null;
        } else if (b != null && b.capacity() > b.readableBytes()) {
            ByteBuf exact = PooledByteBufAllocator.DEFAULT.directBuffer(b.readableBytes(), b.readableBytes());
            exact.writeBytes(b);
            b.release();
            b = exact;
        }
        if (contentLength >= 0) {
            contentLength = b == null ? 0 : b.readableBytes();
        }
        Storability s = storability;
        StoredResponse r = new StoredResponse(status, names, values, b, contentLength, now, s.initialAgeSeconds, s.freshSeconds,
                s.staleWhileRevalidateSeconds, s.staleIfErrorSeconds, storeKey.length());
        if (markerKey != null) {
            long staleSeconds = Math.max(s.staleWhileRevalidateSeconds, s.staleIfErrorSeconds);
            store.put(markerKey, new StoredResponse(s.vary, now, s.initialAgeSeconds, s.freshSeconds, staleSeconds, markerKey.length()));
        }
        store.put(storeKey, r);
    }

    private void end() {
        if (mode == Mode.DONE) {
            return;
        }
        mode = Mode.DONE;
        dropCopy();
        releaseStale();
        ScheduledFuture<?> e = expiry;
        expiry = null;
        if (e != null) {
            e.cancel(false);
        }
        wakeWaiters();
    }

    private void dropCopy() {
        ByteBuf b = body;
        body = null;
        if (b != null) {
            b.release();
        }
    }

    private void releaseStale() {
        StoredResponse s = stale;
        stale = null;
        if (s != null) {
            s.release();
        }
    }
}
