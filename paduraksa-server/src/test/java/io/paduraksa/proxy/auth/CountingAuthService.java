package io.paduraksa.proxy.auth;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback auth service (Netty, HTTP/1.1 keep-alive, optionally TLS) that counts the connections
 * it accepted and the requests it answered. {@code Cookie: user=NAME} is 200 with {@code X-User: NAME},
 * {@code login=...} is 302 with a {@code Set-Cookie} numbered by the request count, anything else 401; the answer is sent {@code delayMillis} after the request arrives. With
 * {@code answersPerConnection} &gt; 0, a connection that already answered that many requests is
 * closed when the next one arrives, without an answer (a keep-alive connection gone stale).
 */
final class CountingAuthService implements AutoCloseable {
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger requests = new AtomicInteger();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;

    CountingAuthService(SslContext tls, long delayMillis) throws InterruptedException {
        this(tls, delayMillis, 0);
    }

    CountingAuthService(SslContext tls, long delayMillis, int answersPerConnection) throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16),
                                new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    private int answered;

                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                        if (answersPerConnection > 0 && answered == answersPerConnection) {
                                            ctx.close();
                                            return;
                                        }
                                        answered++;
                                        requests.incrementAndGet();
                                        String cookie = req.headers().get("Cookie", "");
                                        FullHttpResponse r;
                                        if (cookie.startsWith("user=")) {
                                            r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                                            r.headers().set("X-User", cookie.substring(5));
                                        } else if (cookie.startsWith("login=")) {
                                            r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.FOUND);
                                            r.headers().set("Location", "https://login.test/start");
                                            r.headers().set("Set-Cookie", "state=" + requests.get());
                                        } else {
                                            r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.UNAUTHORIZED);
                                        }
                                        r.headers().set("Content-Length", 0);
                                        FullHttpResponse answer = r;
                                        ctx.executor().schedule(() -> ctx.writeAndFlush(answer), delayMillis, TimeUnit.MILLISECONDS);
                                    }
                                });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
