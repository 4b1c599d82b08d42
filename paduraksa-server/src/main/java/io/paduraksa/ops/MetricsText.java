package io.paduraksa.ops;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.paduraksa.policy.attack.AttackCounters;
import io.paduraksa.snapshot.Snapshot;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code /metrics} page: the request counters of {@link Metrics}, the upstream counters and
 * gauges of {@link UpstreamMetrics}, the reloader's counts and JVM figures, in the Prometheus text
 * format. Runs on the admin listener's event loop per scrape; allocates.
 */
final class MetricsText {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private MetricsText() {
    }

    static String render(Metrics metrics, Reloader reloader) {
        Metrics.Totals t = metrics.totals();
        PrometheusText p = new PrometheusText();
        requests(p, t);
        layoutCounters(p, t);
        connections(p, t);
        tlsFailures(p, metrics);
        config(p, t.snapshot, reloader);
        upstream(p, metrics.upstream());
        forwardAuth(p, ForwardAuthMetrics.GLOBAL);
        attacks(p, AttackCounters.all());
        accessLog(p, metrics.accessLog());
        cache(p, metrics.cache());
        jvm(p);
        return p.toString();
    }

    private static void requests(PrometheusText p, Metrics.Totals t) {
        p.family("paduraksa_requests_total", "counter",
                "Requests by listener and status class of the answer (none: dropped or ended without a status).");
        for (int l = 0; l < t.listeners.length; l++) {
            if (t.admin[l]) {
                continue;
            }
            for (int c = 0; c < Metrics.CLASSES.length; c++) {
                p.sample("paduraksa_requests_total", t.requests(l, c), "listener", t.listeners[l], "class", Metrics.CLASSES[c]);
            }
        }
        p.family("paduraksa_gate_decisions_total", "counter",
                "Requests by what decided them (refused: answered before the gate ran).");
        for (int d = 0; d < Metrics.DECISIONS.length; d++) {
            p.sample("paduraksa_gate_decisions_total", t.decisions(d), "decision", Metrics.DECISIONS[d]);
        }
    }

    private static void layoutCounters(PrometheusText p, Metrics.Totals t) {
        Metrics.Counts c = t.layoutCounts;
        CounterLayout l = c.layout;
        p.family("paduraksa_host_requests_total", "counter",
                "Requests per host entry, labelled by its first name; kept across reloads while the name stays.");
        for (int i = 0; i < l.hostNames.length; i++) {
            p.sample("paduraksa_host_requests_total", c.hosts[i], "host", l.hostNames[i]);
        }
        p.family("paduraksa_route_requests_total", "counter", "Requests per route (host first name, route prefix).");
        for (int i = 0; i < l.routePrefixes.length; i++) {
            p.sample("paduraksa_route_requests_total", c.routes[i], "host", l.routeHosts[i], "route", l.routePrefixes[i]);
        }
        p.family("paduraksa_policy_hits_total", "counter", "Requests a policy decided (answered, challenged or dropped).");
        for (int i = 0; i < l.policyNames.length; i++) {
            p.sample("paduraksa_policy_hits_total", c.policies[i], "policy", l.policyNames[i]);
        }
    }

    private static void connections(PrometheusText p, Metrics.Totals t) {
        p.family("paduraksa_open_connections", "gauge", "Client connections open, by listener.");
        for (int l = 0; l < t.listeners.length; l++) {
            if (!t.admin[l] && t.openConnections[l] >= 0) {
                p.sample("paduraksa_open_connections", t.openConnections[l], "listener", t.listeners[l]);
            }
        }
        p.family("paduraksa_open_http2_streams", "gauge", "Client HTTP/2 streams open.").sample("paduraksa_open_http2_streams", t.openStreams());
    }

    private static void tlsFailures(PrometheusText p, Metrics m) {
        p.family("paduraksa_tls_handshake_failures_total", "counter",
                "Failed TLS handshakes by listener and reason (not_tls, timeout, closed, protocol).");
        for (int l = 0; l < m.listenerCount(); l++) {
            if (!m.isTlsListener(l)) {
                continue;
            }
            for (int r = 0; r < Metrics.TLS_FAILURE_REASONS.size(); r++) {
                p.sample("paduraksa_tls_handshake_failures_total", m.tlsHandshakeFailures(l, r), "listener", m.listenerName(l),
                        "reason", Metrics.TLS_FAILURE_REASONS.get(r));
            }
        }
    }

