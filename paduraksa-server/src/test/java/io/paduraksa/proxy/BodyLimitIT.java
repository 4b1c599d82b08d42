package io.paduraksa.proxy;

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
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.ReferenceCountUtil;
import io.paduraksa.server.http2.H2Frames;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code limits.max_body_size} is exact for forwarded bodies: an origin that counts the body bytes
 * it decoded (per request, also for requests cut off by a close) never sees more than the limit,
 * whatever the framing (Content-Length, chunked with tiny or big chunks, HTTP/2 DATA) and however
 * the client splits its writes; bodies at the limit pass whole.
 */
class BodyLimitIT {
    private static final int LIMIT = 1000;
    private static CountingOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new CountingOrigin();
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                limits: {max_body_size: %dB}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /, forward: app}
                """.formatted(LIMIT, origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @BeforeEach
    void clear() {
        origin.seen.clear();
    }

    // ---- HTTP/1.1

    @ParameterizedTest
    @ValueSource(ints = {LIMIT - 1, LIMIT})
    void contentLengthBodyUpToTheLimitPassesWhole(int size) throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("POST /up HTTP/1.1\r\nHost: app.test\r\nContent-Length: " + size + "\r\n\r\n");
            writeInPieces(c.socket().getOutputStream(), size, 7);
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("body-bytes: " + size);
        }
    }

    @Test
    void contentLengthOverTheLimitIsRefusedBeforeForwarding() throws Exception {
        int before = origin.requests.get();
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("POST /up HTTP/1.1\r\nHost: app.test\r\nContent-Length: " + (LIMIT + 1) + "\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(413);
        }
        assertThat(origin.requests.get()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(ints = {LIMIT - 1, LIMIT})
    void chunkedBodyUpToTheLimitPassesWhole(int size) throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("POST /up HTTP/1.1\r\nHost: app.test\r\nTransfer-Encoding: chunked\r\n\r\n");
            OutputStream out = c.socket().getOutputStream();
            writeChunks(out, size, 3);
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("body-bytes: " + size);
        }
    }

    /** Tiny chunks (1 byte), small ones, and one chunk larger than the limit, each flushed on its own. */
    @ParameterizedTest
    @ValueSource(ints = {1, 3, 100, 5000})
    void chunkedBodyOverTheLimitGets413AndTheOriginNeverSeesMoreThanTheLimit(int chunk) throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("POST /up HTTP/1.1\r\nHost: app.test\r\nTransfer-Encoding: chunked\r\n\r\n");
            OutputStream out = c.socket().getOutputStream();
            try {
                writeChunks(out, 3 * LIMIT, chunk);
            } catch (java.io.IOException closed) {
                // the proxy may close while the rest is still being written
            }
            assertThat(c.read().status()).isEqualTo(413);
        }
        assertOriginNeverSawMoreThanTheLimit();
    }

    /** Over the limit in one write: the whole body arrives in one read of the proxy. */
    @Test
    void chunkedBodyOverTheLimitInOneWriteGets413() throws Exception {
        StringBuilder chunks = new StringBuilder();
        for (int i = 0; i < 3 * LIMIT / 10; i++) {
            chunks.append("a\r\n").append("x".repeat(10)).append("\r\n");
        }
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("POST /up HTTP/1.1\r\nHost: app.test\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks);
            assertThat(c.read().status()).isEqualTo(413);
        }
        assertOriginNeverSawMoreThanTheLimit();
    }

    /** The upstream answered before the body ended: the client's response is cut off, never followed by a 413. */
    @Test
    void chunkedBodyOverTheLimitAfterTheResponseStartedCutsTheResponseOff() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("POST /early HTTP/1.1\r\nHost: app.test\r\nTransfer-Encoding: chunked\r\n\r\n");
            java.io.InputStream in = c.socket().getInputStream();
            byte[] start = in.readNBytes(17);
            assertThat(new String(start, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200 OK\r\n");
            // The limit, then one byte more: the whole body is read, so the close is a FIN, not a reset.
            writeChunks(c.socket().getOutputStream(), LIMIT, LIMIT);
            c.send("1\r\nx\r\n");
            String rest = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(rest).endsWith("started...").doesNotContain("413");
        }
        assertOriginNeverSawMoreThanTheLimit();
    }

    // ---- HTTP/2

    @ParameterizedTest
    @ValueSource(ints = {LIMIT - 1, LIMIT})
    void dataUpToTheLimitPassesWhole(int size) throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("public"))) {
            c.headers(1, H2Frames.headers("POST", "app.test", "/up"), false);
            sendData(c, 1, size, 9, true);
            List<H2Frames.Frame> frames = c.untilStreamEnds(1);
            assertThat(frames.get(0).status()).isEqualTo(200);
            assertThat(frames.get(1).data()).isEqualTo("body-bytes: " + size);
        }
    }

    @Test
    void declaredContentLengthOverTheLimitGets413BeforeForwarding() throws Exception {
        int before = origin.requests.get();
        try (H2Frames c = H2Frames.connect(server.port("public"))) {
            Http2Headers h = H2Frames.headers("POST", "app.test", "/up");
            h.add("content-length", String.valueOf(LIMIT + 1));
            c.headers(1, h, false).flush();
            List<H2Frames.Frame> frames = c.untilStreamEnds(1);
            assertThat(frames.get(0).status()).isEqualTo(413);
        }
        assertThat(origin.requests.get()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 333, 5000})
    void dataOverTheLimitGets413AndTheOriginNeverSeesMoreThanTheLimit(int frame) throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("public"))) {
            c.headers(1, H2Frames.headers("POST", "app.test", "/up"), false).flush();
            sendData(c, 1, 3 * LIMIT, frame, false);
            List<H2Frames.Frame> frames = c.untilStreamEnds(1);
            assertThat(frames.get(0).status()).isEqualTo(413);
        }
        assertOriginNeverSawMoreThanTheLimit();
    }

    /**
     * A client that keeps sending DATA after the 413 and its reset gets RST_STREAM(STREAM_CLOSED)
     * per frame from Netty; one that stops keeps a usable connection.
     */
    @Test
    void theConnectionStaysUsableAfterA413() throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("public"))) {
            c.headers(1, H2Frames.headers("POST", "app.test", "/up"), false);
            sendData(c, 1, LIMIT + 1, LIMIT + 1, false);
            assertThat(c.untilStreamEnds(1).get(0).status()).isEqualTo(413);
            c.headers(3, H2Frames.headers("POST", "app.test", "/up"), false);
            sendData(c, 3, 10, 10, true);
            List<H2Frames.Frame> next = c.untilStreamEnds(3);
            assertThat(next).as(next.toString()).filteredOn(f -> f.streamId() == 3 && f.headers() != null)
                    .extracting(H2Frames.Frame::status).containsExactly(200);
        }
        assertOriginNeverSawMoreThanTheLimit();
    }

    @Test
    void dataOverTheLimitAfterTheResponseStartedResetsTheStream() throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("public"))) {
            c.headers(1, H2Frames.headers("POST", "app.test", "/early"), false).flush();
            assertThat(c.next().status()).isEqualTo(200);
            sendData(c, 1, 3 * LIMIT, 100, false);
            List<H2Frames.Frame> frames = c.untilStreamEnds(1);
            assertThat(frames.get(frames.size() - 1).isRst()).as(frames.toString()).isTrue();
            assertThat(frames.get(frames.size() - 1).errorCode()).isEqualTo(2L); // INTERNAL_ERROR
        }
        assertOriginNeverSawMoreThanTheLimit();
    }

    // ---- helpers

    private static void assertOriginNeverSawMoreThanTheLimit() {
        // The cut request reached the origin (or never did: refused before its head was written there).
        Await.until("the origin to see no request in progress", () -> origin.inProgress.get() == 0);
        assertThat(origin.seen).allSatisfy(n -> assertThat(n).as("body bytes the origin received").isLessThanOrEqualTo(LIMIT));
    }

    private static void writeInPieces(OutputStream out, int size, int piece) throws Exception {
        for (int sent = 0; sent < size; sent += piece) {
            out.write("x".repeat(Math.min(piece, size - sent)).getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
    }

    private static void writeChunks(OutputStream out, int size, int chunk) throws Exception {
        for (int sent = 0; sent < size; sent += chunk) {
            int n = Math.min(chunk, size - sent);
            out.write((Integer.toHexString(n) + "\r\n" + "x".repeat(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
    }

    private static void sendData(H2Frames c, int stream, int size, int frame, boolean end) {
        for (int sent = 0; sent < size; sent += frame) {
            int n = Math.min(frame, size - sent);
            c.data(stream, "x".repeat(n), end && sent + n == size).flush();
        }
    }

    /** Decodes requests and records each one's body bytes when it ends or its connection closes; answers "body-bytes: N". */
    static final class CountingOrigin implements AutoCloseable {
        final ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger inProgress = new AtomicInteger();
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                new io.netty.util.concurrent.DefaultThreadFactory("counting-origin"), NioIoHandler.newFactory());
        private final Channel server;

        CountingOrigin() throws InterruptedException {
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpRequestDecoder(), new Counter());
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        }

        String url() {
            return "http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
        }

        @Override
        public void close() {
            server.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }

        private final class Counter extends ChannelInboundHandlerAdapter {
            private long body = -1;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                try {
                    if (msg instanceof HttpRequest r) {
                        requests.incrementAndGet();
                        inProgress.incrementAndGet();
                        body = 0;
                        if (r.uri().equals("/early")) { // answers before the body: a response that has started
                            ctx.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nstarted...",
                                    StandardCharsets.US_ASCII));
                        }
                    }
                    if (msg instanceof HttpContent c) {
                        body += c.content().readableBytes();
                    }
                    if (msg instanceof LastHttpContent) {
                        seen.add(body);
                        inProgress.decrementAndGet();
                        byte[] text = ("body-bytes: " + body).getBytes(StandardCharsets.US_ASCII);
                        body = -1;
                        ctx.write(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: " + text.length + "\r\n\r\n",
                                StandardCharsets.US_ASCII));
                        ctx.writeAndFlush(Unpooled.wrappedBuffer(text));
                    }
                } finally {
                    ReferenceCountUtil.release(msg);
                }
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                if (body >= 0) {
                    seen.add(body); // cut off mid-body
                    inProgress.decrementAndGet();
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        }
    }
}
