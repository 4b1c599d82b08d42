package io.paduraksa.server.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real upstream for forwarding tests, on 127.0.0.1 port 0: Netty's request decoder, responses
 * written as raw bytes so that misbehaviour can be exact. What it does depends on the path:
 * <ul>
 *   <li>{@code /never}: reads the request, never answers;</li>
 *   <li>{@code /close-early}: a head promising 100 bytes, 10 bytes, then a close;</li>
 *   <li>{@code /bad-status}: an invalid status line;</li>
 *   <li>{@code /smuggle}: a complete response followed by a second, unrequested one;</li>
 *   <li>{@code /close-delimited}: a body without length, ended by closing;</li>
 *   <li>{@code /chunked}: a chunked body in three chunks with a {@code grpc-status} trailer;</li>
 *   <li>{@code /status/NNN}: an empty answer with that status;</li>
 *   <li>{@code /healthz}: 200, or 503 after {@link #healthy(boolean) healthy(false)};</li>
 *   <li>{@code /fixed...}: 200 with a fixed 16-byte body (every answer the same length);</li>
 *   <li>{@code /big/N}: N bytes of body, written as the client reads them (writability);</li>
 *   <li>{@code /slow-upload}: the echo, but reading the body pauses for a second after 64 MiB;</li>
 *   <li>anything else: 200 with a text echo of the request line, each field, the body's length
 *       and the peer port, with {@code Server} and {@code X-Powered-By} fields.</li>
 * </ul>
 * Answers {@code 100 Continue} to {@code Expect: 100-continue}. Counts connections (all and open)
 * and requests; the echo ends with {@code origin: NAME}.
 */
public final class TestOrigin implements AutoCloseable {
    /** Its own thread name, so that tests measuring the server's event-loop threads do not count it. */
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new io.netty.util.concurrent.DefaultThreadFactory("test-origin"), NioIoHandler.newFactory());
    private final Channel server;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private volatile boolean healthy = true;
    private final AtomicReference<String> lastRequest = new AtomicReference<>();
    private final String name;

    public TestOrigin(String name) throws InterruptedException {
        this.name = name;
        this.server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        open.incrementAndGet();
                        ch.closeFuture().addListener(f -> open.decrementAndGet());
                        ch.pipeline().addLast(new HttpRequestDecoder(), new Handler());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    public String url() {
        return "http://127.0.0.1:" + port();
    }

    public int connections() {
        return connections.get();
    }

    /** Connections open now. */
    public int openConnections() {
        return open.get();
    }

    /** What {@code /healthz} answers from now on: 200, or 503 when false. */
    public void healthy(boolean healthy) {
        this.healthy = healthy;
    }

    public int requests() {
        return requests.get();
    }

    /** The echo text of the last request. */
    public String lastRequest() {
        return lastRequest.get();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        private StringBuilder echo;
        private String path;
        private long bodyBytes;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest r) {
                    requests.incrementAndGet();
                    path = r.uri();
                    bodyBytes = 0;
                    echo = new StringBuilder(r.method() + " " + r.uri() + "\n");
                    for (Map.Entry<String, String> e : r.headers()) {
                        echo.append(e.getKey().toLowerCase()).append(": ").append(e.getValue()).append('\n');
                    }
                    if (HttpUtil.is100ContinueExpected(r)) {
                        ctx.writeAndFlush(ascii("HTTP/1.1 100 Continue\r\n\r\n"));
                    }
                }
                if (msg instanceof HttpContent c) {
                    long before = bodyBytes;
                    bodyBytes += c.content().readableBytes();
                    if (path.startsWith("/slow-upload") && before < PAUSE_AFTER && bodyBytes >= PAUSE_AFTER) {
                        pauseReading(ctx);
                    }
                }
                if (msg instanceof LastHttpContent) {
                    echo.append("body-bytes: ").append(bodyBytes).append('\n');
                    echo.append("peer-port: ").append(((InetSocketAddress) ctx.channel().remoteAddress()).getPort()).append('\n');
                    echo.append("origin: ").append(name).append('\n');
                    lastRequest.set(echo.toString());
                    answer(ctx);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void answer(ChannelHandlerContext ctx) {
            String p = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
            if (p.equals("/never")) {
                return;
            }
            if (p.equals("/close-early")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"))
                        .addListener(ChannelFutureListener.CLOSE);
            } else if (p.equals("/bad-status")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n"));
            } else if (p.equals("/smuggle")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil"));
            } else if (p.equals("/close-delimited")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end"))
                        .addListener(ChannelFutureListener.CLOSE);
            } else if (p.equals("/chunked")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: grpc-status\r\n\r\n"
                        + "5\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\ngrpc-status: 0\r\n\r\n"));
            } else if (p.equals("/healthz")) {
                ctx.writeAndFlush(ascii(healthy ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                        : "HTTP/1.1 503 Unavailable\r\nContent-Length: 0\r\n\r\n"));
            } else if (p.endsWith("/with-id")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 200 OK\r\nX-Request-Id: origin-1\r\nContent-Length: 0\r\n\r\n"));
            } else if (p.startsWith("/fixed")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 16\r\n\r\n0123456789abcdef"));
            } else if (p.startsWith("/status/")) {
                ctx.writeAndFlush(ascii("HTTP/1.1 " + p.substring(8) + " Status\r\nContent-Length: 0\r\n\r\n"));
            } else if (p.startsWith("/big/")) {
                long n = Long.parseLong(p.substring(5));
                ctx.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: " + n + "\r\n\r\n"));
                new BigBody(ctx, n).run();
            } else {
                byte[] body = echo.toString().getBytes(StandardCharsets.UTF_8);
                ctx.write(ascii("HTTP/1.1 200 OK\r\nServer: " + name + "\r\nX-Powered-By: test\r\nKeep-Alive: timeout=5\r\n"
                        + "Content-Type: text/plain\r\nContent-Length: " + body.length + "\r\n\r\n"));
                ctx.writeAndFlush(Unpooled.wrappedBuffer(body));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** {@code /slow-upload}: after this many body bytes the origin stops reading for a second. */
    private static final long PAUSE_AFTER = 64L << 20;

    private static void pauseReading(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
        ctx.channel().eventLoop().schedule(() -> {
            ctx.channel().config().setAutoRead(true);
        }, 1, TimeUnit.SECONDS);
    }

    /** Writes a large body in 64 KiB pieces whenever the connection is writable. */
    private static final class BigBody implements Runnable, ChannelFutureListener {
        private static final ByteBuf PIECE = Unpooled.unreleasableBuffer(Unpooled.directBuffer(65536).writeZero(65536));
        private final ChannelHandlerContext ctx;
        private long left;

        BigBody(ChannelHandlerContext ctx, long left) {
            this.ctx = ctx;
            this.left = left;
        }

        @Override
        public void run() {
            while (left > 0 && ctx.channel().isWritable()) {
                int n = (int) Math.min(left, PIECE.capacity());
                left -= n;
                ctx.write(PIECE.retainedSlice(0, n));
            }
            ctx.flush();
            if (left > 0 && ctx.channel().isActive()) {
                ctx.channel().eventLoop().schedule(this, 1, TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void operationComplete(io.netty.channel.ChannelFuture future) {
            run();
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