    private static void config(PrometheusText p, Snapshot s, Reloader reloader) {
        p.family("paduraksa_config_generation", "gauge", "Generation of the snapshot serving requests.")
                .sample("paduraksa_config_generation", s.generation());
        p.family("paduraksa_config_loaded_timestamp_seconds", "gauge", "When the serving snapshot was compiled (Unix time).")
                .sample("paduraksa_config_loaded_timestamp_seconds", s.compiledAt().toEpochMilli() / 1000.0);
        p.family("paduraksa_hosts", "gauge", "Host entries in the serving snapshot.").sample("paduraksa_hosts", s.hostList().size());
        p.family("paduraksa_reloads_total", "counter", "Successful reloads.").sample("paduraksa_reloads_total", reloader.reloads());
        p.family("paduraksa_reload_failures_total", "counter", "Rejected reloads (the running snapshot stayed).")
                .sample("paduraksa_reload_failures_total", reloader.failures());
    }

    private static void accessLog(PrometheusText p, AccessLog log) {
        if (log == null) {
            return;
        }
        p.family("paduraksa_access_log_lines_total", "counter", "Access log lines written.")
                .sample("paduraksa_access_log_lines_total", log.written());
        p.family("paduraksa_access_log_dropped_total", "counter", "Access log lines dropped because the queue was full.")
                .sample("paduraksa_access_log_dropped_total", log.dropped());
    }

    private static void upstream(PrometheusText p, UpstreamMetrics u) {
        List<UpstreamMetrics.Destination> ds = u.destinations();
        List<long[]> sums = new ArrayList<>();
        for (UpstreamMetrics.Destination d : ds) {
            sums.add(u.sum(d));
        }
        p.family("paduraksa_upstream_requests_total", "counter", "Requests sent to a destination (retries count again).");
        for (int i = 0; i < ds.size(); i++) {
            p.sample("paduraksa_upstream_requests_total", sums.get(i)[UpstreamMetrics.REQUESTS], labels(ds.get(i)));
        }
        p.family("paduraksa_upstream_responses_total", "counter", "Responses from a destination, by status class.");
        for (int i = 0; i < ds.size(); i++) {
            for (int c = 1; c <= 5; c++) {
                p.sample("paduraksa_upstream_responses_total", sums.get(i)[UpstreamMetrics.RESPONSES + c - 1],
                        with(ds.get(i), "class", Metrics.CLASSES[c]));
            }
        }
        p.family("paduraksa_upstream_errors_total", "counter", "Failed exchanges with a destination, by kind.");
        for (int i = 0; i < ds.size(); i++) {
            for (int k = 0; k < UpstreamMetrics.ERRORS.length; k++) {
                p.sample("paduraksa_upstream_errors_total", sums.get(i)[UpstreamMetrics.ERRORS_AT + k],
                        with(ds.get(i), "kind", UpstreamMetrics.ERRORS[k]));
            }
        }
        histogram(p, ds, sums);
        gauges(p, u);
    }

    private static void histogram(PrometheusText p, List<UpstreamMetrics.Destination> ds, List<long[]> sums) {
        String name = "paduraksa_upstream_response_seconds";
        p.family(name, "histogram", "Time from sending the request to the response head, per destination.");
        long[] bounds = UpstreamMetrics.BUCKETS_MICROS;
        for (int i = 0; i < ds.size(); i++) {
            long[] s = sums.get(i);
            long cumulative = 0;
            for (int b = 0; b <= bounds.length; b++) {
                cumulative += s[UpstreamMetrics.BUCKETS_AT + b];
                String le = b < bounds.length ? PrometheusText.seconds(bounds[b]) : "+Inf";
                p.sample(name + "_bucket", cumulative, with(ds.get(i), "le", le));
            }
            p.sample(name + "_sum", s[UpstreamMetrics.SUM_MICROS] / 1e6, labels(ds.get(i)));
            p.sample(name + "_count", s[UpstreamMetrics.COUNT], labels(ds.get(i)));
        }
    }

