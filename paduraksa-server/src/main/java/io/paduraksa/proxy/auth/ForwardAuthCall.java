package io.paduraksa.proxy.auth;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
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
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.net.IpParser;
import io.paduraksa.policy.ForwardAuthPolicy;
import io.paduraksa.policy.PolicyDecision;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One forward-auth subrequest for a request whose decision was not cached: a new HTTP/1.1
 * connection (Netty's client codec; {@code Connection: close}) from the client connection's event
 * loop to the auth service, bounded by the policy's timeout from the start. The answer (or its
 * absence) becomes a decision through {@link ForwardAuthPolicy#decide}, which also caches it, and
 * is handed to {@link Done} on the same event loop, exactly once. The rare path: allocates freely.
 */
public final class ForwardAuthCall extends ChannelInboundHandlerAdapter {
    /** X-Forwarded-* names of the subrequest. */
    private static final AsciiString X_FORWARDED_METHOD = AsciiString.cached("X-Forwarded-Method");
    private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("X-Forwarded-Proto");
    private static final AsciiString X_FORWARDED_HOST = AsciiString.cached("X-Forwarded-Host");
    private static final AsciiString X_FORWARDED_URI = AsciiString.cached("X-Forwarded-Uri");
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("X-Forwarded-For");
    private static final AsciiString X_ORIGINAL_URL = AsciiString.cached("X-Original-URL");
    private static volatile SslContext tls;

    /** Receives the decision on the event loop of the request. */
    public interface Done {
        /**
         * @param token what the caller passed to {@link #start} (its stream, for example)
         * @param requestId the request's id at the start: the caller compares it with its state's to
         *                  see whether the request is still the one that asked
         */
        void authDecided(Object token, long requestId, PolicyDecision decision);
    }

    private final ForwardAuthPolicy policy;
    private final RequestState state;
    private final Object key;
    private final Done done;
    private final Object token;
    private final long requestId;
    private final List<String[]> headers = new ArrayList<>();
    private ByteBuf body;
    private int status;
    private boolean finished;
    private ScheduledFuture<?> timeout;
    private Channel channel;

    private ForwardAuthCall(ForwardAuthPolicy policy, RequestState state, Object key, Done done, Object token) {
        this.policy = policy;
        this.state = state;
        this.key = key;
        this.done = done;
        this.token = token;
        this.requestId = state.requestId();
    }

    /**
     * Starts the subrequest for the request in {@code state} (its head must be readable now: what the
     * subrequest needs is copied before this returns). {@code client} is the client's connection:
     * the subrequest runs on its event loop with its transport.
     */
    public static void start(Channel client, RequestState state, ForwardAuthPolicy policy, Done done, Object token) {
        ForwardAuthCall call = new ForwardAuthCall(policy, state, policy.key(state), done, token);
        FullHttpRequest request = call.request(state);
        EventLoop loop = client.eventLoop();
        URI url = policy.url();
        boolean https = "https".equalsIgnoreCase(url.getScheme());
        int port = url.getPort() > 0 ? url.getPort() : https ? 443 : 80;
        @SuppressWarnings("unchecked")
        Class<? extends Channel> type = client instanceof SocketChannel ? client.getClass()
                : (Class<? extends Channel>) io.netty.channel.socket.nio.NioSocketChannel.class;
        SslContext ssl;
        try {
            ssl = https ? tls() : null;
        } catch (SSLException e) {
            call.finish(policy.unavailable());
            return;
        }
        call.timeout = loop.schedule(() -> call.timedOut(), policy.timeoutMillis(), TimeUnit.MILLISECONDS);
        ChannelFuture f = new Bootstrap().group(loop).channel(type)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, policy.timeoutMillis()))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (ssl != null) {
                            ch.pipeline().addLast(ssl.newHandler(ch.alloc(), url.getHost(), port));
                        }
                        ch.pipeline().addLast(new HttpClientCodec(), call);
                    }
                })
                .connect(new InetSocketAddress(url.getHost(), port));
        call.channel = f.channel();
        f.addListener(cf -> {
            if (cf.isSuccess()) {
                f.channel().writeAndFlush(request);
            } else {
                request.release();
                call.finish(policy.unavailable());
            }
        });
    }

    private static SslContext tls() throws SSLException {
        SslContext c = tls;
        if (c == null) {
            c = SslContextBuilder.forClient().build();
            tls = c;
        }
        return c;
    }

    /**
     * The path the gate matched and the upstream will receive (normalised, segment parameters
     * stripped), with the query as sent: the service judges the request the upstream would see.
     */
    private static String matchedTarget(RequestState state) {
        String path = new String(state.path(), 0, state.pathLength(), java.nio.charset.StandardCharsets.ISO_8859_1);
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
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
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
        r.headers().set(X_FORWARDED_FOR, new String(ip, 0, n, java.nio.charset.StandardCharsets.US_ASCII));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        return r;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpResponse r) {
                status = r.status().code();
                for (Map.Entry<String, String> h : r.headers()) {
                    headers.add(new String[] {h.getKey(), h.getValue()});
                }
                body = ctx.alloc().heapBuffer();
            }
            if (msg instanceof HttpContent c && body != null) {
                if (body.readableBytes() + c.content().readableBytes() > ForwardAuthPolicy.MAX_BODY) {
                    finish(policy.unavailable());
                    return;
                }
                body.writeBytes(c.content());
            }
            if (msg instanceof LastHttpContent && body != null) {
                byte[] bytes = new byte[body.readableBytes()];
                body.readBytes(bytes);
                finish(policy.decide(key, status, headers, bytes, state.requestId() == requestId ? state : null));
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        finish(policy.unavailable()); // closed before a complete answer (no-op after one)
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        finish(policy.unavailable());
    }

    private void timedOut() {
        finish(policy.unavailable());
    }

    /**
     * Hands the decision over, once. When the request has moved on (its client went away: the state
     * was cleared or reused), the caller sees another id and drops it; cached decisions stay cached.
     * The copied headers of an allow are on the state only while the request is the same one.
     */
    private void finish(PolicyDecision decision) {
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
        if (channel != null) {
            channel.close();
        }
        done.authDecided(token, requestId, decision);
    }
}
