package io.paduraksa.policy;

import io.netty.buffer.ByteBuf;

/**
 * One request's body phase of a {@link BodyPolicy}: fed the body's chunks in order on the request's
 * event loop, it answers {@code null} while it cannot decide yet and a decision once it can (a
 * denial as soon as the score is reached, a verdict at the end, at the size bound or at the time
 * bound). After the first decision, or when the request went away, the cycle calls
 * {@link #release} once; nothing is called after that.
 */
public interface BodyScan {

    /** Inspects the readable bytes of {@code chunk} (not consumed, not retained); null to go on. */
    PolicyDecision feed(ByteBuf chunk);

    /** The body ended; never null. */
    PolicyDecision end();

    /** The body did not end within {@link BodyPolicy#bodyTimeoutNanos}; never null. */
    PolicyDecision expired();

    /** Returns the scan to its pool. */
    void release();
}
