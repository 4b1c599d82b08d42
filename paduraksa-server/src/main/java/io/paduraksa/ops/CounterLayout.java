package io.paduraksa.ops;

import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * How one snapshot's hosts, routes and policies map to counter slots: host {@code i} is slot
 * {@code i} (slot {@link #unknownHost()} counts requests for no configured host), route {@code r}
 * of host {@code h} is slot {@code routeBase[h] + r}, policies are numbered in the order of
 * {@code policies:} with one last slot for a policy the snapshot does not name. Built once per
 * snapshot (off the request path, or once per event loop after a reload); {@link #hostSlot},
 * {@link #routeSlot} and {@link #policySlot} run per request and allocate nothing.
 *
 * <p>Slots are labelled by name: a host by its first name, a route by that name and its prefix,
 * a policy by its name. {@link #translation} maps another layout's slots onto this one by those
 * names, so that counters survive a reload that reorders, adds or removes entries.
 */
final class CounterLayout {
    /** The snapshot's generation (not the snapshot: an idle thread's counts must not keep a retired config reachable). */
    final long generation;
    final String[] hostNames;
    final String[] routeHosts;
    final String[] routePrefixes;
    final String[] policyNames;
    private final int[] routeBase;
    private final IdentityHashMap<RequestPolicy, Integer> policies;

    private CounterLayout(Snapshot snapshot) {
        this.generation = snapshot.generation();
        List<CompiledHost> hosts = snapshot.hostList();
        hostNames = new String[hosts.size() + 1];
        routeBase = new int[hosts.size()];
        List<String> rh = new ArrayList<>();
        List<String> rp = new ArrayList<>();
        for (int h = 0; h < hosts.size(); h++) {
            CompiledHost host = hosts.get(h);
            hostNames[h] = host.names().isEmpty() ? "hosts[" + h + "]" : host.names().get(0);
            routeBase[h] = rh.size();
            for (int r = 0; r < host.routes().size(); r++) {
                rh.add(hostNames[h]);
                rp.add(host.routes().value(r).prefix());
            }
        }
        hostNames[hosts.size()] = UNKNOWN;
        routeHosts = rh.toArray(new String[0]);
        routePrefixes = rp.toArray(new String[0]);
        policies = new IdentityHashMap<>();
        policyNames = new String[snapshot.policies().size() + 1];
        int i = 0;
        for (Map.Entry<String, RequestPolicy> e : snapshot.policies().entrySet()) {
            policyNames[i] = e.getKey();
            policies.put(e.getValue(), i++);
        }
        policyNames[i] = UNKNOWN;
    }

    /** The label of the unknown-host slot and of a policy the snapshot does not list. */
    static final String UNKNOWN = "(unknown)";

    static CounterLayout of(Snapshot snapshot) {
        return new CounterLayout(snapshot);
    }

    int hostSlots() {
        return hostNames.length;
    }

    int routeSlots() {
        return routePrefixes.length;
    }

    int policySlots() {
        return policyNames.length;
    }

    /** The slot of host index {@code hostIndex} (-1 or out of range: the unknown-host slot). */
    int hostSlot(int hostIndex) {
        return hostIndex < 0 || hostIndex >= routeBase.length ? hostNames.length - 1 : hostIndex;
    }

    /** The slot of a route, or -1 when there is none. */
    int routeSlot(int hostIndex, int routeIndex) {
        if (hostIndex < 0 || hostIndex >= routeBase.length || routeIndex < 0) {
            return -1;
        }
        int slot = routeBase[hostIndex] + routeIndex;
        int end = hostIndex + 1 < routeBase.length ? routeBase[hostIndex + 1] : routePrefixes.length;
        return slot < end ? slot : -1;
    }

    /** The slot of a policy (an identity lookup: no boxing, the map's Integer values are stored). */
    int policySlot(RequestPolicy policy) {
        Integer slot = policies.get(policy);
        return slot == null ? policyNames.length - 1 : slot;
    }

    /**
     * Slot maps from {@code from}'s slots to this layout's by name: {@code [0]} hosts, {@code [1]}
     * routes, {@code [2]} policies; -1 where the name is gone. Compile time: allocates.
     */
    int[][] translation(CounterLayout from) {
        return new int[][] {
            map(from.hostNames, null, hostNames, null),
            map(from.routeHosts, from.routePrefixes, routeHosts, routePrefixes),
            map(from.policyNames, null, policyNames, null)};
    }

    private static int[] map(String[] fromA, String[] fromB, String[] toA, String[] toB) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < toA.length; i++) {
            index.putIfAbsent(key(toA, toB, i), i);
        }
        int[] m = new int[fromA.length];
        for (int i = 0; i < fromA.length; i++) {
            Integer to = index.get(key(fromA, fromB, i));
            m[i] = to == null ? -1 : to;
        }
        return m;
    }

    private static String key(String[] a, String[] b, int i) {
        return b == null ? a[i] : a[i] + '\n' + b[i];
    }
}
