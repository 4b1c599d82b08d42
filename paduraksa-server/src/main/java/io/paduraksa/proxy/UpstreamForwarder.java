package io.paduraksa.proxy;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.paduraksa.gate.RequestState;
import io.paduraksa.ops.UpstreamMetrics;
import io.paduraksa.proxy.balance.DestinationState;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.UpstreamCluster;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The forwarder: finds the live {@link ClusterRuntime} for a request's cluster and starts a
 * {@link ForwardCall}. Runtimes are built when a snapshot is published ({@link #prepare}, off the
 * event loops; a request on a snapshot not prepared yet builds them once) and published in an
 * identity map, copied on write, so the per-request lookup is one volatile read and an identity
 * hash probe.
 *
 * <p>Reload: a cluster whose connection settings are unchanged ({@link UpstreamCluster#sameConnections})
 * keeps its {@link Endpoint}s and with them every pooled connection, open WebSocket or long
 * response; balancer, health and budget follow the new settings. Each destination's health
 * (active verdict and counts, passive failures and ejection, a recent connection failure) is
 * carried over by cluster name and destination URL, and the replaced runtimes' health checks stop
 * at once, so a reload neither sends traffic to a destination known to be down nor adds probes.
 * Endpoints no runtime of the current or the previous snapshot uses are closed: idle connections at once, busy ones when their
 * request ends. Runtimes of the two newest snapshots are kept, so a request that started on the
 * previous snapshot still finds its cluster.
 */
public final class UpstreamForwarder implements Forwarder, UpstreamMetrics.Source, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamForwarder.class);

    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> channelClass;
    private final ScheduledExecutorService resolver;
    private final UpstreamMetrics metrics;
    private final ConnectionPool.Factory pools;
    private volatile Map<UpstreamCluster, ClusterRuntime> runtimes = Collections.emptyMap();
    /** Runtimes by snapshot generation, oldest first; at most two generations are kept. */
    private final List<Generation> generations = new ArrayList<>();
    /** The generation of the snapshot registered last, or -1. */
    private long lastRegistered = -1;

    private record Generation(long number, List<ClusterRuntime> runtimes) {
    }

    /**
     * Records into {@code metrics} (per destination) and reports its gauges when installed as its
     * source; {@code pools} opens each destination's per-loop pool in the cluster's protocol.
     */
    public UpstreamForwarder(EventLoopGroup group, Class<? extends SocketChannel> channelClass, UpstreamMetrics metrics,
                             ConnectionPool.Factory pools) {
        this.group = group;
        this.pools = pools;
        this.metrics = metrics;
        this.channelClass = channelClass;
        this.resolver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "paduraksa-resolver");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void forward(RequestState state, ForwardExchange exchange) {
        ClusterRuntime runtime = runtimes.get(state.cluster());
        if (runtime == null) {
            runtime = register(state.snapshot(), state.cluster());
        }
        if (runtime == null) {
            exchange.answer(state.statusAnswer(502));
            return;
        }
        ForwardCall.start(runtime, state, exchange);
    }

    /**
     * Builds the runtimes of a snapshot as soon as it is published (start-up and every reload, off
     * the event loops), so that health checks run and upstream gauges show before the first request;
     * {@link #forward} would otherwise build them on first use.
     */
    public void prepare(Snapshot snapshot) {
        register(snapshot, null);
    }

    /** Builds the runtimes of {@code snapshot} (once per snapshot), reusing unchanged endpoints. */
    private synchronized ClusterRuntime register(Snapshot snapshot, UpstreamCluster wanted) {
        ClusterRuntime known = wanted == null ? null : runtimes.get(wanted);
        if (known != null || snapshot.generation() == lastRegistered) {
            return known; // a snapshot is registered once; an empty second generation would retire a live one
        }
        lastRegistered = snapshot.generation();
        Map<UpstreamCluster, ClusterRuntime> next = new IdentityHashMap<>(runtimes);
        List<ClusterRuntime> built = new ArrayList<>();
        Set<ClusterRuntime> used = Collections.newSetFromMap(new IdentityHashMap<>());
        for (UpstreamCluster c : snapshot.clusters().values()) {
            ClusterRuntime same = next.get(c);
            if (same != null) {
                used.add(same);
                continue;
            }
            ClusterRuntime previous = newest(c.name());
            if (previous != null) {
                previous.close(); // its counts are final now, and the new runtime continues them
            }
            try {
                ClusterRuntime r = new ClusterRuntime(c, endpointsFor(c), group, metrics, previous);
                next.put(c, r);
                built.add(r);
                used.add(r);
            } catch (SSLException | RuntimeException e) {
                LOG.error("cluster '{}' cannot be used: {}", c.name(), e.toString());
            }
        }
        stopReplaced(used);
        generations.add(new Generation(snapshot.generation(), built));
        retire(next);
        runtimes = next;
        return next.get(wanted);
    }

    /** The runtime of the newest registered snapshot with a cluster of this name, or null. */
    private ClusterRuntime newest(String name) {
        for (int g = generations.size() - 1; g >= 0; g--) {
            for (ClusterRuntime r : generations.get(g).runtimes) {
                if (r.model().name().equals(name)) {
                    return r;
                }
            }
        }
        return null;
    }

    /**
     * Stops the health checks of every runtime the new snapshot does not use (replaced or removed
     * clusters): they stay registered for requests still running on the previous snapshot, but
     * only the newest configuration probes.
     */
    private void stopReplaced(Set<ClusterRuntime> used) {
        for (Generation g : generations) {
            for (ClusterRuntime r : g.runtimes) {
                if (!used.contains(r)) {
                    r.close();
                }
            }
        }
    }

    /** The endpoints of the newest runtime with the same name and connection settings, or new ones. */
    private Endpoint[] endpointsFor(UpstreamCluster c) throws SSLException {
        for (int g = generations.size() - 1; g >= 0; g--) {
            for (ClusterRuntime r : generations.get(g).runtimes) {
                if (r.model().name().equals(c.name()) && r.model().sameConnections(c)) {
                    return r.endpoints();
                }
            }
        }
        List<UpstreamCluster.Destination> ds = c.destinations();
        Endpoint[] endpoints = new Endpoint[ds.size()];
        for (int i = 0; i < endpoints.length; i++) {
            endpoints[i] = new Endpoint(c, ds.get(i), channelClass, resolver, pools);
        }
        return endpoints;
    }

    /** Drops generations beyond the newest two; closes their health checks and unshared endpoints. */
    private void retire(Map<UpstreamCluster, ClusterRuntime> next) {
        while (generations.size() > 2) {
            Generation old = generations.remove(0);
            Set<Endpoint> live = Collections.newSetFromMap(new IdentityHashMap<>());
            for (Generation g : generations) {
                for (ClusterRuntime r : g.runtimes) {
                    Collections.addAll(live, r.endpoints());
                }
            }
            Set<UpstreamMetrics.Destination> counted = Collections.newSetFromMap(new IdentityHashMap<>());
            for (Generation g : generations) {
                for (ClusterRuntime r : g.runtimes) {
                    Collections.addAll(counted, r.meters());
                }
            }
            for (ClusterRuntime r : old.runtimes) {
                next.remove(r.model());
                r.close();
                for (UpstreamMetrics.Destination m : r.meters()) {
                    if (!counted.contains(m)) {
                        m.retire(); // its destination left the configuration
                    }
                }
                for (Endpoint e : r.endpoints()) {
                    if (!live.contains(e)) {
                        e.close();
                    }
                }
            }
        }
    }

    /**
     * Gauges at a scrape (any thread): the clusters of the newest snapshot, each destination's
     * health, requests in flight, and open and idle connections summed over the per-loop pools
     * (each count read racily, as a gauge may be).
     */
    @Override
    public void report(UpstreamMetrics.Gauges gauges) {
        List<ClusterRuntime> current;
        synchronized (this) {
            if (generations.isEmpty()) {
                return;
            }
            current = new ArrayList<>(generations.get(generations.size() - 1).runtimes);
        }
        long now = System.nanoTime();
        for (ClusterRuntime r : current) {
            String name = r.model().name();
            List<UpstreamCluster.Destination> ds = r.model().destinations();
            if (ds.isEmpty()) {
                gauges.cluster(name);
            }
            for (int i = 0; i < ds.size(); i++) {
                DestinationState d = r.destination(i);
                int[] conns = r.endpoints()[i].connectionCounts();
                gauges.destination(name, r.meter(i).destination(), d.isAvailable(now), d.inFlight(), conns[0], conns[1]);
            }
        }
    }

    @Override
    public synchronized void close() {
        for (Generation g : generations) {
            for (ClusterRuntime r : g.runtimes) {
                r.close();
                for (Endpoint e : r.endpoints()) {
                    e.close();
                }
            }
        }
        generations.clear();
        runtimes = Collections.emptyMap();
        resolver.shutdownNow();
        try {
            resolver.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
