package io.paduraksa.server.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ambiguous or malformed framing over a real socket: each request is refused and the connection
 * closed, and a second request written right behind it in the same write (the smuggled one) is never
 * answered. The forwarded route holds its requests, so a body error is seen after the gate let the
 * head through, as it would be while forwarding.
 */
class Http1FramingIT {
    static final String YAML = """
            listeners:
              - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
            clusters:
              app: {destinations: [{url: "http://127.0.0.1:9"}]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /static, respond: {status: 200, body: "static\\n"}}
                  - {path: /upload, forward: app}
            """;
    static final String SMUGGLED = "GET /static HTTP/1.1\r\nHost: a.test\r\n\r\n";
    static final String POST = "POST /upload HTTP/1.1\r\nHost: a.test\r\n";

    static TestServer server;

    @BeforeAll
    static void start() {
        Forwarder holding = (RequestState state, ForwardExchange exchange) -> { };
        server = TestServer.start(YAML, holding, null);
    }

    @AfterAll
    static void stop() {
        server.close();
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
                refused("chunk line with a bare LF", 400, POST + "Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n"));
    }

    static Arguments refused(String name, int status, String request) {
        return Arguments.of(name, status, request);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void isRefusedClosedAndNothingAfterItIsAnswered(String name, int status, String request) throws Exception {
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send(request + SMUGGLED);
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.readAll()).as("bytes after the refusal").isEmpty();
        }
    }

    /** The control: the same connection setup answers both requests when the first is well framed. */
    @Test
    void wellFramedRequestsAreBothAnswered() throws Exception {
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send("GET /static HTTP/1.1\r\nHost: a.test\r\n\r\n" + SMUGGLED);
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(c.read().status()).isEqualTo(200);
        }
    }
}
