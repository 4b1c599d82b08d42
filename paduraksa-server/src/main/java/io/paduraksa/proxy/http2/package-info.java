/**
 * Step: forward, HTTP/2 upstreams (cluster {@code protocol: h2c} with prior knowledge, {@code h2}
 * over TLS with ALPN). Per event loop and destination a few client connections
 * ({@link io.paduraksa.proxy.http2.Http2UpstreamPool}), each a Netty {@code Http2ConnectionHandler}
 * with a frame listener and no child channels ({@link io.paduraksa.proxy.http2.Http2UpstreamHandler});
 * requests are multiplexed as streams ({@link io.paduraksa.proxy.http2.Http2UpstreamStream}) up to the
 * peer's SETTINGS_MAX_CONCURRENT_STREAMS, then another connection opens, up to
 * {@code pool.max_connections}. HTTP/2 flow control is the response's back-pressure.
 *
 * <p>Thread: everything runs on the event loop of the client connection that forwards, which owns
 * the pool and its connections. Per request this path allocates Netty's stream and header objects
 * and one stream object of ours; the HTTP/1.1 upstream path is the allocation-free one.
 */
package io.paduraksa.proxy.http2;
