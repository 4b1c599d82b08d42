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
import io.netty.channel.unix.UnixChannel;
import io.netty.channel.unix.UnixChannelOption;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/3 side of one TLS listener: UDP sockets on the listener's address and port (the TCP
 * port's number; with port 0 the port the TCP side got), Netty's QUIC server codec over each with
 * the listener's certificates, and {@link Http3ConnectionInitializer} for each connection. On
 * epoll one socket per event loop shares the port ({@code SO_REUSEPORT}: the kernel hashes each
 * client's address and port to one socket, so a connection's packets keep reaching the codec that
 * knows it; a client that changes address mid-connection, QUIC migration, lands on another socket
 * and its connection is lost); elsewhere one socket. Every QUIC connection of a socket, its streams
 * and their upstream connections run on that socket's event loop. Made and bound at start; {@link #close} after the drain (closing the socket ends
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
    private final List<Channel> channels = new ArrayList<>();
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
                                     AddressMatcher trustedProxies, CountryLookup countries, ChannelGroup open, int sockets)
            throws BindException {
        QuicSslContext ssl = QuicTls.of(tls);
        Http3Limits h3 = Http3Limits.of(http3, limits);
        Http3ConnectionInitializer initializer = new Http3ConnectionInitializer(services, h3, trustedProxies, countries, open);
        Http3Listener listener = new Http3Listener(ssl, initializer);
        // The native transports' sockets (epoll, io_uring) take SO_REUSEPORT (one socket per event loop); NIO's do not.
        boolean reusePort = sockets > 1 && UnixChannel.class.isAssignableFrom(channelClass);
        int n = reusePort ? sockets : 1;
        for (int i = 0; i < n; i++) {
            Bootstrap b = new Bootstrap().group(group).channel(channelClass)
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .handler(listener.codec(h3, initializer)); // a codec per socket: it holds the socket's connections
            if (reusePort) {
                b.option(UnixChannelOption.SO_REUSEPORT, true);
            }
            ChannelFuture f = b.bind(address).awaitUninterruptibly();
            if (!f.isSuccess()) {
                listener.close();
                BindException e = new BindException("HTTP/3 (UDP) cannot bind " + address + ": " + f.cause().getMessage());
                e.initCause(f.cause());
                throw e;
            }
            listener.channels.add(f.channel());
        }
        return listener;
    }

    private ChannelHandler codec(Http3Limits h3, Http3ConnectionInitializer initializer) {
        return Http3.newQuicServerCodecBuilder()
                .sslContext(ssl)
                .sslEngineProvider(this::newEngine)
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
        return (InetSocketAddress) channels.get(0).localAddress();
    }

    /** UDP sockets bound (one per event loop on epoll and io_uring). */
    public int sockets() {
        return channels.size();
    }

    /** Open QUIC connections. */
    public int openConnections() {
        return connections.openConnections();
    }

    /** Closes the UDP sockets: every QUIC connection left ends with them. */
    public void close() {
        for (Channel ch : channels) {
            ch.close().syncUninterruptibly();
        }
    }
}
