/**
 * Step: forward, the upstream side. {@link io.paduraksa.proxy.UpstreamForwarder} keeps a
 * {@link io.paduraksa.proxy.ClusterRuntime} per cluster of the snapshot; a request takes a
 * destination (balancing, health), an upstream connection from the pool of its own event loop
 * ({@link io.paduraksa.proxy.ConnectionPool}) and runs as one {@link io.paduraksa.proxy.ForwardCall}:
 * request head written by the upstream protocol from the fields the client side offers
 * ({@link io.paduraksa.proxy.FieldSink}) and the forwarding fields
 * ({@link io.paduraksa.proxy.ForwardingFields}, {@link io.paduraksa.proxy.TraceParent}), bodies
 * streamed both ways with back-pressure.
 *
 * <p>The pools are the protocol packages' ({@code proxy.http1}, {@code proxy.http2}): they extend
 * {@link io.paduraksa.proxy.PerLoopPool}, are opened through the
 * {@link io.paduraksa.proxy.ConnectionPool.Factory} the server passes in, get what they need to
 * connect from their {@link io.paduraksa.proxy.Endpoint}, and report to the call as an
 * {@link io.paduraksa.proxy.UpstreamCall} through their {@link io.paduraksa.proxy.UpstreamStream}s;
 * so this package imports neither of them (they import it). The client side reaches it through
 * {@link io.paduraksa.proxy.Forwarder} and offers itself as a {@link io.paduraksa.proxy.ForwardExchange};
 * this package imports nothing from the client side (LayeringTest).
 *
 * <p>Thread: the client connection's event loop, per forwarded request (no locks, no hand-off);
 * health checks and re-resolution on their own timers and threads.
 */
package io.paduraksa.proxy;
