package io.paduraksa.server.http3;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslEngine;
import io.paduraksa.config.Http3Spec;
import io.paduraksa.config.LimitsSpec;
import io.paduraksa.server.connection.AddressMatcher;
import io.paduraksa.server.connection.CountryLookup;
import io.paduraksa.server.connection.TlsContexts;
import io.paduraksa.server.cycle.ListenerServices;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/3 side of one TLS listener: a UDP socket on the listener's address and port (the TCP
 * port's number; with port 0 the port the TCP side got), Netty's QUIC server codec over it with
 * the listener's certificates, and {@link Http3ConnectionInitializer} for each connection. Every
 * QUIC connection of the socket, its streams and their upstream connections run on the socket's
 * event loop. Made and bound at start; {@link #close} after the drain (closing the socket ends
 * every QUIC connection at once, so a stop keeps it open while connections drain: new connections
 * are turned away meanwhile by {@link Http3DrainHandler}).
 *
 * <p>QUIC transport parameters: {@code max_idle_timeout} from {@code http3.idle_timeout};
 * {@code initial_max_streams_bidi} {@code http3.max_streams}; 3 unidirectional streams (control
 * and the two QPACK streams, RFC 9114 6.2); 1 MiB of data per stream and 16 MiB per connection
 * (flow-control windows: what a client may have in flight towards us, and so the most a stream
 * that is not read holds); no 0-RTT; no Retry (the anti-amplification limit is quiche's).
 */
public final class Http3Listener {
    static final long STREAM_WINDOW = 1024 * 1024;
    static final long CONNECTION_WINDOW = 16 * 1024 * 1024;
    private Channel channel;
    private final Http3ConnectionInitializer connections;
    /** The TLS context new connections get; swapped when a reload re-read the certificates. */
    private volatile QuicSslContext ssl;

    private Http3Listener(QuicSslContext ssl, Http3ConnectionInitializer connections) {
        this.ssl = ssl;
        this.connections = connections;
    }

    /**
     * Binds the UDP side of a listener.
     *
     * @throws BindException when the port cannot be bound (its text names the address)
     */
    public static Http3Listener bind(EventLoopGroup group, Class<? extends DatagramChannel> channelClass, InetSocketAddress address,
                                     TlsContexts tls, Http3Spec http3, LimitsSpec limits, ListenerServices services,
                                     AddressMatcher trustedProxies, CountryLookup countries, ChannelGroup open) throws BindException {
        QuicSslContext ssl = QuicTls.of(tls);
        Http3Limits h3 = Http3Limits.of(http3, limits);
        Http3ConnectionInitializer initializer = new Http3ConnectionInitializer(services, h3, trustedProxies, countries, open);
        Http3Listener listener = new Http3Listener(ssl, initializer);
        ChannelHandler codec = Http3.newQuicServerCodecBuilder()
                .sslContext(ssl)
                .sslEngineProvider(listener::newEngine)
                .maxIdleTimeout(h3.idleTimeoutMillis(), TimeUnit.MILLISECONDS)
                .initialMaxData(CONNECTION_WINDOW)
                .initialMaxStreamDataBidirectionalRemote(STREAM_WINDOW)
                .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
                .initialMaxStreamDataUnidirectional(64 * 1024)
                .initialMaxStreamsBidirectional(h3.maxStreams())
                .initialMaxStreamsUnidirectional(3)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .streamOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(initializer)
                .build();
        ChannelFuture f = new Bootstrap().group(group).channel(channelClass)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(codec)
                .bind(address).awaitUninterruptibly();
        if (!f.isSuccess()) {
            BindException e = new BindException("HTTP/3 (UDP) cannot bind " + address + ": " + f.cause().getMessage());
            e.initCause(f.cause());
            throw e;
        }
        listener.channel = f.channel();
        return listener;
    }

    /** A new connection's TLS engine, from the current context (once per connection). */
    private QuicSslEngine newEngine(QuicChannel ch) {
        return ssl.newEngine(ch.alloc());
    }

    /** A reload re-read the listener's certificates: new QUIC connections get them, as new TCP connections do. */
    public void tls(TlsContexts tls) {
        ssl = QuicTls.of(tls);
    }

    /** The bound UDP address. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Open QUIC connections. */
    public int openConnections() {
        return connections.openConnections();
    }

    /** Closes the UDP socket: every QUIC connection left ends with it. */
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
