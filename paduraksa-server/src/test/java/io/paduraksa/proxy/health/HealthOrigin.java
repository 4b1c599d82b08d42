package io.paduraksa.proxy.health;

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
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.paduraksa.server.http2.H2Client;
import java.net.InetSocketAddress;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A health endpoint for the checker's tests: answers every request with {@link #status} and no
 * body, over HTTP/1.1 only, HTTP/2 with prior knowledge only (h2c), or HTTP/2 over TLS with the
 * test certificate for {@code a.test} and the ALPN protocols given. Counts requests and keeps the
 * authority (Host or {@code :authority}) and path of each.
 */
final class HealthOrigin implements AutoCloseable {
    enum Mode { HTTP1, H2C, H2_TLS }

    final AtomicInteger status = new AtomicInteger(200);
    final AtomicInteger requests = new AtomicInteger();
    /** Requests answered with a 5xx: counted with the status each one got (a test may switch it mid-request). */
    final AtomicInteger failed = new AtomicInteger();
    final Queue<String> seen = new ConcurrentLinkedQueue<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;

    HealthOrigin(Mode mode) throws Exception {
        this(mode, "127.0.0.1", 0, "h2");
    }

    HealthOrigin(Mode mode, String host, int port, String... alpn) throws Exception {
        SslContext tls = mode != Mode.H2_TLS ? null : SslContextBuilder
                .forServer(H2Client.testFile("a-test-chain.pem").toFile(), H2Client.testFile("a-test.key").toFile())
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn))
                .build();
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        if (mode == Mode.HTTP1) {
                            ch.pipeline().addLast(new HttpServerCodec(), new Http1Answer());
                        } else {
                            ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Http2Answer());
                        }
                    }
                })
                .bind(new InetSocketAddress(host, port)).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Counts a request and returns the status it gets. */
    private int answer() {
        int answer = status.get();
        requests.incrementAndGet();
        if (answer >= 500) {
            failed.incrementAndGet();
        }
        return answer;
    }

    private final class Http1Answer extends SimpleChannelInboundHandler<HttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpRequest request) {
            int answer = answer();
            seen.add(request.headers().get(HttpHeaderNames.HOST) + " " + request.uri());
            DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(answer));
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
            ctx.writeAndFlush(response);
        }
    }

    private final class Http2Answer extends SimpleChannelInboundHandler<Http2HeadersFrame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Http2HeadersFrame frame) {
            int answer = answer();
            seen.add(frame.headers().authority() + " " + frame.headers().path());
            ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status(Integer.toString(answer)), true)
                    .stream(frame.stream()));
        }
    }
}
