package io.paduraksa.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslHandler;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.config.LimitsSpec;
import io.paduraksa.config.ListenerSpec;
import io.paduraksa.server.connection.AcceptFilterHandler;
import io.paduraksa.server.connection.AddressMatcher;
import io.paduraksa.net.CountryCodes;
import io.paduraksa.net.CountryDatabase;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.server.connection.CountryLookup;
import io.paduraksa.server.connection.ProxyProtocolHandler;
import io.paduraksa.server.connection.TlsContexts;
import io.paduraksa.server.connection.TlsHandshakeFailures;
import io.paduraksa.ops.Metrics;
import io.paduraksa.server.http1.Http1Deadlines;
import io.paduraksa.server.http1.Http1GateHandler;
import io.paduraksa.server.http1.Http1RequestDecoder;
import io.paduraksa.server.http2.Http2GateHandler;
import io.paduraksa.server.http2.Http2Limits;
import io.paduraksa.server.http3.Http3Listener;
import io.paduraksa.snapshot.SnapshotStore;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Builds each accepted connection's pipeline for one listener: connection limit, origin lock-down,
 * PROXY protocol, ClientInfo, TLS with ALPN, then HTTP/1.1, h2c or h2 with the gate. Runs once per
 * connection; the per-request handlers it installs are the protocol handlers.
 */
final class ListenerInitializer extends ChannelInitializer<Channel> {
    private final int index;
    private final ListenerSpec spec;
    private final LimitsSpec limits;
    private final ListenerServices context;
    private final AddressMatcher trustedProxies;
    private final AddressMatcher proxySenders;
    private final CountryLookup countries;
    private final AcceptFilterHandler lockDown;
    private final AtomicReference<TlsContexts> tls;
    private final TlsHandshakeFailures tlsFailures;
    private final ChannelGroup channels;
    private final AtomicInteger open = new AtomicInteger();
    private final boolean http1;
    private final boolean h2c;
    private final Http2Limits h2Limits;
    private volatile Http3Listener http3;

    ListenerInitializer(int index, ListenerSpec spec, LimitsSpec limits, ListenerServices context, SnapshotStore store,
                        TlsContexts tls, ChannelGroup channels) {
        this.index = index;
        this.spec = spec;
        this.limits = limits;
        this.context = context;
        // Matchers read the current snapshot, so a reload of client_ip.trusted_proxies applies to new connections.
        this.trustedProxies = (high, low) -> store.current().trustedProxies().contains(high, low);
        this.proxySenders = (high, low) -> store.current().proxyProtocolSenders(index).contains(high, low);
        this.countries = (high, low) -> {
            CountryDatabase db = store.current().countries();
            return db == null ? CountryCodes.UNKNOWN : db.country(high, low);
        };
        this.lockDown = spec.trustedOnly() ? new AcceptFilterHandler(trustedProxies) : null;
        this.tls = new AtomicReference<>(tls);
        Metrics metrics = context.metrics();
        this.tlsFailures = new TlsHandshakeFailures(index, spec.name() == null ? spec.address() : spec.name(),
                metrics == null ? (l, reason) -> { } : (l, reason) -> metrics.tlsHandshakeFailed(l, reason.ordinal()));
        this.channels = channels;
        this.http1 = spec.protocols().contains("http1");
        this.h2c = spec.protocols().contains("h2c");
        this.h2Limits = new Http2Limits(Http2Limits.DEFAULT.maxConcurrentStreams(), limits.maxHeaderSize().bytes(),
                Http2Limits.DEFAULT.maxResetsPerWindow(), Http2Limits.DEFAULT.resetWindowSeconds(),
                Http2Limits.DEFAULT.maxSmallContinuationFrames(), Http2Limits.DEFAULT.gracefulShutdownMillis(),
                limits.maxBodySize().bytes(), limits.sendTimeout().toMillis(), spec.h2Websockets(),
                limits.idleTimeout().toMillis());
    }

    ListenerSpec spec() {
        return spec;
    }

    /** The listener's HTTP/3 side, or null. */
    Http3Listener http3() {
        return http3;
    }

    void http3(Http3Listener h3) {
        this.http3 = h3;
    }

    /** The listener's shared services (its request cycle), for its HTTP/3 side. */
    ListenerServices services() {
        return context;
    }

