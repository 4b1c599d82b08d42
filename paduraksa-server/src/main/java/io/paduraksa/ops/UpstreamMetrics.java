package io.paduraksa.ops;

import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Upstream counters per cluster and destination: requests sent, responses by status class, errors
 * by kind, and a latency histogram with fixed buckets in microseconds (exposed in seconds, the
 * Prometheus base unit). Pool sizes, in-flight requests and health are gauges the forwarder
 * reports through a {@link Source} when scraped.
 *
 * <p>The forwarder asks for a {@link Destination} once, when it builds the destination (compile or
 * reload time; the same cluster and destination name give the same handle, so counters continue
 * across reloads). Recording ({@link Destination#request}, {@link Destination#response},
 * {@link Destination#error}) runs per request on the event loop: 0 B, no atomic read-modify-write;
 * each thread writes its own stripe, as in {@link Metrics}.
 */
public final class UpstreamMetrics {
    /** Error kinds ({@link Destination#error}). */
    public static final int CONNECT = 0;
    public static final int TIMEOUT = 1;
    public static final int RESET = 2;
    public static final int INVALID_RESPONSE = 3;
    /** An HTTP/2 upstream without SETTINGS_ENABLE_CONNECT_PROTOCOL was asked for a WebSocket (RFC 8441 3). */
    public static final int UPGRADE_UNSUPPORTED = 4;
    static final String[] ERRORS = {"connect", "timeout", "reset", "invalid_response", "upgrade_unsupported"};
    /** Upper bounds of the latency buckets, in microseconds (the last bucket, +Inf, is implicit). */
    static final long[] BUCKETS_MICROS = {
        500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000};

    static final int REQUESTS = 0;
    static final int RESPONSES = 1;                                    // + status class 1..5 - 1
    static final int ERRORS_AT = RESPONSES + 5;
    static final int BUCKETS_AT = ERRORS_AT + ERRORS.length;          // BUCKETS_MICROS.length + 1 (+Inf)
    static final int SUM_MICROS = BUCKETS_AT + BUCKETS_MICROS.length + 1;
    static final int COUNT = SUM_MICROS + 1;
    /** Longs per destination in a stripe. */
    static final int STRIDE = COUNT + 1;

    private final Map<String, Destination> byName = new LinkedHashMap<>();
    private final List<long[][]> stripes = new CopyOnWriteArrayList<>();
    private final FastThreadLocal<long[][]> local = new FastThreadLocal<>() {
        @Override
        protected long[][] initialValue() {
            long[][] holder = {new long[16 * STRIDE]};
            stripes.add(holder);
            return holder;
        }
    };
    private volatile Source source;

    /** What the forwarder reports when scraped: pools, in-flight requests, health. May allocate. */
    @FunctionalInterface
    public interface Source {
        void report(Gauges gauges);
    }

    /** Told about every destination of every cluster; a cluster with no destination is reported with {@link #cluster}. */
    public interface Gauges {
        void cluster(String cluster);

        void destination(String cluster, String destination, boolean healthy, int inFlight, int openConnections,
                         int idleConnections);
    }

    /** Installs (or, with null, removes) the forwarder's gauge source. */
    public void source(Source s) {
        this.source = s;
    }

    Source source() {
        return source;
    }

    /** The handle of one destination; made or found at compile/reload time (allocates the first time). */
    public synchronized Destination destination(String cluster, String destination) {
        String key = cluster + '\n' + destination;
        Destination d = byName.get(key);
        if (d == null) {
            d = new Destination(this, cluster, destination, byName.size());
            byName.put(key, d);
        }
        d.retired = false;
        return d;
    }

    synchronized List<Destination> destinations() {
        List<Destination> live = new ArrayList<>();
        for (Destination d : byName.values()) {
            if (!d.retired) {
                live.add(d);
            }
        }
        return live;
    }

    /** The counts of {@code d} summed over the stripes ({@link #STRIDE} longs, histogram buckets not cumulative). */
    long[] sum(Destination d) {
        long[] out = new long[STRIDE];
        int base = d.slot * STRIDE;
        for (long[][] holder : stripes) {
            long[] a = holder[0];
            if (base + STRIDE <= a.length) {
                for (int i = 0; i < STRIDE; i++) {
                    out[i] += Metrics.read(a, base + i);
                }
            }
        }
        return out;
    }

    /** The stripe array of the calling thread, grown (by its owner, once) to hold {@code slot}. */
    long[] stripe(int slot) {
        long[][] holder = local.get();
        long[] a = holder[0];
        int end = (slot + 1) * STRIDE;
        return end <= a.length ? a : grow(holder, end);
    }

    private static long[] grow(long[][] holder, int end) {
        long[] old = holder[0];
        long[] a = new long[Math.max(end, old.length * 2)];
        for (int i = 0; i < old.length; i++) {
            a[i] = Metrics.read(old, i);
        }
        holder[0] = a; // a scrape reading the old array in the meantime sees the same counts
        return a;
    }

    /** One destination's recorder; the forwarder keeps it next to the destination. */
    public static final class Destination {
        private final UpstreamMetrics metrics;
        private final String cluster;
        private final String destination;
        private final int slot;
        private volatile boolean retired;

        Destination(UpstreamMetrics metrics, String cluster, String destination, int slot) {
            this.metrics = metrics;
            this.cluster = cluster;
            this.destination = destination;
            this.slot = slot;
        }

        public String cluster() {
            return cluster;
        }

        public String destination() {
            return destination;
        }

        /** A request was sent to this destination, or its connection failed (retries count again). */
        public void request() {
            long[] a = metrics.stripe(slot);
            Metrics.inc(a, slot * STRIDE + REQUESTS);
        }

        /** Its response head arrived with {@code status} after {@code latencyMicros} (request start to response head). */
        public void response(int status, long latencyMicros) {
            long[] a = metrics.stripe(slot);
            int base = slot * STRIDE;
            int c = Metrics.statusClass(status);
            if (c > 0) {
                Metrics.inc(a, base + RESPONSES + c - 1);
            }
            Metrics.inc(a, base + BUCKETS_AT + bucket(latencyMicros));
            Metrics.add(a, base + SUM_MICROS, Math.max(0, latencyMicros));
            Metrics.inc(a, base + COUNT);
        }

        /** The exchange failed: {@link #CONNECT}, {@link #TIMEOUT}, {@link #RESET} or {@link #INVALID_RESPONSE}. */
        public void error(int kind) {
            long[] a = metrics.stripe(slot);
            Metrics.inc(a, slot * STRIDE + ERRORS_AT + Math.max(0, Math.min(kind, ERRORS.length - 1)));
        }

        /** Hides it from scrapes (its destination left the configuration); {@code destination()} revives it. */
        public void retire() {
            retired = true;
        }
    }

    static int bucket(long micros) {
        long[] b = BUCKETS_MICROS;
        for (int i = 0; i < b.length; i++) {
            if (micros <= b[i]) {
                return i;
            }
        }
        return b.length;
    }
}
