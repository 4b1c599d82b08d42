package io.paduraksa.proxy.cache;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.proxy.Idempotency;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.CompiledRoute;
import io.paduraksa.snapshot.ResponseHeaderRules;
import io.paduraksa.snapshot.RouteCache;

/**
 * The response cache's hook in front of the forwarder: for a request on a route with a
 * {@code cache}, looks its key up in the {@link CacheStore} and answers a hit itself, through the
 * same {@link ForwardExchange} calls an upstream response takes (head, body, end), so every client
 * protocol serves hits as it serves upstream responses. A miss goes to the forwarder behind a
 * {@link CacheFill} that stores the response, or waits for the fill already running for its key.
 * Requests on other routes go straight on.
 *
 * <p>Per hit on an event loop: the key is built in a per-thread probe, the stored fields are
 * shown through a per-thread {@link StoredHead} (to an HTTP/1.1 client as one block encoded once
 * per entry and host rules, {@link StoredResponse#http1Lines}), the body is copied after the head
 * or goes out as a retained duplicate of the stored pooled buffer: 0 B on HTTP/1.1
 * ({@code CacheHitAllocationTest}) and to an h2c client ({@code Http2CacheHitAllocationIT}, over
 * real sockets).
 *
 * <p>What a request may use the cache: GET or HEAD, no body, no Upgrade, no {@code Range}, and no
 * {@code Authorization} unless the route's {@code store_authorized}. HEAD is answered from a stored
 * GET response; a HEAD miss is forwarded as it is (its answer has no body to store). The request's
 * own Cache-Control is not obeyed (as nginx and most CDNs: a client cannot force origin fetches).
 */
public final class CachingForwarder implements Forwarder {
    private static final AsciiString AUTHORIZATION = AsciiString.cached("authorization");
    private static final AsciiString RANGE = AsciiString.cached("range");

    /** Per event-loop thread: the lookup key and the head view of a hit. */
    private static final FastThreadLocal<Probe> PROBES = new FastThreadLocal<>() {
        @Override
        protected Probe initialValue() {
            return new Probe();
        }
    };

    private final Forwarder next;
    private final CacheStore store;
    private final DateHeader date;

    /** Caches in {@code store} in front of {@code next}; {@code date} stamps stored responses that came without Date. */
    public CachingForwarder(Forwarder next, CacheStore store, DateHeader date) {
        this.next = next;
        this.store = store;
        this.date = date;
    }

    public CacheStore store() {
        return store;
    }

    @Override
    public void forward(RequestState state, ForwardExchange exchange) {
        CompiledRoute route = state.route();
        RouteCache settings = route == null ? null : route.cache();
        if (settings == null) {
            next.forward(state, exchange);
            return;
        }
        lookup(state, exchange, settings, true);
    }

    /**
     * Answers from the store, or waits for the fetch in flight ({@code mayWait}), or fetches. The
     * common case, a fresh hit, allocates nothing.
     */
    void lookup(RequestState state, ForwardExchange exchange, RouteCache settings, boolean mayWait) {
        Probe p = PROBES.get();
        CacheKey key = p.key;
        if (!isEligible(state, exchange, settings) || !key.primary(state)) {
            bypass(state, exchange);
            return;
        }
        long now = System.nanoTime();
        StoredResponse found = live(key, now);
        if (found != null && found.vary() != null) {
            if (!key.addVary(state.view(), found.vary())) {
                bypass(state, exchange);
                return;
            }
            found = live(key, now);
        }
        if (found != null && found.isFresh(now) && replay(found, state, exchange, now)) {
            store.hits.increment();
            return;
        }
        if (Idempotency.isHead(state.method())) {
            bypass(state, exchange);
            return;
        }
        miss(state, exchange, settings, mayWait, key, found, now);
    }

    /** The entry under {@code key}, or null when there is none or it is dead (then it is dropped). */
    private StoredResponse live(CacheKey key, long now) {
        StoredResponse found = store.get(key);
        if (found != null && found.isDead(now)) {
            store.expire(key, found);
            return null;
        }
        return found;
    }

