/**
 * Step: forward, HTTP/2 upstreams (cluster {@code protocol: h2c} with prior knowledge, {@code h2}
 * over TLS with ALPN), on our own HTTP/2 codec ({@code io.paduraksa.http2}). Per event loop and
 * destination a few client connections ({@link io.paduraksa.proxy.http2.Http2UpstreamPool}), each an
 * {@link io.paduraksa.proxy.http2.Http2UpstreamHandler} driving an {@code Http2Connection} in the
 * client role; requests are multiplexed as streams ({@link io.paduraksa.proxy.http2.Http2UpstreamStream},
 * recycled per connection) up to the peer's SETTINGS_MAX_CONCURRENT_STREAMS, then another
 * connection opens, up to {@code pool.max_connections}. HTTP/2 flow control is the response's
 * back-pressure: DATA is credited back as the client takes it, not while it cannot.
 *
 * <p>The request head is HPACK-encoded as the client side offers its fields into the connection's
 * {@link io.paduraksa.proxy.http2.Http2RequestBlock} (an HTTP/1.1 client's field lines and an HTTP/2
 * client's decoded fields by their bytes, the forwarding fields from parts), then framed by the
 * codec. The response head and trailers are decoded into {@link io.paduraksa.proxy.http2.Http2ResponseFields}
 * (bytes and positions, read through re-pointed views), bounded by our SETTINGS_MAX_HEADER_LIST_SIZE.
 *
 * <p>Thread: everything runs on the event loop of the client connection that forwards, which owns
 * the pool and its connections. Per request nothing is allocated once warm
 * ({@code Http2UpstreamAllocationIT}: h2c in, h2c out, under 1 B per request on the server's loops,
 * against 2.3 KB per request on Netty's {@code Http2ConnectionHandler}).
 */
package io.paduraksa.proxy.http2;