    /** {@code client_ip.trusted_proxies}, read from the current snapshot. */
    AddressMatcher trustedProxies() {
        return trustedProxies;
    }

    /** The country of a peer, from the current snapshot's database. */
    CountryLookup countries() {
        return countries;
    }

    int index() {
        return index;
    }

    int openConnections() {
        return open.get();
    }

    TlsContexts tls() {
        return tls.get();
    }

    /** Swaps the TLS contexts after a reload re-read the certificate files (new connections use them). */
    void tls(TlsContexts next) {
        tls.set(next);
    }

    @Override
    protected void initChannel(Channel ch) {
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            ch.close();
            return;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        channels.add(ch);
        ChannelPipeline p = ch.pipeline();
        if (lockDown != null) {
            p.addLast(lockDown);
        }
        if (!spec.proxyProtocol().isEmpty()) {
            p.addLast(new ProxyProtocolHandler(proxySenders));
        }
        p.addLast(new ClientInfoHandler(trustedProxies, countries, spec.tls() != null));
        TlsContexts contexts = tls.get();
        if (contexts != null) {
            p.addLast(contexts.newHandler());
            p.addLast(new AlpnHandler());
        } else if (http1 && h2c) {
            p.addLast(new ProtocolDetector(this, limits.idleTimeout().toMillis()));
        } else if (h2c) {
            installHttp2(p);
        } else {
            installHttp1(p);
        }
    }

    void installHttp1(ChannelPipeline p) {
        // The body-rate grace is the default 5 s, or the header timeout when that is shorter: a client
        // given less time for its head need not get more for the start of its body.
        long headerTimeout = limits.headerTimeout().toMillis();
        Http1Deadlines deadlines = new Http1Deadlines(headerTimeout, limits.idleTimeout().toMillis(),
                limits.bodyMinRate().bytes(), Math.min(Http1Deadlines.DEFAULT_BODY_GRACE_MILLIS, headerTimeout),
                limits.sendTimeout().toMillis());
        Http1RequestDecoder decoder = new Http1RequestDecoder((int) limits.maxRequestLine().bytes(),
                (int) limits.maxHeaderSize().bytes(), limits.maxHeaders(), limits.maxBodySize().bytes());
        p.addLast("deadlines", deadlines);
        p.addLast("http1-decoder", decoder);
        p.addLast("http1-gate", new Http1GateHandler(context, decoder, deadlines, (int) limits.maxRequestLine().bytes()));
    }

    void installHttp2(ChannelPipeline p) {
        p.addLast("http2-gate", Http2GateHandler.create(context, h2Limits));
    }

    /**
     * After the TLS handshake: h2 when ALPN chose it (and the listener offers it), else HTTP/1.1. A
     * failed handshake (or any error before it completed) is counted and logged once by
     * {@link TlsHandshakeFailures} and the connection closed; nothing travels on to Netty's WARN with a
     * stack trace (this handler's default, and the pipeline tail's).
     */
    private final class AlpnHandler extends ApplicationProtocolNegotiationHandler {
        private boolean failed;

        AlpnHandler() {
            super(ApplicationProtocolNames.HTTP_1_1);
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            if (!failed) {
                failed = true;
                tlsFailures.failed(ctx.channel(), cause);
            }
            ctx.close();
        }

        /**
         * The peer went away after its ClientHello (the SNI handler has made way for the SslHandler) but
         * before the handshake finished: Netty's server-side SslHandler reports no handshake event then.
         * A connection closed before a complete ClientHello is not counted (port scans, TCP health checks).
         */
        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            if (!failed && ssl != null && !ssl.handshakeFuture().isSuccess()) {
                Throwable cause = ssl.handshakeFuture().cause();
                handshakeFailure(ctx, cause == null ? new ClosedChannelException() : cause);
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            if (ssl != null && ssl.handshakeFuture().isSuccess()) {
                // Not the handshake: choosing the protocol's handlers failed. A bug, so Netty's WARN with the trace.
                ctx.fireExceptionCaught(cause);
                ctx.close();
                return;
            }
            handshakeFailure(ctx, cause);
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (ApplicationProtocolNames.HTTP_2.equals(protocol) && spec.protocols().contains("h2")) {
                installHttp2(ctx.pipeline());
            } else {
                installHttp1(ctx.pipeline());
            }
        }
    }
}