    /**
     * Not fresh or not there. Within stale-while-revalidate the stale copy answers, and a copy of
     * the request refreshes it in the background unless a fetch for the key already runs; else the
     * request waits for the fetch in flight, or fetches.
     */
    private void miss(RequestState state, ForwardExchange exchange, RouteCache settings, boolean mayWait, CacheKey key,
                      StoredResponse found, long now) {
        CacheFill running = store.fill(key);
        if (found != null && found.mayServeWhileRevalidating(now)) {
            if (running == null ? refreshInBackground(state, exchange, settings, key, found, now)
                    : replay(found, state, exchange, now)) {
                store.staleHits.increment();
                return;
            }
        }
        if (running != null && mayWait) {
            Waiter w = new Waiter(this, state, exchange, settings, store.coalesceTimeoutNanos());
            if (running.join(w)) {
                store.coalesced.increment();
                return;
            }
            w.run(); // the fetch just ended: looks again at once, without waiting
            return;
        }
        store.misses.increment();
        StoredResponse stale = found != null && found.mayServeOnError(now) && found.tryRetain() ? found : null;
        boolean authorized = state.view().header(AUTHORIZATION) != null;
        CacheFill fill = new CacheFill(this, store, key.copy(), state, exchange, settings, authorized, stale, date);
        store.register(fill); // lost a race with another loop's miss: this one still fetches, and may store
        next.forward(state, fill);
    }

    /**
     * Answers from {@code stale} and sends a copy of the request upstream behind a fill that stores
     * the response; false when the request cannot be copied or the stale copy was let go (then it
     * refreshes in the foreground). The copy is taken first, while the client's head is held.
     */
    private boolean refreshInBackground(RequestState state, ForwardExchange exchange, RouteCache settings, CacheKey key,
                                        StoredResponse stale, long now) {
        Revalidation copy = Revalidation.capture(state, exchange);
        boolean authorized = state.view().header(AUTHORIZATION) != null;
        if (copy == null || !replay(stale, state, exchange, now)) {
            return false;
        }
        // no stale copy for stale-if-error: nobody waits for this answer, and a 5xx is never stored
        CacheFill fill = new CacheFill(this, store, key.copy(), copy.state(), copy, settings, authorized, null, date);
        if (store.register(fill) != null) {
            fill.abort(); // another event loop's refresh of the key won the race: one is enough
            return true;
        }
        store.refreshes.increment();
        next.forward(copy.state(), fill);
        return true;
    }

    private void bypass(RequestState state, ForwardExchange exchange) {
        store.bypasses.increment();
        next.forward(state, exchange);
    }

    /** A stale response instead of an upstream failure (stale-if-error), counted as stale. */
    void serveStale(StoredResponse stale, RequestState state, ForwardExchange exchange) {
        long now = System.nanoTime();
        if (exchange.isOpen() && stale.tryRetain()) {
            store.staleHits.increment();
            write(stale, state, exchange, now);
            stale.release();
        }
    }

    /** Writes {@code r} as the response; false when the store let it go meanwhile (then it is a miss). */
    private static boolean replay(StoredResponse r, RequestState state, ForwardExchange exchange, long now) {
        if (!r.tryRetain()) {
            return false;
        }
        write(r, state, exchange, now);
        r.release();
        return true;
    }

    private static void write(StoredResponse r, RequestState state, ForwardExchange exchange, long now) {
        StoredHead head = PROBES.get().head.point(r, r.ageSeconds(now));
        CompiledHost host = state.host();
        ResponseHeaderRules rules = host == null ? state.snapshot().defaultResponseHeaders() : host.responseHeaders();
        exchange.storedResponse(head, rules, r.body());
        head.clear();
    }

    /** Whether the request may be answered from, or stored in, the cache at all. 0 B. */
    static boolean isEligible(RequestState state, ForwardExchange exchange, RouteCache settings) {
        return refusal(state.method(), exchange.requestBodyLength(), exchange.isUpgradeRequest(), state.view(), settings) == null;
    }

    /**
     * Why the request cannot use the cache (a constant), or null when it can. 0 B: shared by the
     * request path and {@code explain}.
     */
    static String refusal(CharSequence method, long bodyLength, boolean upgrade, RequestView view, RouteCache settings) {
        if (!Idempotency.isGet(method) && !Idempotency.isHead(method)) {
            return "the method is not GET or HEAD";
        }
        if (bodyLength != 0) {
            return "the request has a body";
        }
        if (upgrade) {
            return "the request asks for an Upgrade";
        }
        if (view.header(RANGE) != null) {
            return "the request has a Range";
        }
        if (!settings.storeAuthorized() && view.header(AUTHORIZATION) != null) {
            return "the request has Authorization (store_authorized is off)";
        }
        return null;
    }

    private static final class Probe {
        final CacheKey key = new CacheKey(512);
        final StoredHead head = new StoredHead();
    }
}
