package io.paduraksa.snapshot;

import io.paduraksa.policy.RequestPolicy;

/** One route of a host: its prefix (as configured), position, own policies and action. */
public final class CompiledRoute {
    private final String prefix;
    private final int index;
    private final RequestPolicy[] policies;
    private final CompiledAction action;
    private final RouteCache cache;

    public CompiledRoute(String prefix, int index, RequestPolicy[] policies, CompiledAction action, RouteCache cache) {
        this.prefix = prefix;
        this.index = index;
        this.policies = policies;
        this.action = action;
        this.cache = cache;
    }

    public String prefix() {
        return prefix;
    }

    /** Position in the host's route list (0-based, as in {@code hosts[i].routes[index]}). */
    public int index() {
        return index;
    }

    /** The route's policies, run after the host's. Do not modify. */
    public RequestPolicy[] policies() {
        return policies;
    }

    public CompiledAction action() {
        return action;
    }

    /** The route's response-cache settings, or null when it does not cache. */
    public RouteCache cache() {
        return cache;
    }

    @Override
    public String toString() {
        return "routes[" + index + "] " + prefix;
    }
}
