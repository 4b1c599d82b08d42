/**
 * Step: forward, HTTP/2 upstreams (cluster {@code protocol: h2c} with prior knowledge, {@code h2}
 * over TLS with ALPN). Per event loop and destination a few client connections
 * ({@link io.paduraksa.proxy.http2.Http2UpstreamPool}), each a Netty {@code Http2ConnectionHandler}
 * with a frame listener and no child channels ({@link io.paduraksa.proxy.http2.Http2UpstreamHandler});
 * requests are multiplexed as streams ({@link io.paduraksa.proxy.http2.Http2UpstreamStream}) up to the
 * peer's SETTINGS_MAX_CONCURRENT_STREAMS, then another connection opens, up to
 * {@code pool.max_connections}. HTTP/2 flow control is the response's back-pressure.
 *
 * <p>The request head is built in the connection's {@link io.paduraksa.proxy.http2.Http2RequestHeaders}
 * (an array-backed header block, reused: HPACK encodes it within {@code writeHeaders}); an HTTP/1.1
 * client's field lines become names and values from the loop's
 * {@link io.paduraksa.proxy.http2.Http2FieldCache} (immutable texts, since HPACK keeps what it
 * indexes), an HTTP/2 client's decoded fields are kept as they are: no field costs an object
 * ({@code Http1ToHttp2FieldsAllocationTest}).
 *
 * <p>Thread: everything runs on the event loop of the client connection that forwards, which owns
 * the pool and its connections. Per request this path still allocates Netty's stream objects, the
 * pseudo-header values and the forwarding fields' values, and one stream object of ours; the
 * HTTP/1.1 upstream path is the allocation-free one.
 */
package io.paduraksa.proxy.http2;
