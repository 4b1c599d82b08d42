package io.paduraksa.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.paduraksa.server.http2.H2Client;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP/2 upstream for forwarding tests (Netty's server-side {@link Http2ConnectionHandler}
 * with a frame listener): h2c with prior knowledge, or h2 over TLS with the test certificate for
 * {@code a.test} and the ALPN protocols given. What it answers depends on the path:
 * <ul>
 *   <li>{@code /grpc}: a unary gRPC answer, {@code content-type: application/grpc}, the request's
 *       length-prefixed message echoed, trailers {@code grpc-status: 0}, {@code grpc-message: ok};</li>
 *   <li>{@code /reset-mid}: headers, a part of the body, then RST_STREAM INTERNAL_ERROR;</li>
 *   <li>{@code /slow}: the echo after 300 ms;</li>
 *   <li>{@code /goaway-after}: GOAWAY naming this stream as the last, then the echo;</li>
 *   <li>{@code /goaway-refuse}: on the origin's first connection GOAWAY with last stream 0 and no
 *       answer (the stream was not processed); on later connections the echo;</li>
 *   <li>{@code /interim}: a 103 head (with a {@code link} field), then the echo;</li>
 *   <li>{@code /bad-status}: a head whose {@code :status} is not three digits (a malformed response);</li>
 *   <li>{@code /ping}: a PING, then the echo;</li>
 *   <li>{@code /big/N}: N zero bytes in 16 KiB DATA frames (queued by the flow controller, sent as the window allows);</li>
 *   <li>anything else: 200 with a text echo of every received field and the body's length.</li>
 * </ul>
 * Made with {@code connectProtocol}, it also sends SETTINGS_ENABLE_CONNECT_PROTOCOL = 1 and takes
 * RFC 8441 extended CONNECTs: {@code :status 200} at once (the request's
 * {@code sec-websocket-protocol} echoed), then every DATA frame echoed on the stream, END_STREAM
 * answered with END_STREAM; on a path ending in {@code /refuse} 403 instead; on one ending in {@code /half-open} the echo
 * never ends the stream (the proxy's END_STREAM is left unanswered); while {@link #refuseConnects} is
 * above 0 it resets the CONNECT with REFUSED_STREAM instead (and counts one down).
 * Counts connections and the resets it receives; keeps the last request's fields.
 */
public final class H2Origin implements AutoCloseable {
    /** Named apart from the server's loops (multiThreadIoEventLoopGroup-*), which allocation tests count. */
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("h2-origin"),
            NioIoHandler.newFactory());
    private final Channel server;
    final AtomicInteger connections = new AtomicInteger();
    /** PING acks received from the proxy. */
    final AtomicInteger pingAcks = new AtomicInteger();
    /** RST_STREAM frames received from the proxy (streams it abandoned). */
    final AtomicInteger resets = new AtomicInteger();
    final Queue<Http2Headers> requests = new ConcurrentLinkedQueue<>();
    /** Request heads received (all, kept or not). */
    public final AtomicInteger received = new AtomicInteger();
    /** Whether {@link #requests} keeps every head (off for long runs). */
    public volatile boolean keepRequests = true;

    /** h2c, with {@code maxConcurrentStreams} in its SETTINGS. */
    public H2Origin(long maxConcurrentStreams) throws Exception {
        this(maxConcurrentStreams, null, false);
    }

    /** h2c that takes extended CONNECTs (RFC 8441) when {@code connectProtocol}. */
    H2Origin(long maxConcurrentStreams, boolean connectProtocol) throws Exception {
        this(maxConcurrentStreams, null, connectProtocol);
    }

    /** Extended CONNECT streams this origin answered 200 and echoes. */
    final Set<Integer> tunnels = ConcurrentHashMap.newKeySet();
    /** END_STREAMs received on tunnels. */
    final AtomicInteger tunnelEnds = new AtomicInteger();
    /** How many of the next extended CONNECTs are reset with REFUSED_STREAM (RFC 9113 8.7: not processed). */
    final AtomicInteger refuseConnects = new AtomicInteger();
    /** Tunnels whose END_STREAM is never answered. */
    private final Set<Integer> halfOpen = ConcurrentHashMap.newKeySet();

    H2Origin(long maxConcurrentStreams, String[] alpn) throws Exception {
        this(maxConcurrentStreams, alpn, false);
    }

    /** h2 over TLS offering {@code alpn} (null: h2c). */
    private H2Origin(long maxConcurrentStreams, String[] alpn, boolean connectProtocol) throws Exception {
        SslContext tls = alpn == null ? null : SslContextBuilder
                .forServer(H2Client.testFile("a-test-chain.pem").toFile(), H2Client.testFile("a-test.key").toFile())
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn))
                .build();
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        int number = connections.incrementAndGet();
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        Answers answers = new Answers(number);
                        Http2ConnectionHandler h = new Http2ConnectionHandlerBuilder().server(true)
                                .initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(maxConcurrentStreams)
                                        .connectProtocolEnabled(connectProtocol))
                                .frameListener(answers).build();
                        answers.handler = h;
                        ch.pipeline().addLast(h);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Answers extends Http2FrameAdapter {
        private final int connection;
        private final Map<Integer, Http2Headers> heads = new HashMap<>();
        private final Map<Integer, ByteBuf> bodies = new HashMap<>();
        Http2ConnectionHandler handler;

        Answers(int connection) {
            this.connection = connection;
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
            if (!heads.containsKey(streamId)) {
                heads.put(streamId, headers);
                received.incrementAndGet();
                if (keepRequests) {
                    requests.add(headers);
                }
                bodies.put(streamId, Unpooled.buffer());
                CharSequence protocol = headers.get(Http2Headers.PseudoHeaderName.PROTOCOL.value());
                if (protocol != null && "CONNECT".contentEquals(headers.method())) {
                    heads.remove(streamId);
                    bodies.remove(streamId).release();
                    if (refuseConnects.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        handler.resetStream(ctx, streamId, Http2Error.REFUSED_STREAM.code(), ctx.newPromise());
                        handler.flush(ctx);
                        return;
                    }
                    if (headers.path().toString().endsWith("/refuse")) {
                        write(ctx, streamId, new DefaultHttp2Headers().status("403"), true);
                        handler.flush(ctx);
                        return;
                    }
                    Http2Headers answer = new DefaultHttp2Headers().status("200");
                    CharSequence sub = headers.get("sec-websocket-protocol");
                    if (sub != null) {
                        answer.set("sec-websocket-protocol", sub);
                    }
                    tunnels.add(streamId);
                    if (headers.path().toString().endsWith("/half-open")) {
                        halfOpen.add(streamId);
                    }
                    write(ctx, streamId, answer, false);
                    handler.flush(ctx);
                    return;
                }
            }
            if (tunnels.contains(streamId)) {
                return;
            }
            if (endOfStream) {
                answer(ctx, streamId);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public void onPingAckRead(ChannelHandlerContext ctx, long data) {
            pingAcks.incrementAndGet();
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            resets.incrementAndGet();
            tunnels.remove(streamId);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            int n = data.readableBytes();
            if (tunnels.contains(streamId)) {
                handler.encoder().writeData(ctx, streamId, data.retain(), 0, endOfStream && !halfOpen.contains(streamId),
                        ctx.newPromise());
                handler.flush(ctx);
                if (endOfStream) {
                    tunnels.remove(streamId);
                    tunnelEnds.incrementAndGet();
                }
                return n + padding;
            }
            ByteBuf body = bodies.get(streamId);
            if (body != null) {
                body.writeBytes(data);
            }
            if (endOfStream) {
                answer(ctx, streamId);
            }
            return n + padding;
        }

        private void answer(ChannelHandlerContext ctx, int id) {
            Http2Headers req = heads.remove(id);
            ByteBuf body = bodies.remove(id);
            String path = req.path().toString();
            switch (path) {
                case "/grpc" -> {
                    write(ctx, id, new DefaultHttp2Headers().status("200").add("content-type", "application/grpc"), false);
                    handler.encoder().writeData(ctx, id, body, 0, false, ctx.newPromise());
                    write(ctx, id, new DefaultHttp2Headers().add("grpc-status", "0").add("grpc-message", "ok"), true);
                }
                case "/reset-mid" -> {
                    body.release();
                    write(ctx, id, new DefaultHttp2Headers().status("200").add("content-type", "text/plain"), false);
                    handler.encoder().writeData(ctx, id, ascii("partial"), 0, false, ctx.newPromise());
                    handler.flush(ctx);
                    ctx.executor().schedule(() -> {
                        handler.resetStream(ctx, id, Http2Error.INTERNAL_ERROR.code(), ctx.newPromise());
                        handler.flush(ctx);
                    }, 50, TimeUnit.MILLISECONDS);
                }
                case "/interim" -> {
                    write(ctx, id, new DefaultHttp2Headers().status("103").add("link", "</a.css>; rel=preload"), false);
                    echo(ctx, id, req, body);
                }
                case "/bad-status" -> {
                    body.release();
                    write(ctx, id, new DefaultHttp2Headers().status("2000").add("content-type", "text/plain"), true);
                }
                case "/ping" -> {
                    handler.encoder().writePing(ctx, false, 0x1234L, ctx.newPromise());
                    echo(ctx, id, req, body);
                }
                case "/slow" -> ctx.executor().schedule(() -> echo(ctx, id, req, body), 300, TimeUnit.MILLISECONDS);
                case "/goaway-after" -> {
                    handler.goAway(ctx, id, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
                    echo(ctx, id, req, body);
                }
                case "/goaway-refuse" -> {
                    if (connection == 1) {
                        body.release();
                        handler.goAway(ctx, 0, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
                        handler.flush(ctx);
                    } else {
                        echo(ctx, id, req, body);
                    }
                }
                default -> {
                    if (path.startsWith("/big/")) {
                        body.release();
                        big(ctx, id, Integer.parseInt(path.substring(5)));
                    } else {
                        echo(ctx, id, req, body);
                    }
                }
            }
            handler.flush(ctx);
        }

        private void big(ChannelHandlerContext ctx, int id, int n) {
            write(ctx, id, new DefaultHttp2Headers().status("200").add("content-length", Integer.toString(n)), false);
            for (int left = n; left > 0; left -= 16384) {
                int size = Math.min(left, 16384);
                handler.encoder().writeData(ctx, id, Unpooled.buffer(size).writeZero(size), 0, left == size, ctx.newPromise());
            }
        }

        private void echo(ChannelHandlerContext ctx, int id, Http2Headers req, ByteBuf body) {
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<CharSequence, CharSequence> e : req) {
                sb.append(e.getKey()).append(": ").append(e.getValue()).append('\n');
            }
            sb.append("body-bytes: ").append(body.readableBytes()).append('\n');
            sb.append("connection: ").append(connection).append('\n');
            body.release();
            write(ctx, id, new DefaultHttp2Headers().status("200").add("content-type", "text/plain").add("server", "h2origin"), false);
            handler.encoder().writeData(ctx, id, ascii(sb.toString()), 0, true, ctx.newPromise());
            handler.flush(ctx);
        }

        private void write(ChannelHandlerContext ctx, int id, Http2Headers headers, boolean endStream) {
            handler.encoder().writeHeaders(ctx, id, headers, 0, endStream, ctx.newPromise());
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }
}
