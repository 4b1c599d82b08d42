package io.paduraksa.server.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** HTTP/1.1 connection behaviour of the real server over loopback sockets (RFC 9112). */
class Http1BehaviourIT {
    static final String YAML = """
            listeners:
              - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
              - {name: h1, address: "127.0.0.1:0", protocols: [http1]}
            clusters:
              app: {destinations: [{url: "http://127.0.0.1:9"}]}
            policies:
              no-admin: {type: path, deny: [/admin]}
            hosts:
              - names: [a.test]
                policies: [no-admin]
                routes:
                  - {path: /static, respond: {status: 200, body: "static\\n"}}
                  - {path: /id, respond: {status: 200, body: "id=${request_id}\\n"}}
                  - {path: /old, redirect: {location: "https://a.test/new", status: 301}}
                  - {path: /big, respond: {status: 200, body: "%s"}}
                  - {path: /, forward: app}
              - names: [b.test]
                routes:
                  - {path: /, respond: {status: 200, body: "b\\n"}}
            """.formatted("0123456789".repeat(2_000));
    static final String GET_STATIC = "GET /static HTTP/1.1\r\nHost: a.test\r\n\r\n";

    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static RawHttp connect(String listener) throws Exception {
        return new RawHttp(server.port(listener));
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h1"})
    void keepsOneConnectionAliveOverManyRequests(String listener) throws Exception {
        try (RawHttp c = connect(listener)) {
            for (int i = 0; i < 200; i++) {
                RawHttp.Response r = c.exchange(i % 2 == 0 ? GET_STATIC : "GET /x HTTP/1.1\r\nHost: b.test\r\n\r\n");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo(i % 2 == 0 ? "static\n" : "b\n");
                assertThat(r.header("connection")).isNull();
            }
        }
    }

    @Test
    void connectionCloseIsAnsweredWithConnectionCloseAndTheServerCloses() throws Exception {
        try (RawHttp c = connect("mixed")) {
            RawHttp.Response r = c.exchange("GET /static HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    @Test
    void requestsPipelinedAfterConnectionCloseAreNotAnswered() throws Exception {
        try (RawHttp c = connect("mixed")) {
            c.send("GET /static HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n" + GET_STATIC);
            assertThat(c.read().header("connection")).isEqualTo("close");
            assertThat(c.readAll()).isEmpty();
        }
    }

    @Test
    void http10ClosesAfterTheAnswerByDefault() throws Exception {
        try (RawHttp c = connect("mixed")) {
            RawHttp.Response r = c.exchange("GET /static HTTP/1.0\r\nHost: a.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("static\n");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    /** RFC 9112 9.3 and appendix C.2.2: an HTTP/1.0 client learns the connection persists from Connection: keep-alive. */
    @Test
    void http10WithKeepAliveStaysOpenAndSaysSo() throws Exception {
        try (RawHttp c = connect("mixed")) {
            for (int i = 0; i < 3; i++) {
                RawHttp.Response r = c.exchange("GET /static HTTP/1.0\r\nHost: a.test\r\nConnection: keep-alive\r\n\r\n");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("connection")).isEqualToIgnoringCase("keep-alive");
            }
            RawHttp.Response last = c.exchange("GET /static HTTP/1.0\r\nHost: a.test\r\n\r\n");
            assertThat(last.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    @Test
    void http10KeepAliveWithCloseCloses() throws Exception {
        try (RawHttp c = connect("mixed")) {
            RawHttp.Response r = c.exchange("GET /static HTTP/1.0\r\nHost: a.test\r\nConnection: keep-alive, close\r\n\r\n");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h1"})
    void pipelinedRequestsAreAnsweredInOrder(String listener) throws Exception {
        String[] requests = {
            GET_STATIC,
            "GET /anything HTTP/1.1\r\nHost: b.test\r\n\r\n",
            "GET /old HTTP/1.1\r\nHost: a.test\r\n\r\n",
            "GET /admin/x HTTP/1.1\r\nHost: a.test\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: unknown.example\r\n\r\n",
            "HEAD /static HTTP/1.1\r\nHost: a.test\r\n\r\n",
            GET_STATIC,
        };
        int[] statuses = {200, 200, 301, 403, 421, 200, 200};
        try (RawHttp c = connect(listener)) {
            c.send(String.join("", requests));
            for (int i = 0; i < requests.length; i++) {
                RawHttp.Response r = c.read(requests[i].startsWith("HEAD"));
                assertThat(r.status()).as("answer %d", i).isEqualTo(statuses[i]);
                if (statuses[i] == 301) {
                    assertThat(r.header("location")).isEqualTo("https://a.test/new");
                }
            }
            assertThat(c.exchange("GET /x HTTP/1.1\r\nHost: b.test\r\n\r\n").body()).isEqualTo("b\n");
        }
    }

    @Test
    void headGetsTheHeadersOfGetWithoutABodyAndTheConnectionStaysUsable() throws Exception {
        try (RawHttp c = connect("mixed")) {
            RawHttp.Response get = c.exchange(GET_STATIC);
            RawHttp.Response head = c.exchange("HEAD /static HTTP/1.1\r\nHost: a.test\r\n\r\n");
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-length")).isEqualTo(get.header("content-length")).isEqualTo("7");
            assertThat(head.header("content-type")).isEqualTo(get.header("content-type"));
            assertThat(head.body()).isEmpty();
            // Had a body followed HEAD's answer, the next status line would not parse.
            RawHttp.Response after = c.exchange(GET_STATIC);
            assertThat(after.status()).isEqualTo(200);
            assertThat(after.body()).isEqualTo("static\n");
        }
    }

    @Test
    void dateIsAnImfFixdateWithinSecondsOfNow() throws Exception {
        try (RawHttp c = connect("mixed")) {
            for (String request : new String[] {GET_STATIC, "GET / HTTP/1.1\r\nHost: unknown.example\r\n\r\n"}) {
                String date = c.exchange(request).header("date");
                assertThat(date).matches("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d\\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d\\d:\\d\\d:\\d\\d GMT");
                ZonedDateTime sent = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME);
                assertThat(Duration.between(sent, ZonedDateTime.now()).abs()).isLessThan(Duration.ofSeconds(3));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        GET_STATIC,
        "GET /id HTTP/1.1\r\nHost: a.test\r\n\r\n",
        "GET /old HTTP/1.1\r\nHost: a.test\r\n\r\n",
        "GET /admin HTTP/1.1\r\nHost: a.test\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: unknown.example\r\n\r\n",
        "GET /forwarded HTTP/1.1\r\nHost: a.test\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a.test\r\n\r\n",
        "GET /static HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n",
        "POST /static HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\n\r\nhi",
        "GET /static HTTP/1.1\r\n\r\n",
        "GET /static HTTP/9.9\r\nHost: a.test\r\n\r\n",
    })
    void everyAnswerHasAContentLengthMatchingItsBody(String request) throws Exception {
        try (RawHttp c = connect("mixed")) {
            c.send(request);
            RawHttp.Response r = c.read();
            assertThat(r.header("content-length")).as(r.statusLine()).isNotNull();
            assertThat(r.body().getBytes(StandardCharsets.UTF_8)).hasSize(Integer.parseInt(r.header("content-length")));
        }
    }

    @Test
    void templatedBodiesCarryADifferentRequestIdPerRequest() throws Exception {
        Set<String> ids = new HashSet<>();
        String request = "GET /id HTTP/1.1\r\nHost: a.test\r\n\r\n";
        try (RawHttp c = connect("mixed"); RawHttp d = connect("h1")) {
            c.send(request.repeat(3));
            for (int i = 0; i < 3; i++) {
                ids.add(c.read().body());
            }
            ids.add(c.exchange(request).body());
            ids.add(d.exchange(request).body());
        }
        assertThat(ids).hasSize(5).allMatch(body -> body.matches("id=[0-9a-f]{16}\n"));
    }

    /** RFC 9112 3.2.2: the authority of an absolute-form target wins over Host. */
    @Test
    void absoluteFormTargetUsesItsAuthorityOverHost() throws Exception {
        try (RawHttp c = connect("mixed")) {
            RawHttp.Response a = c.exchange("GET http://a.test/static HTTP/1.1\r\nHost: b.test\r\n\r\n");
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.body()).isEqualTo("static\n");
            RawHttp.Response b = c.exchange("GET http://b.test/static HTTP/1.1\r\nHost: a.test\r\n\r\n");
            assertThat(b.body()).isEqualTo("b\n");
            RawHttp.Response unknown = c.exchange("GET http://unknown.example/static HTTP/1.1\r\nHost: a.test\r\n\r\n");
            assertThat(unknown.status()).isEqualTo(421);
        }
    }

    /** An absolute-form target with a query right after its authority is refused, not guessed at. */
    @Test
    void absoluteFormTargetWithAQueryButNoPathIsRefusedWith400() throws Exception {
        try (RawHttp c = connect("mixed")) {
            c.send("GET http://a.test?q HTTP/1.1\r\nHost: a.test\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    /** A gate is not a forward proxy (RFC 9110 9.3.6): CONNECT gets 501 and no tunnel. */
    @Test
    void connectIsRefusedWith501AndTheConnectionCloses() throws Exception {
        try (RawHttp c = connect("mixed")) {
            c.send("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(501);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    @Test
    void bytesPipelinedAfterConnectAreNeverAnswered() throws Exception {
        try (RawHttp c = connect("mixed")) {
            c.send("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n" + GET_STATIC);
            assertThat(c.read().status()).isEqualTo(501);
            assertThat(c.readAll()).isEmpty();
        }
    }

    @Test
    void upgradeToH2cIsIgnoredAndAnsweredAsHttp11() throws Exception {
        try (RawHttp c = connect("mixed")) {
            RawHttp.Response r = c.exchange("GET /static HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n");
            assertThat(r.statusLine()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(r.header("upgrade")).isNull();
            assertThat(r.body()).isEqualTo("static\n");
            assertThat(c.exchange(GET_STATIC).body()).isEqualTo("static\n");
        }
    }

    /**
     * A WebSocket handshake the gate denies gets 403 and no 101, so the client's next bytes are HTTP
     * again: a frame sent right after the request is parsed as a request line, refused with 400, and
     * the connection closes. Nothing is tunnelled.
     */
    @Test
    void deniedWebSocketUpgradeGets403AndTheBytesAfterItAreParsedAsHttp() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(("GET /admin/ws HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        // A masked text frame "hello" (RFC 6455 5.7).
        bytes.writeBytes(new byte[] {(byte) 0x81, (byte) 0x85, 0x37, (byte) 0xfa, 0x21, 0x3d, 0x7f, (byte) 0x9f, 0x4d, 0x51, 0x58});
        try (RawHttp c = connect("mixed")) {
            c.send(bytes.toByteArray());
            RawHttp.Response denied = c.read();
            assertThat(denied.status()).isEqualTo(403);
            assertThat(denied.header("upgrade")).isNull();
            RawHttp.Response refused = c.read();
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    /** Answers forwarded requests 502 a little later, from the connection's event loop, as an upstream failure would. */
    static final class LateForwarder implements Forwarder {
        @Override
        public void forward(RequestState state, ForwardExchange exchange) {
            EventExecutor loop = ThreadExecutorMap.currentExecutor();
            PrecomputedResponse badGateway = state.snapshot().statusAnswer(502);
            loop.schedule(() -> exchange.answer(badGateway), 50, TimeUnit.MILLISECONDS);
        }
    }

    /** The request behind a forwarded one waits in the decoder; the late answer must let it through. */
    @Test
    void requestPipelinedBehindALateForwardedAnswerIsAnswered() throws Exception {
        try (TestServer late = TestServer.start(YAML, new LateForwarder(), null); RawHttp c = new RawHttp(late.port("h1"))) {
            c.send("GET /forwarded HTTP/1.1\r\nHost: a.test\r\n\r\n" + GET_STATIC + "GET /again HTTP/1.1\r\nHost: a.test\r\n\r\n" + GET_STATIC);
            assertThat(c.read().status()).isEqualTo(502);
            assertThat(c.read().body()).isEqualTo("static\n");
            assertThat(c.read().status()).isEqualTo(502);
            assertThat(c.read().body()).isEqualTo("static\n");
            assertThat(c.exchange(GET_STATIC).status()).isEqualTo(200);
        }
    }

    @Test
    void aHundredPipelinedRequestsInOneWriteAreAnsweredInOrder() throws Exception {
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            requests.append(i % 3 == 0 ? "GET /x HTTP/1.1\r\nHost: b.test\r\n\r\n" : GET_STATIC);
        }
        try (RawHttp c = connect("mixed")) {
            c.send(requests.toString());
            for (int i = 0; i < 100; i++) {
                assertThat(c.read().body()).as("answer %d", i).isEqualTo(i % 3 == 0 ? "b\n" : "static\n");
            }
        }
    }

    /** The head's end is searched across reads: every byte in its own TCP segment still makes one request. */
    @Test
    void requestWrittenOneByteAtATimeIsAnswered() throws Exception {
        try (RawHttp c = connect("mixed")) {
            for (byte b : "GET /static HTTP/1.1\r\nHost: a.test\r\nUser-Agent: slow\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)) {
                c.send(new byte[] {b});
            }
            assertThat(c.read().body()).isEqualTo("static\n");
            assertThat(c.exchange(GET_STATIC).status()).isEqualTo(200);
        }
    }

    /** RFC 9112 2.2: empty lines before a request line are ignored (a few of them). */
    @Test
    void emptyLinesBeforeARequestAreIgnored() throws Exception {
        try (RawHttp c = connect("mixed")) {
            assertThat(c.exchange("\r\n\r\n" + GET_STATIC).body()).isEqualTo("static\n");
            c.send(GET_STATIC + "\r\n" + GET_STATIC);
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(c.read().status()).isEqualTo(200);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a.test", "A.Test", "a.test.", "a.test:80", "a.test:8080"})
    void hostIsMatchedWithoutCasePortOrTrailingDot(String host) throws Exception {
        try (RawHttp c = connect("mixed")) {
            assertThat(c.exchange("GET /static HTTP/1.1\r\nHost: " + host + "\r\n\r\n").body()).isEqualTo("static\n");
        }
    }

    @Test
    void postWithoutABodyKeepsTheConnection() throws Exception {
        try (RawHttp c = connect("mixed")) {
            RawHttp.Response r = c.exchange("POST /static HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("connection")).isNull();
            assertThat(c.exchange(GET_STATIC).status()).isEqualTo(200);
        }
    }

    /** The gate does not read an unwanted body to keep the connection: it answers, closes, and what follows is not read as a request. */
    @Test
    void requestWithABodyAnsweredByTheGateClosesTheConnection() throws Exception {
        try (RawHttp c = connect("mixed")) {
            c.send("POST /static HTTP/1.1\r\nHost: a.test\r\nContent-Length: " + GET_STATIC.length() + "\r\n\r\n" + GET_STATIC + GET_STATIC);
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.readAll()).isEmpty();
        }
    }

    /**
     * Lingering close: a denied upload still arriving gets its 403, then the server shuts its side
     * (FIN) but keeps reading and dropping the body, so the client's further writes do not hit a
     * reset (which could also destroy the answer before the client reads it), and the end is an
     * orderly EOF.
     */
    @Test
    void aDeniedUploadStillArrivingGetsItsAnswerAndAnOrderlyClose() throws Exception {
        byte[] chunk = new byte[64 * 1024];
        java.util.Arrays.fill(chunk, (byte) 'x');
        try (RawHttp c = connect("h1")) {
            c.send("POST /admin/upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1048576\r\n\r\n");
            c.send(chunk);
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(403);
            assertThat(r.header("connection")).isEqualTo("close");
            for (int i = 0; i < 4; i++) {
                c.send(chunk); // the server is still reading: no reset, no broken pipe
            }
            assertThat(c.socket().getInputStream().read()).as("orderly EOF after the answer").isEqualTo(-1);
        }
    }

    @Test
    void stoppingTheServerClosesIdleKeepAliveConnections() throws Exception {
        TestServer own = TestServer.start(YAML);
        try (RawHttp c = new RawHttp(own.port("h1")); RawHttp d = new RawHttp(own.port("mixed"))) {
            assertThat(c.exchange(GET_STATIC).status()).isEqualTo(200);
            assertThat(d.exchange(GET_STATIC).status()).isEqualTo(200);
            own.close();
            assertThat(c.isClosedByServer()).isTrue();
            assertThat(d.isClosedByServer()).isTrue();
        } finally {
            own.close();
        }
    }

    /** Bodies over 16 KiB go out as a duplicate of the shared buffer instead of a copy. */
    @Test
    void largeBodiesAreSentWholeAndHeadOfThemHasNone() throws Exception {
        String big = "0123456789".repeat(2_000);
        try (RawHttp c = connect("mixed")) {
            c.send("GET /big HTTP/1.1\r\nHost: a.test\r\n\r\nHEAD /big HTTP/1.1\r\nHost: a.test\r\n\r\nGET /big HTTP/1.1\r\nHost: a.test\r\n\r\n" + GET_STATIC);
            assertThat(c.read().body()).isEqualTo(big);
            RawHttp.Response head = c.read(true);
            assertThat(head.header("content-length")).isEqualTo("20000");
            assertThat(c.read().body()).isEqualTo(big);
            assertThat(c.read().body()).isEqualTo("static\n");
        }
    }
}
