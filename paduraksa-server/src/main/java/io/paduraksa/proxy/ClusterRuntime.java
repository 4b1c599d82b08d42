package io.paduraksa.proxy;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.ops.UpstreamMetrics;
import io.paduraksa.proxy.balance.AffinityCookie;
import io.paduraksa.proxy.balance.DestinationState;
import io.paduraksa.proxy.balance.LoadBalancer;
import io.paduraksa.proxy.balance.RetryBudget;
import io.paduraksa.proxy.balance.Strategy;
import io.paduraksa.proxy.health.ActiveHealthChecker;
import io.paduraksa.proxy.balance.PassiveHealth;
import io.paduraksa.snapshot.UpstreamCluster;
import java.util.Arrays;
import java.util.List;

/**
 * A cluster of the running snapshot with its live parts: destination states (in flight, health),
 * the load balancer, the retry budget, session affinity, active health checks and the
 * {@link Endpoint}s whose per-loop pools hold the connections. Built off the event loops when a
 * snapshot is first used; read per request without locks or allocation.
 */
final class ClusterRuntime implements AutoCloseable {
    private static final AsciiString COOKIE = AsciiString.cached("cookie");

    private final UpstreamCluster model;
    private final Endpoint[] endpoints;
    private final AsciiString[] authorities;
    private final DestinationState[] states;
    private final LoadBalancer balancer;
    private final RetryBudget budget;
    private final AffinityCookie affinity;
    private final ActiveHealthChecker checker;
    /** Per destination: its counters (the same handles across reloads, keyed by cluster name and URL). */
    private final UpstreamMetrics.Destination[] meters;

