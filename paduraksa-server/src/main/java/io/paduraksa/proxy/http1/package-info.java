/**
 * Step: forward, upstream side, HTTP/1.1 upstreams: {@link io.paduraksa.proxy.http1.Http1UpstreamPool}
 * (keep-alive connections of one destination on one loop), {@link io.paduraksa.proxy.http1.Http1UpstreamHandler}
 * (one request at a time on a pooled connection; reports to the call as a
 * {@link io.paduraksa.proxy.UpstreamCall}), {@link io.paduraksa.proxy.http1.UpstreamRequestHead}
 * (the request head: an HTTP/1.1 client's field lines copied as they came, an HTTP/2 client's fields
 * written with their cookies joined), and the decoder of HTTP/1.x responses (RFC 9112) whose output
 * the forwarder streams back to the client. Beside {@code proxy.http2}, its H2 counterpart; both
 * import {@code proxy}, which imports neither.
 *
 * <p>Thread: the upstream connection's event loop (the same loop as the client connection it serves).
 * {@link io.paduraksa.proxy.http1.Http1ResponseDecoder} turns inbound bytes into one recycled
 * {@link io.paduraksa.proxy.http1.Http1ResponseHead} per head (positions into a retained slice of
 * the inbound bytes, never Strings), body content as retained {@link io.netty.buffer.ByteBuf}
 * slices, {@link io.paduraksa.proxy.http1.Http1ResponseTrailers} when a chunked body carried trailer
 * fields, {@link io.paduraksa.proxy.http1.Http1ResponseEnd} per response, raw bytes after a 101, or
 * one {@link io.paduraksa.http1.Http1Error} after which the connection must be closed.
 * In steady state it allocates nothing per response ({@code Http1ResponseDecoderAllocationTest}),
 * nor does a pool handing out and taking back connections or a request written and its response
 * handed on over a real connection ({@code Http1UpstreamAllocationTest}).
 *
 * <p>Choices where RFC 9112 leaves room, all on the strict side (an upstream that frames a response
 * ambiguously must not get to desynchronise a pooled connection): bare LF or CR, NUL, obs-fold,
 * whitespace before a colon, Content-Length with Transfer-Encoding, differing Content-Length values,
 * Transfer-Encoding not ending in chunked (RFC 9112 would read that as close-delimited), any
 * Transfer-Encoding in HTTP/1.0, versions other than 1.0 and 1.1, and empty lines before a status
 * line are all errors. Bytes that no request asked for are an error, never the next response.
 */
package io.paduraksa.proxy.http1;
