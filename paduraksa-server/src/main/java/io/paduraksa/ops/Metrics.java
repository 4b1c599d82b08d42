package io.paduraksa.ops;

import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntUnaryOperator;

/**
 * The request counters of one server, shared by its event loops: requests by listener and status
 * class, gate decisions, requests per host and per route, policy hits, open HTTP/2 streams; plus
 * the upstream counters ({@link #upstream()}) and the gauges read when scraped.
 *
 * <p>Per request: one call ({@link #answered}, {@link #refused} or {@link #forwardedResponse}),
 * 0 B and no atomic read-modify-write. Every thread that counts owns a {@link Stripe} (found through
 * a {@link FastThreadLocal}, an array index on an event loop) and is its only writer; the stripe's
 * longs are written and read with opaque access (no tearing, no fences on x86). A scrape sums the
 * stripes, so it sees each stripe's counts as of a moment, never a torn value.
 *
 * <p>Reloads: host, route and policy slots come from a {@link CounterLayout} of the snapshot the
 * request ran on. The first request of a new snapshot on a thread moves that thread's counts to the
 * new layout by name (a host by its first name, a route by host name and prefix, a policy by name),
 * so a counter keeps counting across reloads while its name exists, whatever its position; counts
 * of a name that is gone are dropped with it. A request still running on an older snapshot after
 * its thread moved on counts by listener, status class and decision only. A scrape labels by the
 * current snapshot and translates stripes that have not yet moved.
 */
public final class Metrics {
    /** Status classes: slot 0 is a request that ended without a status (dropped, aborted). */
    static final String[] CLASSES = {"none", "1xx", "2xx", "3xx", "4xx", "5xx"};
    /** Gate decisions; "refused" is a request refused before the gate (CONNECT, malformed head, timeout). */
    static final String[] DECISIONS = {"respond", "redirect", "drop", "forward", "challenge", "refused"};
    static final int RESPOND = 0;
    static final int REDIRECT = 1;
    static final int DROP = 2;
    static final int FORWARD = 3;
    static final int CHALLENGE = 4;
    static final int REFUSED = 5;

    /**
     * Why TLS handshakes failed, the {@code reason} label of {@code paduraksa_tls_handshake_failures_total};
     * in the order of {@code server.connection.TlsHandshakeFailures.Reason} (a test checks).
     */
    public static final List<String> TLS_FAILURE_REASONS = List.of("not_tls", "timeout", "closed", "protocol");

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final SnapshotStore store;
    private final String[] listeners;
    private final boolean[] admin;
    private final int decisionBase;
    private final int streamsSlot;
    private final List<Stripe> stripes = new CopyOnWriteArrayList<>();
    private final FastThreadLocal<Stripe> local = new FastThreadLocal<>() {
        @Override
        protected Stripe initialValue() {
            Stripe s = new Stripe(decisionBase + DECISIONS.length + 1);
            stripes.add(s);
            return s;
        }
    };
    private final UpstreamMetrics upstream = new UpstreamMetrics();
    private volatile IntUnaryOperator openConnections = listener -> -1;
    /** Failed TLS handshakes by listener and reason; a failed handshake is rare next to a request, so one atomic add. */
    private final AtomicLongArray tlsFailures;
    private volatile boolean[] tlsListener;
    private volatile AccessLog accessLog;
    private volatile CacheAdmin cache;
    /** The newest layout any thread asked for; guarded by {@code this}. */
    private CounterLayout latest;

    /**
     * @param listenerNames every listener's name, in the order of {@code listeners:} (the index the
     *                      handlers pass); admin listeners are named but not counted
     * @param adminListener which of them are admin listeners
     */
    public Metrics(SnapshotStore store, List<String> listenerNames, boolean[] adminListener) {
        this.store = store;
        this.listeners = listenerNames.toArray(new String[0]);
        this.admin = adminListener.clone();
        this.decisionBase = listeners.length * CLASSES.length;
        this.streamsSlot = decisionBase + DECISIONS.length;
        this.tlsFailures = new AtomicLongArray(listeners.length * TLS_FAILURE_REASONS.size());
        this.tlsListener = new boolean[listeners.length];
    }

    /** The upstream counters (per cluster and destination) the forwarder records into. */
    public UpstreamMetrics upstream() {
        return upstream;
    }

    /** The response cache whose counters a scrape reports and which the admin listener purges (null: none). */
    public void cache(CacheAdmin cache) {
        this.cache = cache;
    }

    /** The response cache, or null. */
    public CacheAdmin cache() {
        return cache;
    }

    /** The access log whose written and dropped lines a scrape reports (null: off). */
    public void accessLog(AccessLog log) {
        this.accessLog = log;
    }

    AccessLog accessLog() {
        return accessLog;
    }

    /** Where scrapes read each listener's open connections (-1: not known). */
    public void openConnections(IntUnaryOperator perListener) {
        this.openConnections = perListener;
    }

    /** Which listeners serve TLS: those get a {@code paduraksa_tls_handshake_failures_total} sample per reason. */
    public void tlsListeners(boolean[] tls) {
        this.tlsListener = tls.clone();
    }