    /**
     * @param previous the runtime of the same cluster in the replaced configuration, or null: its
     *                 destinations' health is carried over by destination URL ({@link #carryHealth}),
     *                 and its health checks must be stopped by the caller before this one is built
     */
    ClusterRuntime(UpstreamCluster model, Endpoint[] endpoints, EventLoopGroup group, UpstreamMetrics metrics,
                   ClusterRuntime previous) {
        this.model = model;
        this.endpoints = endpoints;
        List<UpstreamCluster.Destination> ds = model.destinations();
        int n = ds.size();
        this.authorities = new AsciiString[n];
        this.states = new DestinationState[n];
        this.meters = new UpstreamMetrics.Destination[n];
        UpstreamCluster.Health h = model.health();
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            UpstreamCluster.Destination d = ds.get(i);
            authorities[i] = d.authority();
            keys[i] = d.url().toString();
            meters[i] = metrics.destination(model.name(), keys[i]);
            PassiveHealth passive = h.passiveFailures() > 0
                    ? new PassiveHealth(h.passiveFailures(), h.passiveEjectFor(), h.passiveMaxEjectFor(), h.passiveCount5xx()) : null;
            states[i] = new DestinationState(i, d.weight(), passive, h.passiveEjectFor().toNanos());
        }
        int[] carried = carryHealth(previous);
        this.balancer = new LoadBalancer(Strategy.valueOf(model.loadBalancing().name()), states);
        this.budget = new RetryBudget(model.retry().budget(), model.retry().minPerSecond());
        this.affinity = model.affinityCookie() == null ? null : new AffinityCookie(model.affinityCookie(), keys, model.name());
        this.checker = h.activePath() == null ? null : startChecker(group, previous, carried);
    }

    /**
     * Copies each destination's health from the destination with the same URL in {@code previous}
     * (passive state always; the active verdict when both probe the same way, see
     * {@link #sameProbes}). Returns, per destination, the index of its predecessor, or -1.
     */
    private int[] carryHealth(ClusterRuntime previous) {
        int[] from = new int[states.length];
        Arrays.fill(from, -1);
        if (previous == null) {
            return from;
        }
        boolean active = sameProbes(previous);
        List<UpstreamCluster.Destination> now = model.destinations();
        List<UpstreamCluster.Destination> before = previous.model.destinations();
        for (int i = 0; i < states.length; i++) {
            for (int j = 0; j < before.size(); j++) {
                if (now.get(i).url().equals(before.get(j).url())) {
                    states[i].carryFrom(previous.states[j], active);
                    from[i] = j;
                    break;
                }
            }
        }
        return from;
    }

    /** Both runtimes probe their destinations with the same request in the same protocol. */
    private boolean sameProbes(ClusterRuntime previous) {
        String path = model.health().activePath();
        return path != null && previous.checker != null && path.equals(previous.model.health().activePath())
                && model.protocol() == previous.model.protocol();
    }

    private ActiveHealthChecker startChecker(EventLoopGroup group, ClusterRuntime previous, int[] carried) {
        UpstreamCluster.Health h = model.health();
        ActiveHealthChecker.Target[] targets = new ActiveHealthChecker.Target[endpoints.length];
        for (int i = 0; i < targets.length; i++) {
            Endpoint e = endpoints[i];
            targets[i] = new ActiveHealthChecker.Target(states[i], e.resolvedAddress(), authorities[i].toString(),
                    e.sslContext(), e.sni(), model.protocol());
        }
        ActiveHealthChecker c = new ActiveHealthChecker(group, endpoints.length == 0 ? null : endpoints[0].channelClass(),
                model.name(), targets, h.activePath(), h.activeInterval(), h.activeTimeout(), h.healthyThreshold(),
                h.unhealthyThreshold());
        if (previous != null && sameProbes(previous)) {
            for (int i = 0; i < carried.length; i++) {
                if (carried[i] >= 0) {
                    c.carryFrom(i, previous.checker, carried[i]);
                }
            }
        }
        c.start();
        return c;
    }

    UpstreamCluster model() {
        return model;
    }

    Endpoint[] endpoints() {
        return endpoints;
    }

    /** A request arrived at {@code now} (System.nanoTime). */
    void onRequest(long now) {
        budget.onRequest(now);
    }

    boolean tryRetry() {
        return budget.tryAcquire(System.nanoTime());
    }

    int choose(long now, int exclude) {
        return balancer.choose(now, exclude);
    }

    /** A destination for a retry: none of {@code tried} (a {@link LoadBalancer#bit} mask) nor {@code last}; -1 when none is left. */
    int chooseRetry(long tried, int last) {
        return balancer.chooseRetry(System.nanoTime(), tried, last);
    }

    /** The destination the request's affinity cookie names, when it is available and did not fail recently; else -1. */
    int affinityChoice(RequestState state, long now) {
        if (affinity == null) {
            return -1;
        }
        CharSequence cookie = state.header(COOKIE);
        int d = cookie == null ? -1 : affinity.find(cookie);
        if (d < 0) {
            return -1;
        }
        return states[d].isAvailable(now) && !states[d].isFailedRecently(now) ? d : -1;
    }

    /** The Set-Cookie line to add to the response: only when affinity is on and the request did not already name {@code d}. */
    byte[] affinityLine(int d, boolean named) {
        return affinity == null || named ? null : affinity.setCookieLine(d);
    }

    DestinationState destination(int d) {
        return states[d];
    }

    UpstreamMetrics.Destination meter(int d) {
        return meters[d];
    }

    /** Every destination's counter handle (the registry retires those no live runtime uses). */
    UpstreamMetrics.Destination[] meters() {
        return meters;
    }

    ConnectionPool pool(int d, EventLoop loop) {
        return endpoints[d].pool(loop);
    }

    AsciiString endpointAuthority(int d) {
        return authorities[d];
    }

    /**
     * Stops the health checks (idempotent): when a newer configuration replaces this runtime, and
     * at retirement. The endpoints are closed by the registry, which knows whether a newer runtime
     * shares them.
     */
    @Override
    public void close() {
        if (checker != null) {
            checker.close();
        }
    }
}