    /** The attacks policies' counters (families only when such a policy was ever configured). */
    private static void attacks(PrometheusText p, List<AttackCounters> policies) {
        if (policies.isEmpty()) {
            return;
        }
        p.family("paduraksa_attack_rule_matches_total", "counter",
                "Attack rules that matched, by policy and rule group (each rule once per request).");
        for (AttackCounters a : policies) {
            for (int group : AttackCounters.groups()) {
                p.sample("paduraksa_attack_rule_matches_total", a.matches(group), "policy", a.policy(), "group", Integer.toString(group));
            }
        }
        p.family("paduraksa_attack_requests_total", "counter",
                "Requests whose anomaly score reached the threshold, by policy and outcome (denied, or detected with detect_only).");
        for (AttackCounters a : policies) {
            p.sample("paduraksa_attack_requests_total", a.denied(), "policy", a.policy(), "outcome", "denied");
            p.sample("paduraksa_attack_requests_total", a.detected(), "policy", a.policy(), "outcome", "detected");
        }
    }

    private static void cache(PrometheusText p, CacheAdmin cache) {
        if (cache == null) {
            return;
        }
        CacheAdmin.Figures f = cache.figures();
        p.family("paduraksa_cache_requests_total", "counter",
                "Requests on caching routes by what the cache did (hit, stale, miss, coalesced: waited for another fetch, bypass).");
        p.sample("paduraksa_cache_requests_total", f.hits(), "result", "hit");
        p.sample("paduraksa_cache_requests_total", f.staleHits(), "result", "stale");
        p.sample("paduraksa_cache_requests_total", f.misses(), "result", "miss");
        p.sample("paduraksa_cache_requests_total", f.coalesced(), "result", "coalesced");
        p.sample("paduraksa_cache_requests_total", f.bypasses(), "result", "bypass");
        p.family("paduraksa_cache_refreshes_total", "counter",
                "Background refreshes started: a stale response answered while a copy of the request went upstream (stale-while-revalidate).");
        p.sample("paduraksa_cache_refreshes_total", f.refreshes());
        p.family("paduraksa_cache_stores_total", "counter", "Responses stored.");
        p.sample("paduraksa_cache_stores_total", f.stores());
        p.family("paduraksa_cache_evictions_total", "counter", "Entries evicted to stay under cache.max_size.");
        p.sample("paduraksa_cache_evictions_total", f.evictions());
        p.family("paduraksa_cache_purged_total", "counter", "Entries removed by purges on the admin listener.");
        p.sample("paduraksa_cache_purged_total", f.purged());
        p.family("paduraksa_cache_entries", "gauge", "Entries held (responses and the markers of responses that vary).");
        p.sample("paduraksa_cache_entries", f.entries());
        p.family("paduraksa_cache_bytes", "gauge", "Bytes held, as weighed against the bound.");
        p.sample("paduraksa_cache_bytes", f.bytes());
        p.family("paduraksa_cache_max_bytes", "gauge", "The bound, cache.max_size.");
        p.sample("paduraksa_cache_max_bytes", f.maxBytes());
    }

    private static void forwardAuth(PrometheusText p, ForwardAuthMetrics m) {
        List<ForwardAuthMetrics.Policy> ps = m.policies();
        p.family("paduraksa_forward_auth_calls_total", "counter",
                "Forward-auth subrequests by policy and outcome (unavailable: timeout, refused, other status).");
        for (ForwardAuthMetrics.Policy f : ps) {
            for (int o = 0; o < ForwardAuthMetrics.OUTCOMES.length; o++) {
                p.sample("paduraksa_forward_auth_calls_total", f.get(ForwardAuthMetrics.CALLS_AT + o), "policy", f.name,
                        "outcome", ForwardAuthMetrics.OUTCOMES[o]);
            }
        }
        String name = "paduraksa_forward_auth_seconds";
        p.family(name, "histogram", "Time from starting a forward-auth subrequest to its complete answer, per policy.");
        long[] bounds = UpstreamMetrics.BUCKETS_MICROS;
        for (ForwardAuthMetrics.Policy f : ps) {
            long cumulative = 0;
            for (int b = 0; b <= bounds.length; b++) {
                cumulative += f.get(ForwardAuthMetrics.BUCKETS_AT + b);
                String le = b < bounds.length ? PrometheusText.seconds(bounds[b]) : "+Inf";
                p.sample(name + "_bucket", cumulative, "policy", f.name, "le", le);
            }
            p.sample(name + "_sum", f.get(ForwardAuthMetrics.SUM_MICROS) / 1e6, "policy", f.name);
            p.sample(name + "_count", f.get(ForwardAuthMetrics.COUNT), "policy", f.name);
        }
        p.family("paduraksa_forward_auth_coalesced_total", "counter",
                "Requests that waited on another request's forward-auth call for the same cache key.");
        for (ForwardAuthMetrics.Policy f : ps) {
            p.sample("paduraksa_forward_auth_coalesced_total", f.get(ForwardAuthMetrics.COALESCED), "policy", f.name);
        }
        p.family("paduraksa_forward_auth_connections_total", "counter",
                "Forward-auth subrequests by connection: reused (pooled, kept alive) or new.");
        for (ForwardAuthMetrics.Policy f : ps) {
            p.sample("paduraksa_forward_auth_connections_total", f.get(ForwardAuthMetrics.REUSED), "policy", f.name, "connection", "reused");
            p.sample("paduraksa_forward_auth_connections_total", f.get(ForwardAuthMetrics.CONNECTED), "policy", f.name, "connection", "new");
        }
    }

