package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.paduraksa.server.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RFC 9113 limits and known HTTP/2 attacks against the h2c listener, written frame by frame with a
 * raw client ({@link H2Frames}) so that nothing on the client side tidies the abuse up. Each test
 * asserts what the connection shows: a stream reset with its code, GOAWAY with its code, or the
 * close; and that an abusive request never gets a 200.
 */
class Http2ProtectionsIT {
    static final String YAML = """
            listeners:
              - {name: h2, address: "127.0.0.1:0", protocols: [h2c]}
            limits: {max_header_size: 4KiB}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /, respond: {status: 200, body: "ok\\n"}}
            """;

    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Http2Headers get(String path) {
        return H2Frames.headers("GET", "a.test", path);
    }

    @Test
    void aStreamOverMaxConcurrentStreamsIsRefused() throws Exception {
        // A zero initial window holds every answer's DATA frame back, so the streams stay open.
        try (H2Frames c = H2Frames.connect(server.port("h2"), new Http2Settings().initialWindowSize(0))) {
            c.batch(() -> {
                for (int i = 0; i < 101; i++) {
                    c.headers(1 + 2 * i, get("/s" + i), true);
                }
            });
            List<H2Frames.Frame> frames = c.untilStreamEnds(201);
            H2Frames.Frame last = frames.get(frames.size() - 1);
            assertThat(last.isRst()).as("%s", frames).isTrue();
            assertThat(last.streamId()).isEqualTo(201);
            assertThat(last.errorCode()).isEqualTo(Http2Error.REFUSED_STREAM.code());
            assertThat(frames).filteredOn(f -> f.type() == Http2FrameTypes.HEADERS).hasSize(100)
                    .allMatch(f -> f.status() == 200 && f.streamId() < 201);
            assertThat(c.isOpen()).isTrue();
        }
    }

