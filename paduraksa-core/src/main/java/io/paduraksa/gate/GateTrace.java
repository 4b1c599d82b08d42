package io.paduraksa.gate;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.CompiledRoute;

/**
 * Receives each step's result when a request is explained ({@code paduraksa explain}, debugging).
 * The request path passes null and pays one null check per step.
 */
public interface GateTrace {

    void clientIp(long high, long low, boolean fromHeader);

    /** {@code host} is null when no host entry matched. */
    void host(CharSequence authority, CompiledHost host);

    /** {@code length} is negative (a {@code PathNormalizer} error code) when the path was rejected. */
    void path(byte[] normalised, int length);

    /** {@code route} is null when no route of the host matched. */
    void route(CompiledRoute route);

    void policy(RequestPolicy policy, boolean hostLevel, PolicyDecision decision);

    void outcome(GateOutcome outcome, RequestState state);
}
