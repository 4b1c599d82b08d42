package io.paduraksa.server.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.RecordingOrigin;
import io.paduraksa.server.testing.TestServer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ambiguous or malformed framing over a real socket, through the whole server with its real
 * forwarder to a real loopback origin that records every byte and request it receives: each request
 * is refused and the connection closed, and a second request written right behind it in the same
 * write (the smuggled one, for a forwarded path) is never answered and never reaches the origin.
 * A body error is seen after the gate let the head through, while the request is being forwarded.
 */
class Http1FramingIT {
    static final String YAML = """
            listeners:
              - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
            clusters:
              app: {destinations: [{url: "%s"}]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /static, respond: {status: 200, body: "static\\n"}}
                  - {path: /upload, forward: app}
            """;
    static final String SMUGGLED = "GET /upload/smuggled HTTP/1.1\r\nHost: a.test\r\n\r\n";
    static final String POST = "POST /upload HTTP/1.1\r\nHost: a.test\r\n";

    static RecordingOrigin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws InterruptedException {
        origin = new RecordingOrigin();
        server = TestServer.start(YAML.formatted(origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    /**
     * After the refused connection closed, a marker request on a new connection reaches the origin;
     * by then anything smuggled on the old one would have too. The origin must not have seen it.
     */
    static void assertTheOriginNeverSawTheSmuggledRequest() throws Exception {
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            assertThat(c.exchange("GET /upload/marker HTTP/1.1\r\nHost: a.test\r\n\r\n").body()).isEqualTo("upstream");
        }
        Await.until("the origin saw the marker", () -> origin.requests().contains("GET /upload/marker"));
        assertThat(origin.requests()).as("requests the origin saw").noneMatch(r -> r.contains("smuggled"));
        assertThat(origin.bytes()).as("bytes the origin received").doesNotContain("smuggled");
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                refused("Content-Length with Transfer-Encoding", 400,
                        POST + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                refused("Transfer-Encoding with Content-Length", 400,
                        POST + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"),
                refused("two different Content-Length", 400, POST + "Content-Length: 4\r\nContent-Length: 5\r\n\r\nabcde"),
                refused("two equal Content-Length", 400, POST + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nabcde"),
                refused("Content-Length as a list", 400, POST + "Content-Length: 5, 5\r\n\r\nabcde"),
                refused("Content-Length with a plus sign", 400, POST + "Content-Length: +5\r\n\r\nabcde"),
                refused("negative Content-Length", 400, POST + "Content-Length: -1\r\n\r\n"),
                refused("Content-Length in hex", 400, POST + "Content-Length: 0x5\r\n\r\nabcde"),
                refused("Transfer-Encoding: xchunked", 400, POST + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
                refused("Transfer-Encoding: chunked, identity", 400, POST + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"),
                refused("Transfer-Encoding: chunked twice", 400, POST + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                refused("Transfer-Encoding: identity", 400, POST + "Transfer-Encoding: identity\r\n\r\n0\r\n\r\n"),
                refused("Transfer-Encoding: gzip, chunked (not implemented)", 501, POST + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
                refused("space before the colon", 400, POST + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
                refused("tab before the colon", 400, POST + "Content-Length\t: 5\r\n\r\nabcde"),
                refused("Transfer-Encoding in HTTP/1.0", 400,
                        "POST /upload HTTP/1.0\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                refused("obs-fold", 400, "GET /static HTTP/1.1\r\nHost: a.test\r\nX-Folded: a\r\n b\r\n\r\n"),
                refused("obs-fold continuing Transfer-Encoding", 400,
                        POST + "Transfer-Encoding: identity\r\n chunked\r\n\r\n0\r\n\r\n"),
                refused("bare LF line endings", 400, "GET /static HTTP/1.1\nHost: a.test\n\n"),
                refused("bare LF ending one header", 400, "GET /static HTTP/1.1\r\nHost: a.test\nX: 1\r\n\r\n"),
                refused("bare CR in a header", 400, "GET /static HTTP/1.1\r\nHost: a.test\rX: 1\r\n\r\n"),
                refused("control byte in a header name", 400, "GET /static HTTP/1.1\r\nHost: a.test\r\nX\u0001Y: 1\r\n\r\n"),
                refused("NUL in a header value", 400, "GET /static HTTP/1.1\r\nHost: a.test\r\nX: a\u0000b\r\n\r\n"),
                refused("two Host headers", 400, "GET /static HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n"),
                refused("no Host in HTTP/1.1", 400, "GET /static HTTP/1.1\r\n\r\n"),
                refused("invalid chunk size", 400, POST + "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
                refused("chunk size with a sign", 400, POST + "Transfer-Encoding: chunked\r\n\r\n+3\r\nabc\r\n0\r\n\r\n"),
                refused("chunk data longer than its size", 400, POST + "Transfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n"),
                refused("chunk line with a bare LF", 400, POST + "Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n"),
                refused("chunk extension with an unterminated quoted string", 400,
                        POST + "Transfer-Encoding: chunked\r\n\r\n3;a=\"b\r\nabc\r\n0\r\n\r\n"),
                refused("last chunk with an unterminated quoted string", 400,
                        POST + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0;a=\"\r\n\r\n"),
                refused("Content-Length shorter than the chunked body it hides", 400,
                        POST + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n5c\r\n"));
    }

    static Arguments refused(String name, int status, String request) {
        return Arguments.of(name, status, request);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void isRefusedClosedAndNothingAfterItIsAnsweredOrForwarded(String name, int status, String request) throws Exception {
        origin.clear();
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send(request + SMUGGLED);
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.readAll()).as("bytes after the refusal").isEmpty();
        }
        assertTheOriginNeverSawTheSmuggledRequest();
    }

    /** The control: the same setup answers and forwards both requests when the first is well framed. */
    @Test
    void wellFramedRequestsAreBothAnswered() throws Exception {
        origin.clear();
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send("GET /static HTTP/1.1\r\nHost: a.test\r\n\r\n" + SMUGGLED);
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(c.read().body()).isEqualTo("upstream");
        }
        assertThat(origin.requests()).containsExactly("GET /upload/smuggled");
    }

    /** RFC 9112 9.6: after a request with a close option nothing on that connection is processed, or forwarded. */
    @Test
    void aRequestAfterConnectionCloseNeverReachesTheOrigin() throws Exception {
        origin.clear();
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send(POST + "Connection: close\r\nContent-Length: 3\r\n\r\nabc" + SMUGGLED);
            assertThat(c.read().body()).isEqualTo("upstream");
            assertThat(c.readAll()).as("bytes after the answer").isEmpty();
        }
        assertTheOriginNeverSawTheSmuggledRequest();
        assertThat(origin.requests()).startsWith("POST /upload");
    }

    /** CONNECT is refused (no tunnel), and the bytes behind it are neither answered nor forwarded. */
    @Test
    void bytesAfterConnectNeverReachTheOrigin() throws Exception {
        origin.clear();
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n" + SMUGGLED);
            assertThat(c.read().status()).isEqualTo(501);
            assertThat(c.readAll()).isEmpty();
        }
        assertTheOriginNeverSawTheSmuggledRequest();
    }

    /** The control for the recording: a chunked upload followed by a second request reaches the origin as two. */
    @Test
    void wellFramedForwardedRequestsBothReachTheOrigin() throws Exception {
        origin.clear();
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send(POST + "Transfer-Encoding: chunked\r\n\r\n3;a=\"q\\\"s\"\r\nabc\r\n0\r\n\r\n" + SMUGGLED);
            assertThat(c.read().body()).isEqualTo("upstream");
            assertThat(c.read().body()).isEqualTo("upstream");
        }
        assertThat(origin.requests()).containsExactly("POST /upload", "GET /upload/smuggled");
        assertThat(origin.bytes()).contains("abc");
    }
}