    @Test
    void aHeaderListOverTheLimitGets431AndFarOverItGoAway() throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("h2"))) {
            // Over max_header_size (4 KiB) but under Netty's GOAWAY threshold (+25 %): the stream only.
            c.headers(1, get("/").set("x-big", "a".repeat(4_500)), true).flush();
            List<H2Frames.Frame> frames = c.untilStreamEnds(1);
            System.out.println("4.5 KiB header list: " + frames);
            // Netty answers 431 on the stream (a server may, RFC 9113 10.5.1) and keeps the connection.
            assertThat(frames).singleElement().satisfies(f -> assertThat(f.status()).isEqualTo(431));
            c.headers(3, get("/"), true).flush();
            assertThat(c.untilStreamEnds(3)).anyMatch(f -> f.status() == 200);

            c.headers(5, get("/").set("x-big", "a".repeat(12_000)), true).flush();
            List<H2Frames.Frame> rest = c.untilClosed(5);
            System.out.println("12 KB header list: " + rest);
            assertThat(rest).noneMatch(f -> f.status() == 200);
            assertThat(rest).filteredOn(H2Frames.Frame::isGoAway).singleElement()
                    .satisfies(f -> assertThat(f.errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code()));
        }
    }

    @Test
    void rapidResetEndsWithGoAwayEnhanceYourCalm() throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("h2"))) {
            c.batch(() -> {
                for (int i = 0; i < 400; i++) {
                    int id = 1 + 2 * i;
                    c.headers(id, get("/r" + i), false);
                    c.rst(id, Http2Error.CANCEL.code());
                }
            });
            List<H2Frames.Frame> frames = c.untilClosed(5);
            assertThat(frames).filteredOn(H2Frames.Frame::isGoAway).singleElement()
                    .satisfies(f -> assertThat(f.errorCode()).as("%s", f).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code()));
        }
    }

    @Test
    void continuationFloodEndsTheConnection() throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("h2"))) {
            byte[] block = hpack(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
            // 100 empty CONTINUATION frames (900 bytes, read in one go, so the server's close does not
            // race unread bytes into a TCP reset that would swallow its GOAWAY); the limit is 16.
            c.batch(() -> {
                c.frame(Http2FrameTypes.HEADERS, 1, new Http2Flags().endOfStream(true), block);
                for (int i = 0; i < 100; i++) {
                    c.frame(Http2FrameTypes.CONTINUATION, 1, new Http2Flags(), new byte[0]);
                }
            });
            List<H2Frames.Frame> frames = c.untilClosed(5);
            System.out.println("CONTINUATION flood: " + frames);
            assertThat(frames).noneMatch(f -> f.status() == 200);
            assertThat(frames).filteredOn(H2Frames.Frame::isGoAway).singleElement()
                    .satisfies(f -> assertThat(f.errorCode()).as("%s", f).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code()));
        }
    }

    static List<Arguments> malformed() {
        return List.of(
                Arguments.of("connection header", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "connection", "keep-alive"}),
                Arguments.of("transfer-encoding", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "transfer-encoding", "chunked"}),
                Arguments.of("te: gzip", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "te", "gzip"}),
                Arguments.of("keep-alive", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "keep-alive", "timeout=5"}),
                Arguments.of("upgrade", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "upgrade", "h2c"}),
                Arguments.of("missing :path", new String[] {":method", "GET", ":scheme", "http", ":authority", "a.test"}),
                Arguments.of("empty :path", new String[] {":method", "GET", ":scheme", "http", ":path", "", ":authority", "a.test"}),
                Arguments.of("missing :method", new String[] {":scheme", "http", ":path", "/", ":authority", "a.test"}),
                Arguments.of("missing :scheme", new String[] {":method", "GET", ":path", "/", ":authority", "a.test"}),
                Arguments.of("unknown pseudo-header", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", ":foo", "bar"}),
                Arguments.of("response pseudo-header", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", ":status", "200"}),
                Arguments.of("duplicate :path", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":path", "/x", ":authority", "a.test"}),
                Arguments.of("pseudo after regular", new String[] {":method", "GET", ":scheme", "http", "x-a", "1", ":path", "/", ":authority", "a.test"}),
                Arguments.of("uppercase name", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "X-Upper", "1"}),
                Arguments.of("space in name", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "x a", "1"}),
                Arguments.of("CR LF in value", new String[] {":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "x-a", "1\r\nx-b: 2"}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void malformedRequestsAreResetAndNeverAnswered(String what, String[] nameValues) throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("h2"))) {
            c.frame(Http2FrameTypes.HEADERS, 1, new Http2Flags().endOfHeaders(true).endOfStream(true), hpack(nameValues)).flush();
            List<H2Frames.Frame> frames = c.untilStreamEnds(1);
            assertThat(frames).noneMatch(f -> f.type() == Http2FrameTypes.HEADERS && f.status() < 300);
            // A stream error (RFC 9113 8.1.1): this stream is reset, the connection goes on.
            assertThat(frames).singleElement().satisfies(f -> {
                assertThat(f.isRst()).as("%s", f).isTrue();
                assertThat(f.errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
            });
            c.headers(3, get("/"), true).flush();
            assertThat(c.untilStreamEnds(3)).anyMatch(f -> f.status() == 200);
        }
    }

    @Test
    void teTrailersIsAllowed() throws Exception {
        try (H2Frames c = H2Frames.connect(server.port("h2"))) {
            byte[] block = hpack(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test", "te", "trailers");
            c.frame(Http2FrameTypes.HEADERS, 1, new Http2Flags().endOfHeaders(true).endOfStream(true), block).flush();
            assertThat(c.untilStreamEnds(1)).anyMatch(f -> f.status() == 200);
        }
    }

    /**
     * An HPACK block of literal fields without indexing and without Huffman (RFC 7541 6.2.2), in
     * the order given, so a test controls order and case that {@code Http2Headers} would change.
     */
    static byte[] hpack(String... nameValues) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < nameValues.length; i += 2) {
            out.write(0);
            string(out, nameValues[i]);
            string(out, nameValues[i + 1]);
        }
        return out.toByteArray();
    }

    private static void string(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        int n = b.length;
        if (n < 127) {
            out.write(n);
        } else {
            out.write(127);
            n -= 127;
            while (n >= 128) {
                out.write((n & 127) | 128);
                n >>>= 7;
            }
            out.write(n);
        }
        out.writeBytes(b);
    }
}
