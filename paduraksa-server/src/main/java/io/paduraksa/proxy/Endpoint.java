package io.paduraksa.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.paduraksa.proxy.health.ResolvedAddress;
import io.paduraksa.snapshot.UpstreamCluster;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import javax.net.ssl.SSLException;

/**
 * One destination of a cluster as the forwarder connects to it: its current address (host names
 * re-resolved off the event loops), its TLS client context, and one {@link ConnectionPool} per event
 * loop, opened by the {@link ConnectionPool.Factory} the forwarder was given (the protocol packages'
 * pools: {@code proxy.http1.Http1UpstreamPool}, {@code proxy.http2.Http2UpstreamPool}). A pool gets
 * from it what it needs to connect, and no more: {@link #bootstrap}, {@link #address},
 * {@link #newSslHandler}, {@link #limits} and {@link #describe}. Survives a reload that leaves the
 * cluster's connection settings unchanged, so its pools do. {@link #pool} runs per request: a scan
 * of a tiny array, no lock, no allocation.
 */
public final class Endpoint implements AutoCloseable {
    private final UpstreamCluster cluster;
    private final UpstreamCluster.Destination destination;
    private final Class<? extends SocketChannel> channelClass;
    private final ResolvedAddress address;
    /** For TLS destinations: offers h2 and http/1.1 by ALPN on an h2 cluster, no ALPN on an HTTP/1.1 one; else null. */
    private final SslContext sslContext;
    private final String sni;
    private final ConnectionPool.Limits limits;
    private final ConnectionPool.Factory pools;
    private volatile LoopPool[] loopPools = new LoopPool[0];

    private record LoopPool(EventLoop loop, ConnectionPool pool) {
    }

    Endpoint(UpstreamCluster cluster, UpstreamCluster.Destination destination, Class<? extends SocketChannel> channelClass,
             ScheduledExecutorService resolver, ConnectionPool.Factory pools) throws SSLException {
        this.cluster = cluster;
        this.pools = pools;
        this.destination = destination;
        this.channelClass = channelClass;
        this.address = new ResolvedAddress(destination.host(), destination.port(), cluster.resolveEvery(), resolver);
        this.sslContext = destination.tls()
                ? clientContext(cluster.tls(), cluster.protocol() == UpstreamCluster.Protocol.H2) : null;
        String configured = cluster.tls().sni();
        this.sni = configured != null ? configured : destination.ipLiteral() ? null : destination.host();
        this.limits = ConnectionPool.Limits.of(cluster);
    }

    /**
     * A client context for {@code tls}. With {@code alpnH2} it offers h2 and http/1.1: the upstream's
     * choice is checked after the handshake, so that an upstream without h2 fails with a clear
     * message instead of a handshake alert.
     */
    static SslContext clientContext(UpstreamCluster.Tls tls, boolean alpnH2) throws SSLException {
        SslContextBuilder b = SslContextBuilder.forClient();
        if (alpnH2) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1));
        }
        if (!tls.verify()) {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
        } else {
            if (tls.caFile() != null) {
                b.trustManager(tls.caFile().toFile());
            }
            b.endpointIdentificationAlgorithm("HTTPS");
        }
        return b.build();
    }

    /** The protocol the cluster speaks to its destinations: which pool the factory opens. */
    public UpstreamCluster.Protocol protocol() {
        return cluster.protocol();
    }

    Class<? extends SocketChannel> channelClass() {
        return channelClass;
    }

    /** The destination's current address (re-resolved off the event loops). */
    public InetSocketAddress address() {
        return address.current();
    }

    /** The destination's address holder, for the active health checks (which read it per probe). */
    ResolvedAddress resolvedAddress() {
        return address;
    }

    /** The TLS client context (ALPN h2 for h2 clusters), or null for cleartext destinations; the health checks share it. */
    SslContext sslContext() {
        return sslContext;
    }

    /** The SNI name TLS connections send: the configured one, else the destination's host name (none for an IP literal). */
    String sni() {
        return sni;
    }

    /** A TLS handler for a new connection (with the SNI name, ALPN h2 for h2 clusters), or null for cleartext destinations. */
    public SslHandler newSslHandler(ByteBufAllocator alloc) {
        if (sslContext == null) {
            return null;
        }
        return sni == null ? sslContext.newHandler(alloc) : sslContext.newHandler(alloc, sni, destination.port());
    }

    /** The pools' limits and timeouts, from the cluster's settings. */
    public ConnectionPool.Limits limits() {
        return limits;
    }

    /** The destination's URL and cluster, for log lines. */
    public String describe() {
        return destination.url() + " (cluster '" + cluster.name() + "')";
    }

    /**
     * A bootstrap for this destination's connections on {@code loop}: the server's transport and
     * pooled allocator, no Nagle, the cluster's connect timeout. The pool adds its handler.
     */
    public Bootstrap bootstrap(EventLoop loop) {
        return new Bootstrap()
                .group(loop)
                .channel(channelClass)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, cluster.timeouts().connect().toMillis()));
    }

    /** This loop's pool, created on first use. */
    ConnectionPool pool(EventLoop loop) {
        LoopPool[] p = loopPools;
        for (int i = 0; i < p.length; i++) {
            if (p[i].loop == loop) {
                return p[i].pool;
            }
        }
        return addPool(loop);
    }

    private synchronized ConnectionPool addPool(EventLoop loop) {
        LoopPool[] p = loopPools;
        for (LoopPool lp : p) {
            if (lp.loop == loop) {
                return lp.pool;
            }
        }
        LoopPool[] grown = Arrays.copyOf(p, p.length + 1);
        ConnectionPool pool = pools.open(this, loop);
        grown[p.length] = new LoopPool(loop, pool);
        loopPools = grown;
        return grown[p.length].pool;
    }

    /** Open and idle connections over all loops (metrics; read racily). */
    int[] connectionCounts() {
        int open = 0;
        int idle = 0;
        for (LoopPool lp : loopPools) {
            open += lp.pool.openConnections();
            idle += lp.pool.idleConnections();
        }
        return new int[] {open, idle};
    }

    @Override
    public synchronized void close() {
        for (LoopPool lp : loopPools) {
            lp.pool.close();
        }
        address.close();
    }
}
