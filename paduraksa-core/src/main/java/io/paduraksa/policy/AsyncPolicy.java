package io.paduraksa.policy;

/**
 * A policy that may need I/O before it decides (forward-auth on a cache miss). Its
 * {@link #evaluate} stays synchronous and allocation-free; when it cannot decide from what it
 * holds it returns {@link PolicyDecision#NEEDS_ASYNC}, and the server starts the policy's I/O
 * through the starter registered for the policy's kind (core has no channels), off the common
 * path. The I/O ends in exactly one {@link Decided#decided} call on the request's event loop; the
 * gate then resumes the chain after this policy.
 */
public interface AsyncPolicy extends RequestPolicy {

    /** Receives an asynchronous policy's decision, on the event loop of the request that asked, once. */
    interface Decided {
        /**
         * @param token what the caller passed when the I/O started (its stream, for example)
         * @param requestId the request's id at the start: the caller compares it with its state's to
         *                  see whether the request is still the one that asked
         */
        void decided(Object token, long requestId, PolicyDecision decision);
    }
}
