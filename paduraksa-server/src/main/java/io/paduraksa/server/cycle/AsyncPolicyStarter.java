package io.paduraksa.server.cycle;

import io.netty.channel.Channel;
import io.paduraksa.gate.RequestState;
import io.paduraksa.policy.AsyncPolicy;

/**
 * Starts the I/O of one kind of {@link AsyncPolicy} for a request whose gate returned NEEDS_ASYNC.
 * Registered once at start in {@link AsyncPolicies}, by the policy's class; the {@link RequestCycle}
 * looks it up, so no protocol handler names a policy. Runs on the client connection's event loop
 * (the rare path: may allocate); must call {@code done} exactly once, on that loop.
 *
 * @param <P> the policy kind
 */
@FunctionalInterface
public interface AsyncPolicyStarter<P extends AsyncPolicy> {

    /**
     * @param client the client's connection: the I/O runs on its event loop, with its transport
     * @param state the request (readable now; what the I/O needs later is copied before this returns)
     * @param token handed back to {@code done} unchanged
     */
    void start(Channel client, RequestState state, P policy, AsyncPolicy.Decided done, Object token);
}
