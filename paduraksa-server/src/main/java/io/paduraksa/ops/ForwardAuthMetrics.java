package io.paduraksa.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Forward-auth counters per policy name: auth calls by outcome, a latency histogram of the calls
 * that got an answer (the buckets of {@link UpstreamMetrics}), requests that waited on another
 * request's call for the same key (coalesced), and subrequests sent on a reused pooled connection
 * or on a new one. Recorded on the miss path only (a cache hit records nothing), which allocates
 * anyway: one atomic add per count.
 *
 * <p>Process-wide ({@link #GLOBAL}): the forward-auth call has no server handle; a process runs
 * one server, so {@code /metrics} reports these for it. Counters continue across reloads by name.
 */
public final class ForwardAuthMetrics {
    /** The process's counters. */
    public static final ForwardAuthMetrics GLOBAL = new ForwardAuthMetrics();

    /** Outcomes of a call ({@link Policy#call}). */
    public static final int ALLOWED = 0;
    public static final int DENIED = 1;
    public static final int UNAVAILABLE = 2;
    static final String[] OUTCOMES = {"allowed", "denied", "unavailable"};

    static final int CALLS_AT = 0;
    static final int BUCKETS_AT = CALLS_AT + OUTCOMES.length;            // BUCKETS_MICROS.length + 1 (+Inf)
    static final int SUM_MICROS = BUCKETS_AT + UpstreamMetrics.BUCKETS_MICROS.length + 1;
    static final int COUNT = SUM_MICROS + 1;
    static final int COALESCED = COUNT + 1;
    static final int REUSED = COALESCED + 1;
    static final int CONNECTED = REUSED + 1;
    static final int SIZE = CONNECTED + 1;

    private final Map<String, Policy> byName = new ConcurrentHashMap<>();

    /** The counters of the policy {@code name} (made the first time). */
    public Policy policy(String name) {
        Policy p = byName.get(name);
        return p != null ? p : byName.computeIfAbsent(name, Policy::new);
    }

    List<Policy> policies() {
        List<Policy> out = new ArrayList<>(byName.values());
        out.sort((a, b) -> a.name.compareTo(b.name));
        return out;
    }

    /** One policy's counters. */
    public static final class Policy {
        final String name;
        final AtomicLongArray counts = new AtomicLongArray(SIZE);

        Policy(String name) {
            this.name = name;
        }

        /** A call ended: {@link #ALLOWED}, {@link #DENIED} or {@link #UNAVAILABLE}; {@code latencyMicros} &lt; 0 when no answer came. */
        public void call(int outcome, long latencyMicros) {
            counts.incrementAndGet(CALLS_AT + outcome);
            if (latencyMicros >= 0) {
                counts.incrementAndGet(BUCKETS_AT + UpstreamMetrics.bucket(latencyMicros));
                counts.addAndGet(SUM_MICROS, latencyMicros);
                counts.incrementAndGet(COUNT);
            }
        }

        /** A request waited on the in-flight call of another request with the same key. */
        public void coalesced() {
            counts.incrementAndGet(COALESCED);
        }

        /** A subrequest went out on a pooled connection ({@code reused}) or a new one. */
        public void connection(boolean reused) {
            counts.incrementAndGet(reused ? REUSED : CONNECTED);
        }

        long get(int i) {
            return counts.get(i);
        }
    }
}
