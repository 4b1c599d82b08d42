package io.paduraksa.proxy;

import io.paduraksa.respond.PrecomputedResponse;

/**
 * What a protocol handler offers the forwarder for one request: a way to answer (for upstream
 * failures) and to end the request. The streaming of request and response bodies is added with the
 * forwarder itself.
 */
public interface ForwardExchange {

    /** Answers the client with a precomputed response (502, 503, 504 ...) and ends the request. */
    void answer(PrecomputedResponse response);

    /** True when the client is still connected and the request has not ended. */
    boolean isOpen();
}
