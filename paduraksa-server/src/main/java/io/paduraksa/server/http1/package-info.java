/**
 * Step: protocol decoding for HTTP/1.1 (RFC 9112), between the connection stage and the gate.
 *
 * <p>Thread: the connection's event loop. {@link io.paduraksa.server.http1.Http1RequestDecoder}
 * turns inbound bytes into one recycled {@link io.paduraksa.server.http1.Http1RequestHead} per
 * request (positions into a retained slice of the inbound bytes, never Strings), body content as
 * retained {@link io.netty.buffer.ByteBuf} slices, {@link io.paduraksa.server.http1.Http1RequestEnd}
 * after a body, or one {@link io.paduraksa.http1.Http1Error} after which the
 * connection must be answered and closed. In steady state it allocates nothing per request
 * ({@code Http1RequestDecoderAllocationTest}); the gate reads the head through
 * {@link io.paduraksa.http1.AsciiView} (package {@code http1}, shared with the upstream side), a re-pointable {@code CharSequence}.
 *
 * <p>{@link io.paduraksa.server.http1.Http1GateHandler} is the glue to the request cycle, one per
 * connection: the connection's life is one phase it alone holds (from {@code IDLE} through the gate,
 * a policy's wait, forwarding, responding or a tunnel, to {@code LINGERING} and {@code CLOSING}),
 * changed only in named transition methods; {@code Http1Exchange}, the forwarder's side of a
 * request, asks it instead of keeping a lifecycle of its own.
 *
 * <p>Choices where RFC 9112 leaves room, all on the strict side (a proxy must never read a request
 * differently from the server behind it): bare LF, obs-fold, whitespace before a colon, a second
 * Content-Length even with an equal value, a second Transfer-Encoding or Host line, Transfer-Encoding
 * other than a lone {@code chunked}, and Transfer-Encoding in HTTP/1.0 are all rejected; after an
 * error nothing more is parsed. Chunk extensions are skipped and trailers dropped after validation.
 * {@code Http1RequestDecoderDifferentialTest} lists every case where Netty's decoder accepts what
 * this one refuses, with the reason.
 */
package io.paduraksa.server.http1;
