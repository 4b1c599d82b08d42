package io.paduraksa.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A hostile upstream through the whole server (real forwarder, real sockets, one event loop so
 * that every request shares one upstream pool): responses framed so that a lax parser would read
 * the bytes after them ({@code evil}) as the answer to the next request. The client must never see
 * them, and the upstream connection must not be reused: the next request gets its own answer on a
 * new upstream connection. The control shows that a well-framed response's connection is reused.
 */
class UpstreamFramingIT {
    static final String EVIL = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil";

    /** Canned responses by name ({@code GET /r/<name>}); the origin keeps the connection open after each. */
    static final Map<String, String> RESPONSES = Map.ofEntries(
            Map.entry("ok", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
            Map.entry("cl-and-te", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + EVIL),
            Map.entry("te-and-cl", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 60\r\n\r\n0\r\n\r\n" + EVIL),
            Map.entry("two-cl", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 4\r\n\r\nok" + EVIL),
            Map.entry("cl-09-and-9", "HTTP/1.1 200 OK\r\nContent-Length: 02\r\nContent-Length: 2\r\n\r\nok" + EVIL),
            Map.entry("bare-lf", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok" + EVIL),
            Map.entry("obs-fold", "HTTP/1.1 200 OK\r\nX-Folded: a\r\n Content-Length: 50\r\nContent-Length: 2\r\n\r\nok" + EVIL),
            Map.entry("nul", "HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 2\r\n\r\nok" + EVIL),
            Map.entry("te-xchunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n2\r\nok\r\n0\r\n\r\n" + EVIL),
            Map.entry("chunk-ext-quote", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"x\r\nok\r\n0\r\n\r\n" + EVIL),
            Map.entry("204-with-body", "HTTP/1.1 204 No Content\r\nContent-Length: 42\r\n\r\n" + EVIL),
            Map.entry("304-with-body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 42\r\n\r\n" + EVIL),
            Map.entry("head-with-body", "HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n" + EVIL),
            Map.entry("unsolicited-second", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" + EVIL));

    static EventLoopGroup originGroup;
    static Channel origin;
    static final AtomicInteger ORIGIN_CONNECTIONS = new AtomicInteger();
    static TestServer server;

    @BeforeAll
    static void start() throws InterruptedException {
        originGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("hostile-origin"), NioIoHandler.newFactory());
        origin = new ServerBootstrap().group(originGroup).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ORIGIN_CONNECTIONS.incrementAndGet();
                        ch.pipeline().addLast(new HttpRequestDecoder(), new Scripted());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        server = TestServer.start("""
                server: {threads: 1}
                listeners:
                  - {name: web, address: "127.0.0.1:0", protocols: [http1]}
                clusters:
                  app: {destinations: [{url: "http://127.0.0.1:%d"}]}
                hosts:
                  - names: [app.test]
                    routes: [{path: /, forward: app}]
                """.formatted(((InetSocketAddress) origin.localAddress()).getPort()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close().syncUninterruptibly();
        originGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Answers {@code /r/<name>} with the canned bytes and anything else with {@code next}. */
    static final class Scripted extends ChannelInboundHandlerAdapter {
        private String path;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest r) {
                    path = r.uri();
                }
                if (msg instanceof LastHttpContent) {
                    String answer = path.startsWith("/r/") ? RESPONSES.get(path.substring(3))
                            : "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext";
                    ctx.writeAndFlush(Unpooled.copiedBuffer(answer, StandardCharsets.ISO_8859_1));
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }
    }

    static Stream<Arguments> hostile() {
        return Stream.of(
                Arguments.of("cl-and-te", "GET"), Arguments.of("te-and-cl", "GET"), Arguments.of("two-cl", "GET"),
                Arguments.of("cl-09-and-9", "GET"), Arguments.of("bare-lf", "GET"), Arguments.of("obs-fold", "GET"),
                Arguments.of("nul", "GET"), Arguments.of("te-xchunked", "GET"), Arguments.of("chunk-ext-quote", "GET"),
                Arguments.of("204-with-body", "GET"), Arguments.of("304-with-body", "GET"),
                Arguments.of("head-with-body", "HEAD"), Arguments.of("unsolicited-second", "GET"));
    }

    /** What the client reads for {@code method /r/name}: the response, or what came before the close. */
    static String firstExchange(String name, String method) throws IOException {
        try (RawHttp c = new RawHttp(server.port("web"))) {
            c.send(method + " /r/" + name + " HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n");
            return c.readAll();
        }
    }

    static String next() throws IOException {
        try (RawHttp c = new RawHttp(server.port("web"))) {
            return c.exchange("GET /next HTTP/1.1\r\nHost: app.test\r\n\r\n").body();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostile")
    void theBytesAfterAHostileResponseNeverReachAClient(String name, String method) throws Exception {
        assertThat(next()).as("warm: a pooled upstream connection exists").isEqualTo("next");
        int before = ORIGIN_CONNECTIONS.get();
        String first = firstExchange(name, method);
        assertThat(first).as("what the client got").doesNotContain("evil");
        assertThat(next()).as("the next request's answer").isEqualTo("next");
        assertThat(ORIGIN_CONNECTIONS.get()).as("upstream connections opened for it (not reused)").isGreaterThan(before);
    }

    @Test
    void aWellFramedResponsesConnectionIsReused() throws Exception {
        assertThat(next()).isEqualTo("next");
        int before = ORIGIN_CONNECTIONS.get();
        assertThat(firstExchange("ok", "GET")).endsWith("\r\n\r\nok");
        assertThat(next()).isEqualTo("next");
        assertThat(ORIGIN_CONNECTIONS.get()).as("no new upstream connection").isEqualTo(before);
    }
}
