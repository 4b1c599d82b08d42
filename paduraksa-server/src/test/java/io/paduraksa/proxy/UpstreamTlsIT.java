package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HTTP/1.1 over TLS to an upstream (an {@code https://} destination): certificate verification
 * against a configured CA, the SNI name sent and verified, and what happens when verification
 * fails (502, nothing forwarded). The upstream is a TLS server with the test certificate for
 * {@code a.test}, signed by the test CA.
 */
class UpstreamTlsIT {
    private static EventLoopGroup group;
    private static Channel origin;
    private static final AtomicReference<String> lastSni = new AtomicReference<>();
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        SslContext tls = SslContextBuilder.forServer(H2Client.testFile("a-test-chain.pem").toFile(),
                H2Client.testFile("a-test.key").toFile()).build();
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        origin = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = tls.newHandler(ch.alloc());
                        ch.pipeline().addLast(ssl, new HttpServerCodec(), new HttpObjectAggregator(1 << 16), new Echo(ssl));
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        int port = ((InetSocketAddress) origin.localAddress()).getPort();
        String ca = H2Client.testFile("ca.pem").toString();
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                clusters:
                  verified: {destinations: [{url: "https://127.0.0.1:%1$d"}], tls: {verify: true, ca: "%2$s", sni: a.test}}
                  system-trust: {destinations: [{url: "https://127.0.0.1:%1$d"}], tls: {verify: true, sni: a.test}}
                  wrong-name: {destinations: [{url: "https://127.0.0.1:%1$d"}], tls: {verify: true, ca: "%2$s", sni: b.test}}
                  unverified: {destinations: [{url: "https://127.0.0.1:%1$d"}], tls: {verify: false}}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /verified, forward: verified}
                      - {path: /system-trust, forward: system-trust}
                      - {path: /wrong-name, forward: wrong-name}
                      - {path: /unverified, forward: unverified}
                """.formatted(port, ca));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @ParameterizedTest
    @CsvSource({
        "/verified,     200, a.test",
        "/unverified,   200, ",
        "/system-trust, 502, ",
        "/wrong-name,   502, ",
    })
    void tlsToTheUpstreamIsVerifiedAsConfigured(String path, int status, String sni) throws Exception {
        lastSni.set(null);
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET " + path + " HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(status);
            if (status == 200) {
                assertThat(r.body()).isEqualTo("secure GET " + path);
                assertThat(lastSni.get()).isEqualTo(sni);
            }
        }
    }

    /** Answers "secure METHOD URI" and remembers the SNI name the client sent. */
    private static final class Echo extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final SslHandler ssl;

        Echo(SslHandler ssl) {
            this.ssl = ssl;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            var session = ssl.engine().getSession();
            String sni = null;
            if (session instanceof javax.net.ssl.ExtendedSSLSession ext) {
                for (var name : ext.getRequestedServerNames()) {
                    if (name instanceof javax.net.ssl.SNIHostName host) {
                        sni = host.getAsciiName();
                    }
                }
            }
            lastSni.set(sni);
            byte[] body = ("secure " + req.method() + " " + req.uri()).getBytes(StandardCharsets.US_ASCII);
            DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(body));
            res.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            ctx.writeAndFlush(res);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // the refused handshakes of the failing cases: expected
        }
    }
}
