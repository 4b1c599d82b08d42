package io.paduraksa.proxy.auth;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import io.paduraksa.ops.ForwardAuthMetrics;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.net.IpParser;
import io.paduraksa.policy.AsyncPolicy;
import io.paduraksa.policy.ForwardAuthPolicy;
import io.paduraksa.policy.PolicyDecision;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One forward-auth subrequest for a request whose decision was not cached, sent over HTTP/1.1
 * (Netty's client codec) from the client connection's event loop to the auth service, bounded by
 * the policy's timeout from the start. The answer (or its absence) becomes a decision through
 * {@link ForwardAuthPolicy#decide}, which also caches it, and is handed to {@link AsyncPolicy.Decided} on the same
 * event loop, exactly once per request. The rare path: allocates freely.
 *
 * <p><b>Connections</b> are kept alive and pooled per event loop and auth destination (scheme,
 * host, port, trust anchors): at most {@value #MAX_IDLE} idle ones, each closed after
 * {@value #IDLE_SECONDS} s unused or when the service closes it. A connection goes back to the pool
 * only after a complete answer without {@code Connection: close}; one whose answer was cut short
 * (timeout, a body over the limit, an error) is closed. A pooled connection that fails before any
 * answer arrives (the service closed it meanwhile) is retried once on a new connection.
 *
 * <p><b>Coalescing.</b> With a cache, a miss whose key (policy and key header values) already has
 * a call in flight on the same event loop waits for that call instead of sending its own (at most
 * {@value #MAX_WAITERS} waiters per call; past that a request sends its own call). When the call
 * ends, every waiter still waiting resumes: with the unavailable decision if the service did not
 * answer, else with the decision now cached for its key (which also hands it a cached allow's
 * copied headers). An answer that was not cached (it set a cookie: meant for one client only) is
 * not shared: each waiter then sends its own call.
 *
 * <p><b>https://</b> auth URLs use a TLS client with SNI (the URL's host name) and certificate and
 * host name verification, against the policy's {@code ca} file or the system trust store. A failed
 * handshake is an unavailable service.
 */
public final class ForwardAuthCall {
    /** Idle pooled connections kept per event loop and destination. */
    public static final int MAX_IDLE = 16;
    /** Seconds an idle pooled connection is kept. */
    public static final int IDLE_SECONDS = 30;
    /** Requests that may wait on one in-flight call. */
    public static final int MAX_WAITERS = 1024;

    /** X-Forwarded-* names of the subrequest. */
    private static final AsciiString X_FORWARDED_METHOD = AsciiString.cached("X-Forwarded-Method");
    private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("X-Forwarded-Proto");
    private static final AsciiString X_FORWARDED_HOST = AsciiString.cached("X-Forwarded-Host");
    private static final AsciiString X_FORWARDED_URI = AsciiString.cached("X-Forwarded-Uri");
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("X-Forwarded-For");
    private static final AsciiString X_ORIGINAL_URL = AsciiString.cached("X-Original-URL");
    /** Client TLS contexts by trust anchor file ("" for the system trust store). */
    private static final Map<String, SslContext> TLS = new ConcurrentHashMap<>();
    private static final FastThreadLocal<Loop> LOOPS = new FastThreadLocal<>() {
        @Override
        protected Loop initialValue() {
            return new Loop();
        }
    };

    /** One event loop's idle connections (by destination) and calls in flight (by policy and key). */
    private static final class Loop {
        final Map<String, ArrayDeque<Connection>> idle = new HashMap<>();
        final Map<Flight, ForwardAuthCall> inFlight = new HashMap<>();
    }

    /** A policy and a cache key: the identity of coalesced misses. */
    private record Flight(ForwardAuthPolicy policy, Object key) {
    }

    /** A request waiting on another request's call. */
    private record Waiter(RequestState state, long requestId, AsyncPolicy.Decided done, Object token) {
    }

    private final ForwardAuthPolicy policy;
    private final RequestState state;
    private final Object key;
    private final AsyncPolicy.Decided done;
    private final Object token;
    private final long requestId;
    private final Loop loop;
    private final EventLoop eventLoop;
    private final Class<? extends Channel> type;
    private final ForwardAuthMetrics.Policy metrics;
    private final long startNanos = System.nanoTime();
    private final List<String[]> headers = new ArrayList<>();
    private List<Waiter> waiters;
    private Flight flight;
    private String destination;
    private SslContext ssl;
    private FullHttpRequest request;
    private ByteBuf body;
    private int status;
    private boolean answered;
    private boolean keepAlive;
    private boolean retried;
    private boolean reused;
    private boolean finished;
    private ScheduledFuture<?> timeout;
    private Connection connection;

    private ForwardAuthCall(ForwardAuthPolicy policy, RequestState state, AsyncPolicy.Decided done, Object token, Loop loop,
                            EventLoop eventLoop, Class<? extends Channel> type) {
        this.policy = policy;
        this.state = state;
        this.key = policy.key(state);
        this.done = done;
        this.token = token;
        this.requestId = state.requestId();
        this.loop = loop;
        this.eventLoop = eventLoop;
        this.type = type;
        this.metrics = ForwardAuthMetrics.GLOBAL.policy(policy.name());
    }

    /**
     * Starts the subrequest for the request in {@code state} (its head must be readable now and
     * until the decision: what the subrequest needs is copied before this returns; a coalesced
     * request's cached decision is looked up with it). {@code client} is the client's connection:
     * the subrequest runs on its event loop (this is called there) with its transport. The server
     * registers this as the starter of {@link ForwardAuthPolicy} (the request cycle never names it).
     */
    public static void start(Channel client, RequestState state, ForwardAuthPolicy policy, AsyncPolicy.Decided done, Object token) {
        @SuppressWarnings("unchecked")
        Class<? extends Channel> type = client instanceof SocketChannel ? client.getClass()
                : (Class<? extends Channel>) io.netty.channel.socket.nio.NioSocketChannel.class;
        start(client.eventLoop(), type, state, policy, done, token, true);
    }

    private static void start(EventLoop eventLoop, Class<? extends Channel> type, RequestState state,
                              ForwardAuthPolicy policy, AsyncPolicy.Decided done, Object token, boolean coalesce) {
        Loop loop = LOOPS.get();
        ForwardAuthCall call = new ForwardAuthCall(policy, state, done, token, loop, eventLoop, type);
        if (call.key != null && coalesce) {
            Flight f = new Flight(policy, call.key);
            ForwardAuthCall leader = loop.inFlight.get(f);
            if (leader != null && leader.join(new Waiter(state, call.requestId, done, token))) {
                call.metrics.coalesced();
                return;
            }
            if (leader == null) {
                call.flight = f;
                loop.inFlight.put(f, call);
            }
        }
        call.request = call.request(state);
        URI url = policy.url();
        boolean https = "https".equalsIgnoreCase(url.getScheme());
        Path ca = policy.ca();
        call.destination = url.getScheme().toLowerCase(java.util.Locale.ROOT) + "://" + url.getHost() + ":" + port(url)
                + (ca == null ? "" : "|" + ca);
        try {
            call.ssl = https ? tls(ca) : null;
        } catch (SSLException | RuntimeException e) {
            call.finish(policy.unavailable(), ForwardAuthMetrics.UNAVAILABLE, null, false);
            return;
        }
        call.timeout = eventLoop.schedule(call::timedOut, policy.timeoutMillis(), TimeUnit.MILLISECONDS);
        call.send(true);
    }

    private static int port(URI url) {
        return url.getPort() > 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }

    private boolean join(Waiter w) {
        if (finished || waiters != null && waiters.size() >= MAX_WAITERS) {
            return false;
        }
        if (waiters == null) {
            waiters = new ArrayList<>();
        }
        waiters.add(w);
        return true;
    }

    private static SslContext tls(Path ca) throws SSLException {
        String k = ca == null ? "" : ca.toString();
        SslContext c = TLS.get(k);
        if (c == null) {
            SslContextBuilder b = SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS");
            if (ca != null) {
                b.trustManager(ca.toFile());
            }
            c = b.build();
            TLS.put(k, c);
        }
        return c;
    }

    /** Sends the request on an idle pooled connection ({@code pooled}) or a new one. */
    private void send(boolean pooled) {
        ArrayDeque<Connection> idle = loop.idle.get(destination);
        Connection c = null;
        while (pooled && idle != null && (c = idle.pollLast()) != null && !c.channel.isActive()) {
            c = null;
        }
        if (c != null) {
            reused = true;
            metrics.connection(true);
            c.call = this;
            connection = c;
            c.channel.writeAndFlush(request.retainedDuplicate()).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            return;
        }
        reused = false;
        metrics.connection(false);
        URI url = policy.url();
        int port = port(url);
        Connection conn = new Connection(loop, destination);
        conn.call = this;
        connection = conn;
        SslContext tls = ssl;
        ChannelFuture f = new Bootstrap().group(eventLoop).channel(type)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, policy.timeoutMillis()))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), url.getHost(), port));
                        }
                        ch.pipeline().addLast(new HttpClientCodec(), new IdleStateHandler(0, 0, IDLE_SECONDS), conn);
                    }
                })
                .connect(new InetSocketAddress(url.getHost(), port));
        conn.channel = f.channel();
        f.addListener(cf -> {
            if (!cf.isSuccess()) {
                conn.channel.close();
                if (connection == conn) {
                    finish(policy.unavailable(), ForwardAuthMetrics.UNAVAILABLE, null, false);
                }
            } else if (connection == conn && !finished) {
                conn.channel.writeAndFlush(request.retainedDuplicate()).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            }
        });
    }

    /**
     * The path the gate matched and the upstream will receive (normalised, segment parameters
     * stripped), with the query as sent: the service judges the request the upstream would see.
     */
    private static String matchedTarget(RequestState state) {
        String path = new String(state.path(), 0, state.pathLength(), StandardCharsets.ISO_8859_1);
        int query = state.queryStart();
        return query < 0 ? path : path + "?" + state.target().subSequence(query, state.queryEnd());
    }

    private FullHttpRequest request(RequestState state) {
        URI url = policy.url();
        String target = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        if (url.getRawQuery() != null) {
            target += "?" + url.getRawQuery();
        }
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(policy.method()), target,
                Unpooled.EMPTY_BUFFER);
        r.headers().set(HttpHeaderNames.HOST, url.getPort() > 0 ? url.getHost() + ":" + url.getPort() : url.getHost());
        String[] names = policy.forwardHeaders();
        AsciiString[] lower = policy.forwardHeadersLower();
        for (int i = 0; i < names.length; i++) {
            CharSequence v = state.header(lower[i]);
            if (v != null) {
                r.headers().add(names[i], v.toString());
            }
        }
        RequestView view = state.view();
        String proto = view.client().isTls() ? "https" : "http";
        CharSequence host = view.authority();
        String uri = matchedTarget(state);
        r.headers().set(X_FORWARDED_METHOD, view.method().toString());
        r.headers().set(X_FORWARDED_PROTO, proto);
        if (host != null) {
            r.headers().set(X_FORWARDED_HOST, host.toString());
            r.headers().set(X_ORIGINAL_URL, proto + "://" + host + uri);
        }
        r.headers().set(X_FORWARDED_URI, uri);
        byte[] ip = new byte[IpParser.MAX_TEXT_LENGTH + 1];
        int n = IpParser.formatTo(state.clientIpHigh(), state.clientIpLow(), ip);
        r.headers().set(X_FORWARDED_FOR, new String(ip, 0, n, StandardCharsets.US_ASCII));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        return r;
    }

    private void read(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof DecoderResultProvider d && d.decoderResult().isFailure()) {
                finish(policy.unavailable(), ForwardAuthMetrics.UNAVAILABLE, null, false);
                return;
            }
            if (msg instanceof HttpResponse r) {
                answered = true;
                status = r.status().code();
                keepAlive = HttpUtil.isKeepAlive(r);
                for (Map.Entry<String, String> h : r.headers()) {
                    headers.add(new String[] {h.getKey(), h.getValue()});
                }
                body = ctx.alloc().heapBuffer();
            }
            if (msg instanceof HttpContent c && body != null) {
                if (body.readableBytes() + c.content().readableBytes() > ForwardAuthPolicy.MAX_BODY) {
                    finish(policy.unavailable(), ForwardAuthMetrics.UNAVAILABLE, null, false);
                    return;
                }
                body.writeBytes(c.content());
            }
            if (msg instanceof LastHttpContent && body != null) {
                byte[] bytes = new byte[body.readableBytes()];
                body.readBytes(bytes);
                PolicyDecision d = policy.decide(key, status, headers, bytes, state.requestId() == requestId ? state : null);
                int outcome = status >= 200 && status < 300 ? ForwardAuthMetrics.ALLOWED
                        : d == policy.unavailable() ? ForwardAuthMetrics.UNAVAILABLE : ForwardAuthMetrics.DENIED;
                finish(d, outcome, d, keepAlive);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    /** The connection closed or failed while this call used it. */
    private void connectionLost(Connection c) {
        if (finished || connection != c) {
            return;
        }
        connection = null;
        if (reused && !answered && !retried) {
            retried = true; // the service closed the idle connection meanwhile: once more on a new one
            send(false);
            return;
        }
        finish(policy.unavailable(), ForwardAuthMetrics.UNAVAILABLE, null, false);
    }

    private void timedOut() {
        finish(policy.unavailable(), ForwardAuthMetrics.UNAVAILABLE, null, false);
    }

    /**
     * Hands the decision over, once, to the request and its waiters. When a request has moved on
     * (its client went away: the state was cleared or reused), the caller sees another id and drops
     * it; cached decisions stay cached. The copied headers of an allow are on the state only while
     * the request is the same one.
     *
     * @param answer the decision from a complete answer, or null when the service did not answer
     * @param reusable whether the connection may go back to the pool
     */
    private void finish(PolicyDecision decision, int outcome, PolicyDecision answer, boolean reusable) {
        if (finished) {
            return;
        }
        finished = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (body != null) {
            body.release();
            body = null;
        }
        if (request != null) {
            request.release();
            request = null;
        }
        if (flight != null && loop.inFlight.get(flight) == this) {
            loop.inFlight.remove(flight);
        }
        Connection c = connection;
        connection = null;
        if (c != null) {
            c.call = null;
            if (reusable) {
                c.idle();
            } else {
                c.channel.close();
            }
        }
        metrics.call(outcome, answer == null ? -1 : (System.nanoTime() - startNanos) / 1_000);
        done.decided(token, requestId, decision);
        List<Waiter> ws = waiters;
        waiters = null;
        if (ws != null) {
            for (Waiter w : ws) {
                resume(w, answer);
            }
        }
    }

    private void resume(Waiter w, PolicyDecision answer) {
        if (w.state.requestId() != w.requestId) {
            w.done.decided(w.token, w.requestId, policy.unavailable()); // gone: dropped by its handler
            return;
        }
        if (answer == null) {
            w.done.decided(w.token, w.requestId, policy.unavailable());
            return;
        }
        PolicyDecision cached = policy.evaluate(w.state);
        if (cached != PolicyDecision.NEEDS_ASYNC) {
            w.done.decided(w.token, w.requestId, cached);
        } else {
            start(eventLoop, type, w.state, policy, w.done, w.token, false); // not cached: not for sharing
        }
    }

    /** A connection to the auth service: used by one call at a time, pooled between calls. */
    private static final class Connection extends ChannelInboundHandlerAdapter {
        private final Loop loop;
        private final String destination;
        Channel channel;
        ForwardAuthCall call;

        Connection(Loop loop, String destination) {
            this.loop = loop;
            this.destination = destination;
        }

        /** Back to the pool (or closed when the pool is full or the connection is gone). */
        void idle() {
            if (!channel.isActive()) {
                return;
            }
            ArrayDeque<Connection> q = loop.idle.computeIfAbsent(destination, d -> new ArrayDeque<>());
            if (q.size() >= MAX_IDLE) {
                channel.close();
                return;
            }
            q.addLast(this);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ForwardAuthCall c = call;
            if (c == null) {
                ReferenceCountUtil.release(msg); // nothing was asked: not a connection to keep
                ctx.close();
                return;
            }
            c.read(ctx, msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ForwardAuthCall c = call;
            call = null;
            if (c != null) {
                c.connectionLost(this);
            } else {
                ArrayDeque<Connection> q = loop.idle.get(destination);
                if (q != null) {
                    q.remove(this);
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent && call == null) {
                ctx.close();
            }
            ReferenceCountUtil.release(evt);
        }
    }
}
