package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.AccessLogLines;
import io.paduraksa.server.testing.TestServer;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * WebSockets to an HTTP/2 upstream (RFC 8441 extended CONNECT, issue #15), with real parts on
 * loopback: two Paduraksa servers in a chain, A with {@code h2c} clusters pointing at B's listeners,
 * B forwarding to a real WebSocket origin (and one {@code h2} cluster over TLS with ALPN to B's TLS listener) (Netty's handshake, {@link WebSocketOrigin}). An HTTP/1.1
 * client (the JDK's WebSocket, which checks the accept) and an HTTP/2 client
 * ({@link H2WebSocketClient}) go through A -> B -> origin: echoes, closes from either side, B's gate
 * refusing the path, B's listener without SETTINGS_ENABLE_CONNECT_PROTOCOL (its 502 in A's access
 * log with {@code upstream_error} {@code upgrade_unsupported}), and a reload of A.
 */
class Http2UpstreamWebSocketIT {
    private static final String B_CONFIG = """
            listeners:
              - {name: h2c, address: "127.0.0.1:0", protocols: [h2c], h2_websockets: true}
              - {name: off, address: "127.0.0.1:0", protocols: [h2c], h2_websockets: false}
              - name: tls
                address: "127.0.0.1:0"
                protocols: [h2]
                h2_websockets: true
                tls: {certificates: [{cert: "%s", key: "%s"}]}
            policies:
              no-admin: {type: path, deny: [/ws-admin]}
            clusters:
              ws:
                destinations: [{url: "%s"}]
                timeouts: {idle: 5s}
            hosts:
              - names: ["127.0.0.1", a.test]
                policies: [no-admin]
                routes:
                  - {path: /, forward: ws}
            """;
    private static final String A_CONFIG = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
              - {name: admin, address: "127.0.0.1:0", admin: true}
            clusters:
              b:
                protocol: h2c
                destinations: [{url: "http://127.0.0.1:%d"}]
                timeouts: {idle: 5s}
              b-tls:
                protocol: h2
                destinations: [{url: "https://127.0.0.1:%d"}]
                tls: {verify: true, ca: "%s", sni: a.test}
                timeouts: {idle: 5s}
              b-off:
                protocol: h2c
                destinations: [{url: "http://127.0.0.1:%d"}]
              netty-h2:
                protocol: h2c
                destinations: [{url: "http://127.0.0.1:%d"}]
              echo-h2:
                protocol: h2c
                destinations: [{url: "http://127.0.0.1:%d"}]
                timeouts: {idle: 5s}
              echo-h2-short:
                protocol: h2c
                destinations: [{url: "http://127.0.0.1:%d"}]
                timeouts: {idle: 1s}
            access_log: {enabled: true, path: "%s", format: json}
            hosts:
              - names: ["127.0.0.1", a.test]
                routes:
            %s      - {path: /ws/tls, forward: b-tls}
                  - {path: /off, forward: b-off}
                  - {path: /netty, forward: netty-h2}
                  - {path: /echo, forward: echo-h2}
                  - {path: /short, forward: echo-h2-short}
                  - {path: /, forward: b}
            """;
    @TempDir
    static Path dir;
    /** A's access log. */
    private static Path log;
    private static WebSocketOrigin origin;
    /** Netty's HTTP/2 server: no SETTINGS_ENABLE_CONNECT_PROTOCOL, keeps every request head it gets. */
    private static H2Origin nettyH2;
    /** Netty's HTTP/2 server with SETTINGS_ENABLE_CONNECT_PROTOCOL: shows the extended CONNECT as it arrives, echoes DATA. */
    private static H2Origin echoH2;
    private static TestServer b;
    private static TestServer a;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        log = dir.resolve("a-access.log");
        origin = new WebSocketOrigin();
        nettyH2 = new H2Origin(100);
        echoH2 = new H2Origin(100, true);
        b = TestServer.start(B_CONFIG.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url()));
        a = TestServer.start(aConfig(""));
        client = HttpClient.newHttpClient();
    }

    private static String aConfig(String extraRoute) {
        return A_CONFIG.formatted(b.port("h2c"), b.port("tls"), H2Client.testFile("ca.pem"), b.port("off"), nettyH2.port(), echoH2.port(), echoH2.port(), log, extraRoute);
    }

    @AfterAll
    static void stop() {
        client.close();
        a.close();
        b.close();
        origin.close();
        nettyH2.close();
        echoH2.close();
    }

    private static WebSocket open(WebSocketForwardingIT.Received r) throws Exception {
        return client.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + a.port("public") + "/ws"), r)
                .get(5, TimeUnit.SECONDS);
    }

    private static byte[] big() {
        byte[] big = new byte[1 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        return big;
    }

    @Test
    void anHttp1ClientsWebSocketEchoesThroughAnHttp2Upstream() throws Exception {
        WebSocketForwardingIT.Received r = new WebSocketForwardingIT.Received();
        WebSocket ws = open(r); // the JDK client checks the 101's Sec-WebSocket-Accept against its own key
        try {
            ws.sendText("hello", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("hello");
            ws.sendBinary(ByteBuffer.wrap(new byte[] {0, 1, 2, (byte) 0xFF}), true).get(5, TimeUnit.SECONDS);
            assertThat((byte[]) r.next()).containsExactly(0, 1, 2, (byte) 0xFF);
            byte[] big = big(); // 16 times the stream's initial window: HTTP/2 flow control on both hops
            ws.sendBinary(ByteBuffer.wrap(big), true).get(5, TimeUnit.SECONDS);
            assertThat(Arrays.equals((byte[]) r.next(), big)).as("1 MiB echoed intact").isTrue();
        } finally {
            ws.abort();
        }
    }

    @Test
    void theHttp1ClientGetsTheAcceptForItsOwnKey() throws Exception {
        try (Socket s = new Socket("127.0.0.1", a.port("public"))) {
            s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String head = TunnelTesting.readHead(s.getInputStream());
            assertThat(head).startsWith("HTTP/1.1 101 ").containsIgnoringCase("\r\nupgrade: websocket\r\n")
                    .containsIgnoringCase("\r\nconnection: upgrade\r\n")
                    .contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n") // RFC 6455 1.3's example
                    .doesNotContainIgnoringCase("content-length").doesNotContainIgnoringCase("transfer-encoding");
            assertThat(head.toLowerCase().split("sec-websocket-accept", -1)).as("one accept, ours").hasSize(2);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"no Sec-WebSocket-Key", "Sec-WebSocket-Key: c2hvcnQ=", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==dGhl"})
    void anHttp1HandshakeWithoutAProperKeyIsRefusedBeforeTheUpstream(String keyLine) throws Exception {
        echoH2.requests.clear();
        String key = keyLine.startsWith("no ") ? "" : keyLine + "\r\n";
        try (Socket s = new Socket("127.0.0.1", a.port("public"))) {
            s.getOutputStream().write(("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\n" + key + "\r\n").getBytes(StandardCharsets.US_ASCII));
            // RFC 6455 4.2.1: the accept is computed from the client's key, so without one there is no handshake
            assertThat(TunnelTesting.readHead(s.getInputStream())).startsWith("HTTP/1.1 400 ")
                    .doesNotContainIgnoringCase("sec-websocket-accept");
        }
        assertThat(echoH2.requests).as("nothing reached the HTTP/2 upstream").isEmpty();
    }

    @Test
    void theUpstreamGetsAnExtendedConnectWithoutTheHttp1Handshake() throws Exception {
        echoH2.requests.clear();
        try (Socket s = new Socket("127.0.0.1", a.port("public"))) {
            s.getOutputStream().write(("GET /echo?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: chat\r\n"
                    + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String head = TunnelTesting.readHead(s.getInputStream());
            assertThat(head).startsWith("HTTP/1.1 101 ").contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n")
                    .containsIgnoringCase("\r\nsec-websocket-protocol: chat\r\n");
            s.getOutputStream().write("raw bytes".getBytes(StandardCharsets.US_ASCII));
            byte[] back = s.getInputStream().readNBytes(9);
            assertThat(new String(back, StandardCharsets.US_ASCII)).as("DATA both ways").isEqualTo("raw bytes");
        }
        Http2Headers h = echoH2.requests.poll();
        assertThat(h).isNotNull();
        assertThat(h.method()).hasToString("CONNECT");
        assertThat(h.get(":protocol")).hasToString("websocket");
        assertThat(h.scheme()).hasToString("http");
        assertThat(h.path()).hasToString("/echo?x=1");
        assertThat(h.authority()).isNotNull();
        assertThat(h.get("sec-websocket-version")).hasToString("13");
        assertThat(h.get("sec-websocket-protocol")).hasToString("chat");
        assertThat(h.get("sec-websocket-extensions")).hasToString("permessage-deflate");
        assertThat(h.get("x-forwarded-for")).hasToString("127.0.0.1");
        assertThat(h.contains("sec-websocket-key")).as("RFC 8441 5: no key").isFalse();
        assertThat(h.contains("upgrade")).isFalse();
        assertThat(h.contains("connection")).isFalse();
        assertThat(h.contains("content-length")).isFalse();

        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            Http2Headers req = H2WebSocketClient.extendedConnect("http", "a.test", "/echo");
            req.set("sec-websocket-protocol", "chat");
            H2WebSocketClient.Tunnel t = c.open(req, false);
            assertThat(t.status()).isEqualTo(200);
            assertThat(t.head.get().get("sec-websocket-protocol")).hasToString("chat");
            t.sendText("via h2");
            assertThat(t.next()).isEqualTo("via h2");
            assertThat(c.open(H2WebSocketClient.extendedConnect("http", "a.test", "/echo/refuse"), false).status())
                    .as("the upstream's refusal passes").isEqualTo(403);
        }
        Http2Headers h2 = echoH2.requests.poll();
        assertThat(h2.method()).hasToString("CONNECT");
        assertThat(h2.get(":protocol")).hasToString("websocket");
        assertThat(h2.contains("sec-websocket-key")).as("no key generated for an HTTP/2 upstream either").isFalse();
    }

    @Test
    void anHttp1ClientsWebSocketEchoesThroughAnH2UpstreamOverTls() throws Exception {
        WebSocketForwardingIT.Received r = new WebSocketForwardingIT.Received();
        WebSocket ws = client.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + a.port("public") + "/ws/tls"), r)
                .get(5, TimeUnit.SECONDS);
        try {
            ws.sendText("over tls", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("over tls");
            byte[] big = big(); // flow control on the TLS hop too
            ws.sendBinary(ByteBuffer.wrap(big), true).get(5, TimeUnit.SECONDS);
            assertThat(Arrays.equals((byte[]) r.next(), big)).as("1 MiB echoed intact").isTrue();
        } finally {
            ws.abort();
        }
    }

    @Test
    void anHttp2ClientsWebSocketEchoesThroughAnH2UpstreamOverTls() throws Exception {
        int closedBefore = origin.closed.get();
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws/tls");
            assertThat(t.status()).isEqualTo(200);
            t.sendText("via h2 over tls");
            assertThat(t.next()).isEqualTo("via h2 over tls");
            t.end();
            TunnelTesting.waitFor(origin.closed::get, closedBefore + 1);
            assertThat(t.endedWithin(5)).as("END_STREAM through the TLS hop and back").isTrue();
        }
    }

    @Test
    void aQuietTunnelEndsAtTheClustersIdleTimeout() throws Exception {
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            H2WebSocketClient.Tunnel quiet = c.open("http", "a.test", "/short"); // cluster idle 1 s
            H2WebSocketClient.Tunnel busy = c.open("http", "a.test", "/echo"); // cluster idle 5 s
            assertThat(quiet.status()).isEqualTo(200);
            assertThat(quiet.endedWithin(5)).as("the 1 s idle timeout ended the quiet tunnel").isTrue();
            busy.sendText("awake");
            assertThat(busy.next()).isEqualTo("awake");
        }
    }

    @Test
    void aStreamTheUpstreamLeavesHalfOpenIsResetAfterTheIdleTimeout() throws Exception {
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/short/half-open");
            assertThat(t.status()).isEqualTo(200);
            t.sendText("x");
            assertThat(t.next()).isEqualTo("x");
            int resetsBefore = echoH2.resets.get();
            int endsBefore = echoH2.tunnelEnds.get();
            t.reset(); // the client leaves: END_STREAM goes up (what it sent first), which this upstream never answers
            TunnelTesting.waitFor(echoH2.tunnelEnds::get, endsBefore + 1);
            TunnelTesting.waitFor(echoH2.resets::get, resetsBefore + 1); // the cluster's 1 s idle timeout, swept once a second
        }
    }

    @Test
    void closeFromEitherSideReachesTheOtherForHttp1Clients() throws Exception {
        int closedBefore = origin.closed.get();
        WebSocketForwardingIT.Received r = new WebSocketForwardingIT.Received();
        WebSocket ws = open(r);
        ws.sendText("ping", true).get(5, TimeUnit.SECONDS);
        assertThat(r.next()).isEqualTo("ping");
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
        assertThat(r.closed.get(5, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        TunnelTesting.waitFor(origin.closed::get, closedBefore + 1);

        WebSocketForwardingIT.Received r2 = new WebSocketForwardingIT.Received();
        WebSocket ws2 = open(r2);
        ws2.sendText("bye", true).get(5, TimeUnit.SECONDS); // the origin closes: close frame, then its connection
        assertThat(r2.closed.get(5, TimeUnit.SECONDS)).isEqualTo(1000);
    }

    @Test
    void anHttp2ClientsWebSocketEchoesThroughAnHttp2Upstream() throws Exception {
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            assertThat(t.status()).isEqualTo(200);
            assertThat(t.head.get().get("sec-websocket-accept")).isNull();
            t.sendText("hello");
            assertThat(t.next()).isEqualTo("hello");
            t.sendBinary(new byte[] {0, 1, 2, (byte) 0xFF});
            assertThat((byte[]) t.next()).containsExactly(0, 1, 2, (byte) 0xFF);
            byte[] big = big();
            t.sendBinary(big);
            assertThat(Arrays.equals((byte[]) t.next(), big)).as("1 MiB echoed intact").isTrue();
            t.sendClose(1000, false);
            assertThat(t.next()).isEqualTo(1000);
            assertThat(t.endedWithin(5)).as("the origin's close ends the stream, through B and A").isTrue();
            assertThat(t.resetCode).isEqualTo(-1);
        }
    }

    @Test
    void closeFromEitherSideReachesTheOtherForHttp2Clients() throws Exception {
        int closedBefore = origin.closed.get();
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            t.sendText("bye");
            assertThat(t.next()).isEqualTo(1000);
            assertThat(t.endedWithin(5)).isTrue();
            assertThat(t.resetCode).isEqualTo(-1);
            H2WebSocketClient.Tunnel ended = c.open("http", "a.test", "/ws");
            ended.sendText("x");
            assertThat(ended.next()).isEqualTo("x");
            ended.end(); // END_STREAM: through A and B the origin's connection gets its FIN and closes
            TunnelTesting.waitFor(origin.closed::get, closedBefore + 2);
            assertThat(ended.endedWithin(5)).as("the origin's close comes back as END_STREAM").isTrue();
            H2WebSocketClient.Tunnel reset = c.open("http", "a.test", "/ws");
            reset.sendText("y");
            assertThat(reset.next()).isEqualTo("y");
            reset.reset();
            TunnelTesting.waitFor(origin.closed::get, closedBefore + 3);
            H2WebSocketClient.Tunnel again = c.open("http", "a.test", "/ws");
            again.sendText("still here");
            assertThat(again.next()).isEqualTo("still here");
        }
    }

    @Test
    void theUpstreamsRefusalReachesTheClientWithoutATunnel() throws Exception {
        int opened = origin.opened.get();
        try (Socket s = new Socket("127.0.0.1", a.port("public"))) {
            assertThat(handshake(s, "/ws-admin")).startsWith("HTTP/1.1 403 ").doesNotContainIgnoringCase("sec-websocket-accept");
        }
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            H2WebSocketClient.Tunnel t = c.open(H2WebSocketClient.extendedConnect("http", "a.test", "/ws-admin"), false);
            assertThat(t.status()).isEqualTo(403);
            assertThat(t.endedWithin(5)).as("a refusal ends the stream").isTrue();
            H2WebSocketClient.Tunnel fine = c.open("http", "a.test", "/ws");
            fine.sendText("after the refusal");
            assertThat(fine.next()).isEqualTo("after the refusal");
        }
        assertThat(origin.opened.get() - opened).as("only the allowed WebSocket reached the origin").isEqualTo(1);
    }

    @Test
    void aRefusedConnectIsTriedOnceMoreThenIs502() throws Exception {
        for (boolean h2 : new boolean[] {false, true}) {
            int before = echoH2.received.get();
            echoH2.refuseConnects.set(1); // REFUSED_STREAM once: not processed, nothing reached the client
            try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public")); Socket s = new Socket("127.0.0.1", a.port("public"))) {
                if (h2) {
                    H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/echo");
                    assertThat(t.status()).isEqualTo(200);
                    t.sendText("second try");
                    assertThat(t.next()).isEqualTo("second try");
                } else {
                    assertThat(handshake(s, "/echo")).startsWith("HTTP/1.1 101 ");
                }
            }
            assertThat(echoH2.received.get() - before).as("h2 client %s: refused, then taken", h2).isEqualTo(2);
            echoH2.refuseConnects.set(1000); // an upstream that refuses every stream: no loop
            try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public")); Socket s = new Socket("127.0.0.1", a.port("public"))) {
                if (h2) {
                    assertThat(c.open("http", "a.test", "/echo").status()).isEqualTo(502);
                } else {
                    assertThat(handshake(s, "/echo")).startsWith("HTTP/1.1 502 ");
                }
            } finally {
                echoH2.refuseConnects.set(0);
            }
            assertThat(echoH2.received.get() - before).as("h2 client %s: two tries, then 502", h2).isEqualTo(4);
        }
    }

    private static String handshake(Socket s, String path) throws Exception {
        s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        return TunnelTesting.readHead(s.getInputStream());
    }

    /** paduraksa_upstream_errors_total of {@code cluster}, kind {@code kind}, summed over destinations. */
    private static long upstreamErrors(String cluster, String kind) throws Exception {
        try (Socket s = new Socket("127.0.0.1", a.port("admin"))) {
            s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            long n = 0;
            for (String line : new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("paduraksa_upstream_errors_total{") && line.contains("cluster=\"" + cluster + "\"")
                        && line.contains("kind=\"" + kind + "\"")) {
                    n += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1).trim());
                }
            }
            return n;
        }
    }

    @Test
    void anUpstreamWithoutExtendedConnectIs502() throws Exception {
        long unsupported = upstreamErrors("b-off", "upgrade_unsupported");
        int opened = origin.opened.get();
        try (Socket s = new Socket("127.0.0.1", a.port("public"))) {
            assertThat(handshake(s, "/off")).startsWith("HTTP/1.1 502 ");
        }
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            assertThat(c.open("http", "a.test", "/off").status()).isEqualTo(502);
            assertThat(c.open("http", "a.test", "/ws").status()).as("the cluster that advertises it still works").isEqualTo(200);
        }
        assertThat(origin.opened.get() - opened).as("nothing went through B's listener without the setting").isEqualTo(1);
        assertThat(upstreamErrors("b-off", "upgrade_unsupported") - unsupported).as("counted, once per handshake: no retry")
                .isEqualTo(2);
        int before = nettyH2.received.get();
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            assertThat(c.open("http", "a.test", "/netty").status()).isEqualTo(502);
        }
        try (Socket s = new Socket("127.0.0.1", a.port("public"))) {
            assertThat(handshake(s, "/netty")).startsWith("HTTP/1.1 502 ");
        }
        assertThat(nettyH2.received.get()).as("no request at all, not a plain GET pretending to be a handshake").isEqualTo(before);
    }

    @Test
    void theAccessLogNamesWhyTheUpgradeWas502() throws Exception {
        try (Socket s = new Socket("127.0.0.1", a.port("public"))) {
            assertThat(handshake(s, "/off/logged-h1")).startsWith("HTTP/1.1 502 ");
        }
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            assertThat(c.open("http", "a.test", "/off/logged-h2").status()).isEqualTo(502);
            H2WebSocketClient.Tunnel fine = c.open("http", "a.test", "/ws/logged");
            assertThat(fine.status()).isEqualTo(200);
            fine.sendText("logged");
            assertThat(fine.next()).isEqualTo("logged");
        }
        for (String[] p : new String[][] {{"/off/logged-h1", "HTTP/1.1"}, {"/off/logged-h2", "HTTP/2.0"}}) {
            JsonNode line = AccessLogLines.lineFor(log, p[0], p[1]);
            assertThat(line.get("status").asInt()).isEqualTo(502);
            assertThat(line.get("decision").asText()).isEqualTo("forward");
            assertThat(line.get("cluster").asText()).isEqualTo("b-off");
            assertThat(line.get("upstream_error").asText()).as(p[0]).isEqualTo("upgrade_unsupported");
        }
        JsonNode opened = AccessLogLines.lineFor(log, "/ws/logged", "HTTP/2.0");
        assertThat(opened.get("status").asInt()).isEqualTo(200);
        assertThat(opened.get("upstream_error").isNull()).as("an opened tunnel names no failure").isTrue();
    }

    @Test
    void aReloadOfTheFirstProxyKeepsTheTunnel() throws Exception {
        WebSocketForwardingIT.Received r = new WebSocketForwardingIT.Received();
        WebSocket ws = open(r);
        try (H2WebSocketClient c = H2WebSocketClient.connect(a.port("public"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            t.sendText("before");
            assertThat(t.next()).isEqualTo("before");
            ws.sendText("before", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("before");
            assertThat(a.reload(aConfig("      - {path: /other, respond: {status: 204}}\n"))).isTrue();
            t.sendText("after");
            assertThat(t.next()).isEqualTo("after");
            assertThat(t.ended).isNotDone();
            ws.sendText("after", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("after");
            assertThat(r.closed).isNotDone();
        } finally {
            ws.abort();
            a.reload(aConfig(""));
        }
    }
}
