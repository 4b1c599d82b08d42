package io.paduraksa.snapshot;

import io.paduraksa.policy.RequestPolicy;

/** One route of a host: its prefix (as configured), position, own policies and action. */
public final class CompiledRoute {
    private final String prefix;
    private final int index;
    private final RequestPolicy[] policies;
    private final CompiledAction action;

    public CompiledRoute(String prefix, int index, RequestPolicy[] policies, CompiledAction action) {
        this.prefix = prefix;
        this.index = index;
        this.policies = policies;
        this.action = action;
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

    @Override
    public String toString() {
        return "routes[" + index + "] " + prefix;
    }
}
