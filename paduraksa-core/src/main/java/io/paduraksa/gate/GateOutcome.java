package io.paduraksa.gate;

/** What the protocol handler does after {@link Gate#run}; details are in the {@link RequestState}. */
public enum GateOutcome {
    /** Write {@link RequestState#response()} (a route answer, a redirect, a denial, a 400/404/421). */
    RESPOND,
    /** Write {@link RequestState#response()}, a challenge page; counted apart from denials. */
    CHALLENGE,
    /** Close the connection (HTTP/1.1) or reset the stream (HTTP/2) without an answer. */
    DROP,
    /** Hand the request to the forwarder for {@link RequestState#cluster()}. */
    FORWARD,
    /**
     * A policy needs I/O before it can decide ({@link RequestState#asyncPolicy()}); the handler
     * continues in its slow path and resumes the chain after that policy.
     */
    NEEDS_ASYNC
}
