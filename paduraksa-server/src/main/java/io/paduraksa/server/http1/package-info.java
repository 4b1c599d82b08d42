/**
 * Step: protocol decoding for HTTP/1.1 (RFC 9112), between the connection stage and the gate.
 *
 * <p>Thread: the connection's event loop. {@link io.paduraksa.server.http1.Http1RequestDecoder}
 * turns inbound bytes into one recycled {@link io.paduraksa.server.http1.Http1RequestHead} per
 * request (positions into a retained slice of the inbound bytes, never Strings), body content as
 * retained {@link io.netty.buffer.ByteBuf} slices, {@link io.paduraksa.server.http1.Http1RequestEnd}
 * after a body, or one {@link io.paduraksa.server.http1.Http1DecodeError} after which the
 * connection must be answered and closed. In steady state it allocates nothing per request.
 */
package io.paduraksa.server.http1;
