package io.paduraksa.snapshot;

import io.paduraksa.respond.PrecomputedResponse;

/** A route's (or the default) action, compiled: answer with a precomputed response, drop, or forward. */
public final class CompiledAction {

    /** The kinds of action. */
    public enum Kind { RESPOND, DROP, FORWARD }

    private final Kind kind;
    private final PrecomputedResponse response;
    private final UpstreamCluster cluster;

    private CompiledAction(Kind kind, PrecomputedResponse response, UpstreamCluster cluster) {
        this.kind = kind;
        this.response = response;
        this.cluster = cluster;
    }

    public static CompiledAction respond(PrecomputedResponse response) {
        return new CompiledAction(Kind.RESPOND, response, null);
    }

    public static CompiledAction drop() {
        return new CompiledAction(Kind.DROP, null, null);
    }

    public static CompiledAction forward(UpstreamCluster cluster) {
        return new CompiledAction(Kind.FORWARD, null, cluster);
    }

    public Kind kind() {
        return kind;
    }

    /** The answer for RESPOND, else null. */
    public PrecomputedResponse response() {
        return response;
    }

    /** The cluster for FORWARD, else null. */
    public UpstreamCluster cluster() {
        return cluster;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case RESPOND -> "respond " + response.status();
            case DROP -> "drop";
            case FORWARD -> "forward to cluster '" + cluster.name() + "'";
        };
    }
}
