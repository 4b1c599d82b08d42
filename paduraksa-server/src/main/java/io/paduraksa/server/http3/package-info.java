/**
 * HTTP/3 over QUIC (RFC 9114, RFC 9000) on TLS listeners that list {@code h3}: per-protocol glue
 * between Netty's {@code netty-codec-http3} / {@code netty-codec-native-quic} (quiche) and the
 * listener's {@link io.paduraksa.server.cycle.RequestCycle}. {@link io.paduraksa.server.http3.Http3Listener}
 * binds the UDP side of the listener's port with its certificates; each QUIC connection gets
 * {@link io.paduraksa.server.http3.Http3ConnectionInitializer}'s handlers, each request stream one
 * {@link io.paduraksa.server.http3.Http3Exchange}, the cycle's {@code ProtocolExchange} and the
 * forwarder's {@code ForwardExchange}. Runs on the UDP channel's event loop (every QUIC connection
 * of one socket and its streams live on it, and so do their upstream connections); per request.
 */
package io.paduraksa.server.http3;
