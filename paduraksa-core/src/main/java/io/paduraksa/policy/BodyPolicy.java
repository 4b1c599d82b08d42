package io.paduraksa.policy;

/**
 * A policy that reads the request body before it decides (the {@code attacks} policy's second
 * phase). Its {@link #evaluate} judges the head; when the head leaves the verdict open and the
 * request has a body the policy inspects, it returns {@link PolicyDecision#NEEDS_ASYNC}, and the
 * request cycle calls {@link #startBody} at once, on the same thread, then hands the scan every body
 * chunk as it arrives while the protocol holds the body. The scan's first non-null answer is the
 * decision; the gate then resumes the chain after this policy (or answers with the denial).
 */
public interface BodyPolicy extends AsyncPolicy {

    /**
     * Starts the body phase of the request whose {@link #evaluate} just returned NEEDS_ASYNC on this
     * thread (it carries over what the head scored). Per request on the event loop; recycled, 0 B
     * after warm-up.
     *
     * @param holdLimit the most body bytes the protocol can hold before the client must wait for us
     *                  (an HTTP/2 stream's flow-control window); reaching it counts as oversize
     */
    BodyScan startBody(PolicyInput request, long holdLimit);

    /** How long the body phase may wait for the body's end, in nanoseconds (then {@link BodyScan#expired}). */
    long bodyTimeoutNanos();
}
