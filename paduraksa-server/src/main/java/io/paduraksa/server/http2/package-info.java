/**
 * HTTP/2 protocol step (h2c prior knowledge, h2 after ALPN), on the connection's event loop: Netty's
 * {@code Http2ConnectionHandler} decodes frames and HPACK, {@link io.paduraksa.server.http2.Http2GateHandler}
 * runs the gate per stream on a recycled exchange and writes precomputed answers through a reused,
 * read-only header view. What Netty itself allocates per stream (stream, flow-control state,
 * promises, decoded headers) is listed in {@code Http2AnswerAllocationIT}.
 *
 * <p>Each stream's life is one phase held by its {@code Http2Exchange} (from {@code GATE} through a
 * policy's wait, forwarding and responding to {@code DONE}, when it goes back to the pool), changed
 * only in named transitions; the handler's maps index the streams whose frames it routes.
 */
package io.paduraksa.server.http2;
