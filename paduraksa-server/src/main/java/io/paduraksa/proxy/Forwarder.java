package io.paduraksa.proxy;

import io.paduraksa.gate.RequestState;

/**
 * The hand-off point from the gate to the upstream side: a protocol handler calls it, on the
 * client connection's event loop, for every request whose gate outcome is FORWARD. The forwarder
 * owns the request from then on: it streams the body in through {@link ForwardExchange} and the
 * response back out through it, and ends the exchange exactly once.
 */
public interface Forwarder {

    /**
     * Starts forwarding. {@code state} holds the cluster, the normalised path, the query and the
     * client IP, and stays valid until {@link ForwardExchange#end} is called.
     */
    void forward(RequestState state, ForwardExchange exchange);
}