    /** A TLS handshake on {@code listener} failed; {@code reason} indexes {@link #TLS_FAILURE_REASONS}. */
    public void tlsHandshakeFailed(int listener, int reason) {
        if (listener >= 0 && listener < listeners.length && reason >= 0 && reason < TLS_FAILURE_REASONS.size()) {
            tlsFailures.incrementAndGet(listener * TLS_FAILURE_REASONS.size() + reason);
        }
    }

    /** Failed TLS handshakes on {@code listener} for {@code reason} (an index of {@link #TLS_FAILURE_REASONS}). */
    public long tlsHandshakeFailures(int listener, int reason) {
        return tlsFailures.get(listener * TLS_FAILURE_REASONS.size() + reason);
    }

    boolean isTlsListener(int listener) {
        return tlsListener[listener];
    }

    String listenerName(int listener) {
        return listeners[listener];
    }

    int listenerCount() {
        return listeners.length;
    }

    // ---- per request (0 B) ----

    /**
     * A request the gate decided and the handler answered ({@code status}) or dropped (status 0).
     * Not for FORWARD: the forwarder reports those with {@link #forwardedResponse} once the status
     * the client gets is known.
     */
    public void answered(int listener, RequestState state, GateOutcome outcome, int status) {
        Stripe s = local.get();
        s.request(listener, statusClass(status), decision(outcome, status), this);
        Counts c = s.counts(state.snapshot(), this);
        if (c != null) {
            c.request(state.hostIndex(), state.routeIndex());
            RequestPolicy p = state.decidingPolicy();
            if (p != null) {
                inc(c.policies, c.layout.policySlot(p));
            }
        }
    }

    /** A request answered before the gate ran: CONNECT, an unmappable target, a malformed head, a header timeout. */
    public void refused(int listener, int status) {
        local.get().request(listener, statusClass(status), REFUSED, this);
    }

    /**
     * A forwarded request whose client-side status is known: the upstream's status when the response
     * head is written, the forwarder's own answer (502, 503, 504), or 0 when it ended without one
     * (aborted, client gone). Call exactly once per forwarded request. Host and route indices are
     * those of {@code snapshot} (the request's, {@link RequestState#snapshot()}).
     */
    public void forwardedResponse(int listener, Snapshot snapshot, int hostIndex, int routeIndex, int status) {
        Stripe s = local.get();
        s.request(listener, statusClass(status), FORWARD, this);
        Counts c = s.counts(snapshot, this);
        if (c != null) {
            c.request(hostIndex, routeIndex);
        }
    }

    /** {@link #forwardedResponse(int, Snapshot, int, int, int)} with the request's snapshot, host and route. */
    public void forwardedResponse(int listener, RequestState state, int status) {
        forwardedResponse(listener, state.snapshot(), state.hostIndex(), state.routeIndex(), status);
    }

    /** An HTTP/2 stream became active (gauge). */
    public void streamOpened() {
        Stripe s = local.get();
        add(s.fixed, streamsSlot, 1);
    }

    /** An HTTP/2 stream closed (gauge); called on the same event loop as its {@link #streamOpened}. */
    public void streamClosed() {
        Stripe s = local.get();
        add(s.fixed, streamsSlot, -1);
    }

    static int statusClass(int status) {
        int c = status / 100;
        return c >= 1 && c <= 5 ? c : 0;
    }

    static int decision(GateOutcome outcome, int status) {
        if (outcome == GateOutcome.DROP) {
            return DROP;
        }
        if (outcome == GateOutcome.CHALLENGE) {
            return CHALLENGE;
        }
        if (outcome == GateOutcome.FORWARD) {
            return FORWARD;
        }
        return status >= 300 && status < 400 ? REDIRECT : RESPOND;
    }

    static void inc(long[] a, int i) {
        add(a, i, 1);
    }

    static void add(long[] a, int i, long delta) {
        LONGS.setOpaque(a, i, (long) LONGS.getOpaque(a, i) + delta);
    }

    static long read(long[] a, int i) {
        return (long) LONGS.getOpaque(a, i);
    }

    // ---- layouts (slow path: once per thread per reload) ----

    /** The layout of {@code snapshot}, or null when a newer one is in use (a request that outlived a reload). */
    synchronized CounterLayout layoutFor(Snapshot snapshot) {
        CounterLayout l = latest;
        if (l != null && l.generation == snapshot.generation()) {
            return l;
        }
        if (l == null || snapshot.generation() > l.generation) {
            latest = CounterLayout.of(snapshot);
            return latest;
        }
        return null;
    }

    /** One thread's counters; only that thread writes them. */
    static final class Stripe {
        final long[] fixed;
        volatile Counts counts;

        Stripe(int slots) {
            this.fixed = new long[slots];
        }

        void request(int listener, int statusClass, int decision, Metrics m) {
            if (listener >= 0 && listener < m.listeners.length) {
                inc(fixed, listener * CLASSES.length + statusClass);
            }
            inc(fixed, m.decisionBase + decision);
        }