    private static void gauges(PrometheusText p, UpstreamMetrics u) {
        List<DestinationGauges> states = new ArrayList<>();
        for (DestinationGauges d : DestinationGauges.collect(u)) {
            if (d.destination() != null) {
                states.add(d);
            }
        }
        p.family("paduraksa_upstream_healthy", "gauge", "1 when the destination takes requests, 0 when it is marked down.");
        for (DestinationGauges d : states) {
            p.sample("paduraksa_upstream_healthy", d.healthy() ? 1 : 0, "cluster", d.cluster(), "destination", d.destination());
        }
        p.family("paduraksa_upstream_in_flight", "gauge", "Requests waiting for or reading a response from the destination.");
        for (DestinationGauges d : states) {
            p.sample("paduraksa_upstream_in_flight", d.inFlight(), "cluster", d.cluster(), "destination", d.destination());
        }
        p.family("paduraksa_upstream_connections", "gauge", "Pooled upstream connections, by state (open includes idle).");
        for (DestinationGauges d : states) {
            p.sample("paduraksa_upstream_connections", d.open(), "cluster", d.cluster(), "destination", d.destination(), "state", "open");
            p.sample("paduraksa_upstream_connections", d.idle(), "cluster", d.cluster(), "destination", d.destination(), "state", "idle");
        }
    }

    private static String[] labels(UpstreamMetrics.Destination d) {
        return new String[] {"cluster", d.cluster(), "destination", d.destination()};
    }

    private static String[] with(UpstreamMetrics.Destination d, String name, String value) {
        return new String[] {"cluster", d.cluster(), "destination", d.destination(), name, value};
    }

    private static void jvm(PrometheusText p) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        p.family("paduraksa_jvm_memory_used_bytes", "gauge", "JVM memory in use, by area.")
                .sample("paduraksa_jvm_memory_used_bytes", memory.getHeapMemoryUsage().getUsed(), "area", "heap")
                .sample("paduraksa_jvm_memory_used_bytes", memory.getNonHeapMemoryUsage().getUsed(), "area", "nonheap");
        p.family("paduraksa_jvm_direct_memory_used_bytes", "gauge",
                "Direct memory in use: Netty's pooled allocator, Netty's own count (when it tracks it), the JDK's buffer pool.");
        p.sample("paduraksa_jvm_direct_memory_used_bytes", PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory(), "source", "netty_pooled");
        long netty = PlatformDependent.usedDirectMemory();
        if (netty >= 0) {
            p.sample("paduraksa_jvm_direct_memory_used_bytes", netty, "source", "netty");
        }
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(pool.getName())) {
                p.sample("paduraksa_jvm_direct_memory_used_bytes", pool.getMemoryUsed(), "source", "jdk_buffer_pool");
            }
        }
        Map<String, long[]> gcs = new LinkedHashMap<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.put(gc.getName(), new long[] {gc.getCollectionCount(), gc.getCollectionTime()});
        }
        p.family("paduraksa_jvm_gc_collections_total", "counter", "Garbage collections, by collector.");
        for (Map.Entry<String, long[]> e : gcs.entrySet()) {
            p.sample("paduraksa_jvm_gc_collections_total", Math.max(0, e.getValue()[0]), "gc", e.getKey());
        }
        p.family("paduraksa_jvm_gc_seconds_total", "counter", "Time spent in garbage collection, by collector.");
        for (Map.Entry<String, long[]> e : gcs.entrySet()) {
            p.sample("paduraksa_jvm_gc_seconds_total", Math.max(0, e.getValue()[1]) / 1000.0, "gc", e.getKey());
        }
        p.family("paduraksa_jvm_allocated_bytes_total", "counter", "Bytes allocated by all JVM threads since start.")
                .sample("paduraksa_jvm_allocated_bytes_total", THREADS.getTotalThreadAllocatedBytes());
    }
}
