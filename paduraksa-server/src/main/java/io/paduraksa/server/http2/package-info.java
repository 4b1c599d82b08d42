/**
 * HTTP/2 protocol step (h2c prior knowledge, h2 after ALPN), on the connection's event loop: Netty's
 * {@code Http2ConnectionHandler} decodes frames and HPACK, {@link io.paduraksa.server.http2.Http2GateHandler}
 * runs the gate per stream on a recycled exchange and writes precomputed answers through a reused,
 * read-only header view. What Netty itself allocates per stream (stream, flow-control state,
 * promises, decoded headers) is listed in {@code Http2AnswerAllocationIT}.
 */
package io.paduraksa.server.http2;