        /** The counts for {@code snapshot}'s layout; moves to a newer layout first; null for an outdated snapshot. */
        Counts counts(Snapshot snapshot, Metrics m) {
            Counts c = counts;
            if (snapshot == null) {
                return null;
            }
            if (c != null && c.layout.generation == snapshot.generation()) {
                return c;
            }
            return adopt(snapshot, m);
        }

        private Counts adopt(Snapshot snapshot, Metrics m) {
            CounterLayout layout = m.layoutFor(snapshot);
            if (layout == null) {
                return null;
            }
            Counts next = new Counts(layout);
            Counts previous = counts;
            if (previous != null) {
                next.addTranslated(previous, layout.translation(previous.layout));
            }
            counts = next; // volatile: a scrape sees either the old counts or the moved ones, never both
            return next;
        }
    }

    /** Per-host, per-route and per-policy counts of one stripe for one layout. */
    static final class Counts {
        final CounterLayout layout;
        final long[] hosts;
        final long[] routes;
        final long[] policies;

        Counts(CounterLayout layout) {
            this.layout = layout;
            this.hosts = new long[layout.hostSlots()];
            this.routes = new long[layout.routeSlots()];
            this.policies = new long[layout.policySlots()];
        }

        void request(int hostIndex, int routeIndex) {
            inc(hosts, layout.hostSlot(hostIndex));
            int r = layout.routeSlot(hostIndex, routeIndex);
            if (r >= 0) {
                inc(routes, r);
            }
        }

        void addTranslated(Counts from, int[][] map) {
            addMapped(from.hosts, map[0], hosts);
            addMapped(from.routes, map[1], routes);
            addMapped(from.policies, map[2], policies);
        }

        void addSame(Counts from) {
            addAll(from.hosts, hosts);
            addAll(from.routes, routes);
            addAll(from.policies, policies);
        }

        private static void addAll(long[] from, long[] to) {
            for (int i = 0; i < from.length; i++) {
                to[i] += read(from, i);
            }
        }

        private static void addMapped(long[] from, int[] map, long[] to) {
            for (int i = 0; i < from.length; i++) {
                if (map[i] >= 0) {
                    add(to, map[i], read(from, i));
                }
            }
        }
    }

    // ---- scrape (allocates) ----

    /** Every counter summed over the stripes, labelled by the current snapshot. */
    public Totals totals() {
        Snapshot current = store.current();
        CounterLayout layout = layoutFor(current);
        if (layout == null) {
            synchronized (this) {
                layout = latest;
            }
        }
        Counts sum = new Counts(layout);
        long[] fixed = new long[streamsSlot + 1];
        Map<CounterLayout, int[][]> translations = new HashMap<>();
        for (Stripe s : stripes) {
            for (int i = 0; i < fixed.length; i++) {
                fixed[i] += read(s.fixed, i);
            }
            Counts c = s.counts;
            if (c == null) {
                continue;
            }
            if (c.layout == layout) {
                sum.addSame(c);
            } else {
                sum.addTranslated(c, translations.computeIfAbsent(c.layout, layout::translation));
            }
        }
        long[] open = new long[listeners.length];
        IntUnaryOperator conns = openConnections;
        for (int i = 0; i < listeners.length; i++) {
            open[i] = admin[i] ? -1 : conns.applyAsInt(i);
        }
        return new Totals(current, listeners.clone(), admin.clone(), fixed, decisionBase, streamsSlot, sum, open);
    }

    /** A scrape's sums. */
    public static final class Totals {
        final Snapshot snapshot;
        final String[] listeners;
        final boolean[] admin;
        private final long[] fixed;
        private final int decisionBase;
        private final int streamsSlot;
        final Counts layoutCounts;
        final long[] openConnections;

        Totals(Snapshot snapshot, String[] listeners, boolean[] admin, long[] fixed, int decisionBase, int streamsSlot,
               Counts layoutCounts, long[] openConnections) {
            this.snapshot = snapshot;
            this.listeners = listeners;
            this.admin = admin;
            this.fixed = fixed;
            this.decisionBase = decisionBase;
            this.streamsSlot = streamsSlot;
            this.layoutCounts = layoutCounts;
            this.openConnections = openConnections;
        }

        public long requests(int listener, int statusClass) {
            return fixed[listener * CLASSES.length + statusClass];
        }

        public long requestsByClass(int statusClass) {
            long n = 0;
            for (int l = 0; l < listeners.length; l++) {
                n += requests(l, statusClass);
            }
            return n;
        }

        public long decisions(int decision) {
            return fixed[decisionBase + decision];
        }

        public long openStreams() {
            return fixed[streamsSlot];
        }

        /** Requests for the host whose first name is {@code name} ({@link CounterLayout#UNKNOWN} for the unknown bucket), or -1. */
        public long hostRequests(String name) {
            String[] names = layoutCounts.layout.hostNames;
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return layoutCounts.hosts[i];
                }
            }
            return -1;
        }

        public long policyHits(String name) {
            String[] names = layoutCounts.layout.policyNames;
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return layoutCounts.policies[i];
                }
            }
            return -1;
        }

        public long openConnectionsTotal() {
            long n = 0;
            for (long v : openConnections) {
                n += Math.max(0, v);
            }
            return n;
        }
    }
}
