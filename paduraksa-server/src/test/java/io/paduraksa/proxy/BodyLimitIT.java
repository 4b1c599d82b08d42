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
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.ReferenceCountUtil;
import io.paduraksa.server.http2.H2Frames;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code limits.max_body_size} is exact for forwarded bodies: an origin that counts the body bytes
 * it decoded (per request, also for requests cut off by a close or a stream reset) never sees more
 * than the limit, whatever the framing from the client (Content-Length, chunked with tiny or big
 * chunks, HTTP/2 DATA) and however the client splits its writes, and a request cut at the limit
 * never ends normally there (its connection closes or its stream is reset: the upstream cannot take
 * a cut body for a whole one); bodies at the limit pass whole. Each case runs against an HTTP/1.1
 * upstream and an h2c one ({@link Http1Upstream}, {@link H2cUpstream}).
 */
class BodyLimitIT {
    private static final int LIMIT = 1000;
    private static CountingOrigin origin;
    private static CountingH2Origin h2Origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new CountingOrigin();
        h2Origin = new CountingH2Origin();
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                limits: {max_body_size: %dB}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                  h2app:
                    protocol: h2c
                    destinations: [{url: "%s"}]
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /, forward: app}
                  - names: [h2.test]
                    routes:
                      - {path: /, forward: h2app}
                """.formatted(LIMIT, origin.url(), h2Origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
        h2Origin.close();
    }

    /** An HTTP/1.1 upstream (cluster {@code app}). */
    @Nested
    class Http1Upstream extends Cases {
        @Override
        String host() {
            return "app.test";
        }

        @Override
        Counts counts() {
            return origin.counts;
        }
    }

    /** An h2c upstream (cluster {@code h2app}, {@code protocol: h2c}): a cut request is a reset stream there. */
    @Nested
    class H2cUpstream extends Cases {
        @Override
        String host() {
            return "h2.test";
        }

        @Override
        Counts counts() {
            return h2Origin.counts;
        }
    }

    /** The cases, against the upstream that {@link #host()} forwards to. */
    abstract static class Cases {
        /** The host whose route forwards to this upstream. */
        abstract String host();

        /** What that upstream's origin saw. */
        abstract Counts counts();

        @BeforeEach
        void clear() {
            counts().clear();
        }

        // ---- HTTP/1.1

        @ParameterizedTest
        @ValueSource(ints = {LIMIT - 1, LIMIT})
        void contentLengthBodyUpToTheLimitPassesWhole(int size) throws Exception {
            try (RawHttp c = new RawHttp(server.port("public"))) {
                c.send("POST /up HTTP/1.1\r\nHost: " + host() + "\r\nContent-Length: " + size + "\r\n\r\n");
                writeInPieces(c.socket().getOutputStream(), size, 7);
                RawHttp.Response r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("body-bytes: " + size);
            }
        }

        @Test
        void contentLengthOverTheLimitIsRefusedBeforeForwarding() throws Exception {
            int before = counts().requests.get();
            try (RawHttp c = new RawHttp(server.port("public"))) {
                c.send("POST /up HTTP/1.1\r\nHost: " + host() + "\r\nContent-Length: " + (LIMIT + 1) + "\r\n\r\n");
                assertThat(c.read().status()).isEqualTo(413);
            }
            assertThat(counts().requests.get()).isEqualTo(before);
        }

        @ParameterizedTest
        @ValueSource(ints = {LIMIT - 1, LIMIT})
        void chunkedBodyUpToTheLimitPassesWhole(int size) throws Exception {
            try (RawHttp c = new RawHttp(server.port("public"))) {
                c.send("POST /up HTTP/1.1\r\nHost: " + host() + "\r\nTransfer-Encoding: chunked\r\n\r\n");
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
                c.send("POST /up HTTP/1.1\r\nHost: " + host() + "\r\nTransfer-Encoding: chunked\r\n\r\n");
                OutputStream out = c.socket().getOutputStream();
                try {
                    writeChunks(out, 3 * LIMIT, chunk);
                } catch (java.io.IOException closed) {
                    // the proxy may close while the rest is still being written
                }
                assertThat(c.read().status()).isEqualTo(413);
            }
            assertOriginNeverSawMoreThanTheLimit();
            assertNoCutRequestCompletedAtTheOrigin();
        }

        /** Over the limit in one write: the whole body arrives in one read of the proxy. */
        @Test
        void chunkedBodyOverTheLimitInOneWriteGets413() throws Exception {
            StringBuilder chunks = new StringBuilder();
            for (int i = 0; i < 3 * LIMIT / 10; i++) {
                chunks.append("a\r\n").append("x".repeat(10)).append("\r\n");
            }
            try (RawHttp c = new RawHttp(server.port("public"))) {
                c.send("POST /up HTTP/1.1\r\nHost: " + host() + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks);
                assertThat(c.read().status()).isEqualTo(413);
            }
            assertOriginNeverSawMoreThanTheLimit();
            assertNoCutRequestCompletedAtTheOrigin();
        }

        /** The upstream answered before the body ended: the client's response is cut off, never followed by a 413. */
        @Test
        void chunkedBodyOverTheLimitAfterTheResponseStartedCutsTheResponseOff() throws Exception {
            try (RawHttp c = new RawHttp(server.port("public"))) {
                c.send("POST /early HTTP/1.1\r\nHost: " + host() + "\r\nTransfer-Encoding: chunked\r\n\r\n");
                java.io.InputStream in = c.socket().getInputStream();
                // Up to the body's first bytes: an h2c upstream's HEADERS and DATA can reach the proxy in two
                // reads, and only a response whose body has started is the case under test.
                String started = readUntil(in, "started...");
                assertThat(started).startsWith("HTTP/1.1 200 OK\r\n").contains("Content-Length: 100000").endsWith("started...");
                // The limit, then one byte more: the whole body is read, so the close is a FIN, not a reset.
                writeChunks(c.socket().getOutputStream(), LIMIT, LIMIT);
                c.send("1\r\nx\r\n");
                String rest = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(rest).as("nothing after the cut: no more body, no 413").isEmpty();
            }
            assertOriginNeverSawMoreThanTheLimit();
            assertNoCutRequestCompletedAtTheOrigin();
        }

        /** The bytes read until {@code end} has arrived (the socket's read timeout bounds the wait). */
        private static String readUntil(java.io.InputStream in, String end) throws java.io.IOException {
            StringBuilder got = new StringBuilder();
            while (got.length() < 4096 && !got.toString().endsWith(end)) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                got.append((char) b);
            }
            return got.toString();
        }

        // ---- HTTP/2

        @ParameterizedTest
        @ValueSource(ints = {LIMIT - 1, LIMIT})
        void dataUpToTheLimitPassesWhole(int size) throws Exception {
            try (H2Frames c = H2Frames.connect(server.port("public"))) {
                c.headers(1, H2Frames.headers("POST", host(), "/up"), false);
                sendData(c, 1, size, 9, true);
                List<H2Frames.Frame> frames = c.untilStreamEnds(1);
                assertThat(frames.get(0).status()).isEqualTo(200);
                assertThat(frames.get(1).data()).isEqualTo("body-bytes: " + size);
            }
        }

        @Test
        void declaredContentLengthOverTheLimitGets413BeforeForwarding() throws Exception {
            int before = counts().requests.get();
            try (H2Frames c = H2Frames.connect(server.port("public"))) {
                Http2Headers h = H2Frames.headers("POST", host(), "/up");
                h.add("content-length", String.valueOf(LIMIT + 1));
                c.headers(1, h, false).flush();
                List<H2Frames.Frame> frames = c.untilStreamEnds(1);
                assertThat(frames.get(0).status()).isEqualTo(413);
            }
            assertThat(counts().requests.get()).isEqualTo(before);
        }

        @ParameterizedTest
        @ValueSource(ints = {1, 10, 333, 5000})
        void dataOverTheLimitGets413AndTheOriginNeverSeesMoreThanTheLimit(int frame) throws Exception {
            try (H2Frames c = H2Frames.connect(server.port("public"))) {
                c.headers(1, H2Frames.headers("POST", host(), "/up"), false).flush();
                sendData(c, 1, 3 * LIMIT, frame, false);
                List<H2Frames.Frame> frames = c.untilStreamEnds(1);
                assertThat(frames.get(0).status()).as("frames: %s", frames).isEqualTo(413); // seen once under load: not a HEADERS first
            }
            assertOriginNeverSawMoreThanTheLimit();
            assertNoCutRequestCompletedAtTheOrigin();
        }

        /**
         * A client that keeps sending DATA after the 413 and its reset gets RST_STREAM(STREAM_CLOSED)
         * per frame from Netty; one that stops keeps a usable connection.
         */
        @Test
        void theConnectionStaysUsableAfterA413() throws Exception {
            try (H2Frames c = H2Frames.connect(server.port("public"))) {
                c.headers(1, H2Frames.headers("POST", host(), "/up"), false);
                sendData(c, 1, LIMIT + 1, LIMIT + 1, false);
                assertThat(c.untilStreamEnds(1).get(0).status()).isEqualTo(413);
                c.headers(3, H2Frames.headers("POST", host(), "/up"), false);
                sendData(c, 3, 10, 10, true);
                List<H2Frames.Frame> next = c.untilStreamEnds(3);
                assertThat(next).as(next.toString()).filteredOn(f -> f.streamId() == 3 && f.headers() != null)
                        .extracting(H2Frames.Frame::status).containsExactly(200);
            }
            assertOriginNeverSawMoreThanTheLimit();
            assertThat(counts().completed).as("requests the origin saw end normally: only the second").containsExactly(10L);
        }

        @Test
        void dataOverTheLimitAfterTheResponseStartedResetsTheStream() throws Exception {
            try (H2Frames c = H2Frames.connect(server.port("public"))) {
                c.headers(1, H2Frames.headers("POST", host(), "/early"), false).flush();
                assertThat(c.next().status()).isEqualTo(200);
                sendData(c, 1, 3 * LIMIT, 100, false);
                List<H2Frames.Frame> frames = c.untilStreamEnds(1);
                assertThat(frames.get(frames.size() - 1).isRst()).as(frames.toString()).isTrue();
                assertThat(frames.get(frames.size() - 1).errorCode()).isEqualTo(2L); // INTERNAL_ERROR
            }
            assertOriginNeverSawMoreThanTheLimit();
            assertNoCutRequestCompletedAtTheOrigin();
        }

        // ---- helpers

        private void assertOriginNeverSawMoreThanTheLimit() {
            // The cut request reached the origin (or never did: refused before its head was written there).
            Await.until("the origin to see no request in progress", () -> counts().inProgress.get() == 0);
            assertThat(counts().seen).allSatisfy(n -> assertThat(n).as("body bytes the origin received").isLessThanOrEqualTo(LIMIT));
        }

        /** A body cut at the limit must not reach the origin as a complete request (END_STREAM, a last chunk). */
        private void assertNoCutRequestCompletedAtTheOrigin() {
            assertThat(counts().completed).as("body sizes of requests the origin saw end normally").isEmpty();
        }
    }

    // ---- shared helpers

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

    /** What an origin saw: each request's body bytes (when it ended or was cut), and those that ended normally. */
    static final class Counts {
        /** Body bytes per request, recorded when it ended, its stream was reset or its connection closed. */
        final ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
        /** Body bytes of the requests that ended normally (last chunk, declared length, END_STREAM). */
        final ConcurrentLinkedQueue<Long> completed = new ConcurrentLinkedQueue<>();
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger inProgress = new AtomicInteger();

        void started() {
            requests.incrementAndGet();
            inProgress.incrementAndGet();
        }

        void ended(long body, boolean normally) {
            seen.add(body);
            if (normally) {
                completed.add(body);
            }
            inProgress.decrementAndGet();
        }

        void clear() {
            seen.clear();
            completed.clear();
        }
    }

    /** Decodes requests and records each one's body bytes when it ends or its connection closes; answers "body-bytes: N". */
    static final class CountingOrigin implements AutoCloseable {
        final Counts counts = new Counts();
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
                        counts.started();
                        body = 0;
                        if (r.uri().equals("/early")) { // answers before the body: a response that has started
                            ctx.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nstarted...",
                                    StandardCharsets.US_ASCII));
                        }
                    }
                    if (msg instanceof HttpContent c) {
                        body += c.content().readableBytes();
                    }
                    if (msg instanceof LastHttpContent last) {
                        // Netty's decoder ends a body cut by the close with a failed LastHttpContent.
                        boolean whole = last.decoderResult().isSuccess();
                        counts.ended(body, whole);
                        byte[] text = ("body-bytes: " + body).getBytes(StandardCharsets.US_ASCII);
                        body = -1;
                        if (whole) {
                            ctx.write(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: " + text.length + "\r\n\r\n",
                                    StandardCharsets.US_ASCII));
                            ctx.writeAndFlush(Unpooled.wrappedBuffer(text));
                        }
                    }
                } finally {
                    ReferenceCountUtil.release(msg);
                }
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                if (body >= 0) {
                    counts.ended(body, false); // cut off mid-body
                    body = -1;
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        }
    }

    /**
     * The same over h2c (Netty's server {@link Http2ConnectionHandler}): counts each stream's DATA
     * bytes, recorded at END_STREAM (then answered "body-bytes: N"), at a RST_STREAM from the proxy,
     * or when the connection closes; {@code /early} answers its head and some body at once and never
     * ends, as the HTTP/1.1 origin does.
     */
    static final class CountingH2Origin implements AutoCloseable {
        final Counts counts = new Counts();
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                new io.netty.util.concurrent.DefaultThreadFactory("counting-h2-origin"), NioIoHandler.newFactory());
        private final Channel server;

        CountingH2Origin() throws InterruptedException {
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            Counter counter = new Counter();
                            Http2ConnectionHandler h = new Http2ConnectionHandlerBuilder().server(true)
                                    .frameListener(counter).build();
                            counter.handler = h;
                            ch.pipeline().addLast(h, counter.closes);
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

        private final class Counter extends Http2FrameAdapter {
            /** Body bytes per stream still in progress. */
            private final Map<Integer, Long> bodies = new HashMap<>();
            Http2ConnectionHandler handler;
            /** Streams still in progress when the connection closes were cut. */
            final ChannelInboundHandlerAdapter closes = new ChannelInboundHandlerAdapter() {
                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                    for (long body : bodies.values()) {
                        counts.ended(body, false);
                    }
                    bodies.clear();
                    ctx.fireChannelInactive();
                }
            };

            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
                if (!bodies.containsKey(streamId)) {
                    counts.started();
                    bodies.put(streamId, 0L);
                    if (headers.path().toString().equals("/early")) {
                        Http2Headers head = new DefaultHttp2Headers().status("200").setInt("content-length", 100_000);
                        handler.encoder().writeHeaders(ctx, streamId, head, 0, false, ctx.newPromise());
                        handler.encoder().writeData(ctx, streamId, Unpooled.copiedBuffer("started...", StandardCharsets.US_ASCII),
                                0, false, ctx.newPromise());
                        ctx.flush();
                    }
                }
                if (endOfStream) {
                    end(ctx, streamId);
                }
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                      short weight, boolean exclusive, int padding, boolean endOfStream) {
                onHeadersRead(ctx, streamId, headers, padding, endOfStream);
            }

            @Override
            public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
                int n = data.readableBytes();
                bodies.computeIfPresent(streamId, (id, body) -> body + n);
                if (endOfStream) {
                    end(ctx, streamId);
                }
                return n + padding;
            }

            @Override
            public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
                Long body = bodies.remove(streamId);
                if (body != null) {
                    counts.ended(body, false);
                }
            }

            private void end(ChannelHandlerContext ctx, int streamId) {
                Long body = bodies.remove(streamId);
                if (body == null) {
                    return;
                }
                counts.ended(body, true);
                handler.encoder().writeHeaders(ctx, streamId, new DefaultHttp2Headers().status("200"), 0, false, ctx.newPromise());
                handler.encoder().writeData(ctx, streamId, Unpooled.copiedBuffer("body-bytes: " + body, StandardCharsets.US_ASCII),
                        0, true, ctx.newPromise());
                ctx.flush();
            }
        }
    }
}
