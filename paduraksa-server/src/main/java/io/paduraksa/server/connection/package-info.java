/**
 * Step: connection set-up, once per accepted connection, before any request. In pipeline order:
 * {@link io.paduraksa.server.connection.AcceptFilterHandler} (origin lock-down: refuse peers outside a set
 * before a byte is read), {@link io.paduraksa.server.connection.ProxyProtocolHandler} (PROXY protocol v1/v2
 * from trusted senders), {@link io.paduraksa.server.connection.ClientInfoHandler} (the immutable
 * {@link io.paduraksa.gate.ClientInfo} in a channel attribute), then TLS with SNI and ALPN from
 * {@link io.paduraksa.server.connection.TlsContexts}. Each handler removes itself when done, so none of
 * them is on the per-request path.
 *
 * <p>Thread: the connection's event loop; {@code TlsContexts} are built at start and on reload, off the
 * event loops. Address checks go through {@link io.paduraksa.server.connection.AddressMatcher} (two longs,
 * IPv4 mapped, as {@link io.paduraksa.server.connection.ClientAddresses} makes them).
 */
package io.paduraksa.server.connection;
