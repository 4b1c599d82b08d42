package io.paduraksa.proxy.cache;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream whose caching headers the request chooses: {@code cc} (Cache-Control), {@code vary},
 * {@code cookie=1} (a Set-Cookie), {@code expires} (seconds from now), {@code delay} (ms before
 * answering), {@code size} (body bytes). The body names how often this path and query were
 * requested ({@code n=3}) and the request's Accept-Encoding, so a test tells a stored answer from
 * a fresh one. {@link #failing} makes it answer 503 ({@code "503"}) or close without an answer
 * ({@code "close"}).
 */
public final class CacheOrigin implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("cache-origin"),
            NioIoHandler.newFactory());
    private final Channel server;
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    public volatile String failing;

    public CacheOrigin() throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpRequestDecoder(), new HttpObjectAggregator(1 << 20), new Handler());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    public String url() {
        return "http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Requests this origin got for {@code uri} (path and query as sent). */
    public int count(String uri) {
        AtomicInteger n = counts.get(uri);
        return n == null ? 0 : n.get();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest r) {
            int n = counts.computeIfAbsent(r.uri(), k -> new AtomicInteger()).incrementAndGet();
            String fail = failing;
            if ("close".equals(fail)) {
                ctx.close();
                return;
            }
            QueryStringDecoder q = new QueryStringDecoder(r.uri());
            StringBuilder head = new StringBuilder();
            String body;
            if ("503".equals(fail)) {
                head.append("HTTP/1.1 503 Unavailable\r\n");
                body = "down";
            } else {
                head.append("HTTP/1.1 ").append(param(q, "status", "200")).append(" Answer\r\n");
                String ae = r.headers().get("accept-encoding");
                body = "n=" + n + " ae=" + ae;
                int size = Integer.parseInt(param(q, "size", "0"));
                if (size > body.length()) {
                    body = body + "x".repeat(size - body.length());
                }
            }
            add(head, "Cache-Control", param(q, "cc", null));
            add(head, "Vary", param(q, "vary", null));
            add(head, "Set-Cookie", param(q, "cookie", null) == null ? null : "session=" + n);
            String expires = param(q, "expires", null);
            if (expires != null) {
                add(head, "Expires", java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                        java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).plusSeconds(Long.parseLong(expires))));
            }
            byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
            head.append("Content-Type: text/plain\r\nContent-Length: ").append(bytes.length).append("\r\n\r\n");
            Runnable answer = () -> {
                ctx.write(Unpooled.copiedBuffer(head, StandardCharsets.US_ASCII));
                ctx.writeAndFlush(Unpooled.wrappedBuffer(bytes));
            };
            long delay = Long.parseLong(param(q, "delay", "0"));
            if (delay > 0) {
                ctx.executor().schedule(answer, delay, TimeUnit.MILLISECONDS);
            } else {
                answer.run();
            }
        }

        private static void add(StringBuilder head, String name, String value) {
            if (value != null) {
                head.append(name).append(": ").append(value).append("\r\n");
            }
        }

        private static String param(QueryStringDecoder q, String name, String otherwise) {
            List<String> v = q.parameters().get(name);
            return v == null || v.isEmpty() ? otherwise : v.get(0);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
