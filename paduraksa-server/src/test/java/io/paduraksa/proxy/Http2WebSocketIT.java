package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * WebSockets over HTTP/2 (RFC 8441 extended CONNECT) through the proxy, over real sockets: a
 * scripted HTTP/2 client ({@link H2WebSocketClient}, h2c and h2 over TLS) against a real WebSocket
 * upstream (Netty's handshake, {@link WebSocketOrigin}) and a raw TCP one that shows exactly what
 * the upstream receives. Text, binary and 1 MiB messages both ways (flow control), closes and
 * resets from either side, the gate on the path, refusals of malformed requests, the upstream's
 * answers that must not open a tunnel, a reload, a stop, and the idle rules.
 */
class Http2WebSocketIT {
    private static final String CONFIG = """
            listeners:
              - {name: h2c, address: "127.0.0.1:0", protocols: [http1, h2c]}
              - name: tls
                address: "127.0.0.1:0"
                protocols: [http1, h2]
                tls: {certificates: [{cert: "%s", key: "%s"}]}
              - {name: off, address: "127.0.0.1:0", protocols: [h2c], h2_websockets: false}
            limits: {idle_timeout: 1s, max_body_size: 64KiB}
            policies:
              no-admin: {type: path, deny: [/ws-admin]}
              slow-down: {type: rate_limit, rate: 1/h, burst: 2, key: client_ip_and_route}
            clusters:
              ws:
                destinations: [{url: "%s"}]
                timeouts: {idle: 5s}
              raw:
                destinations: [{url: "http://127.0.0.1:%d"}]
                timeouts: {idle: 2s}
              plain:
                destinations: [{url: "%s"}]
              h2up:
                protocol: h2c
                destinations: [{url: "http://127.0.0.1:%d"}]
            hosts:
              - names: [a.test, "127.0.0.1"]
                policies: [no-admin]
                routes:
            %s      - {path: /ws, forward: ws}
                  - {path: /raw, forward: raw}
                  - {path: /limited, forward: raw, policies: [slow-down]}
                  - {path: /h2, forward: h2up}
                  - {path: /, forward: plain}
            """;
    private static WebSocketOrigin wsOrigin;
    private static RawUpgradeOrigin raw;
    private static TestOrigin plain;
    private static H2Origin h2;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        wsOrigin = new WebSocketOrigin();
        raw = new RawUpgradeOrigin();
        plain = new TestOrigin("plain");
        h2 = new H2Origin(100);
        server = TestServer.start(config(""));
    }

    private static String config(String extraRoute) {
        return CONFIG.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), wsOrigin.url(),
                raw.port(), plain.url(), h2.port(), extraRoute);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        plain.close();
        raw.close();
        h2.close();
        wsOrigin.close();
    }

    private static H2WebSocketClient h2c() throws Exception {
        return H2WebSocketClient.connect(server.port("h2c"));
    }

    @Test
    void http2ListenersAdvertiseExtendedConnectUnlessSwitchedOff() throws Exception {
        try (H2WebSocketClient c = h2c()) {
            assertThat(c.serverSettings().connectProtocolEnabled()).isTrue();
        }
        try (H2WebSocketClient c = H2WebSocketClient.connectTls(server.port("tls"), "a.test")) {
            assertThat(c.serverSettings().connectProtocolEnabled()).isTrue();
        }
        try (H2WebSocketClient c = H2WebSocketClient.connect(server.port("off"))) {
            assertThat(c.serverSettings().connectProtocolEnabled()).isNull();
            H2WebSocketClient.Tunnel t = c.open(H2WebSocketClient.extendedConnect("http", "a.test", "/ws"), false);
            assertThat(t.endedWithin(5)).isTrue();
            assertThat(t.resetCode).as("RFC 8441 3: :protocol without the setting is malformed").isEqualTo(Http2Error.PROTOCOL_ERROR.code());
        }
    }

    @Test
    void textBinaryAndOneMebibyteEchoOverH2c() throws Exception {
        try (H2WebSocketClient c = h2c()) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            assertThat(t.status()).isEqualTo(200);
            assertThat(t.head.get().get("sec-websocket-accept")).as("the accept was the proxy's to check").isNull();
            t.sendText("hello");
            assertThat(t.next()).isEqualTo("hello");
            t.sendBinary(new byte[] {0, 1, 2, (byte) 0xFF});
            assertThat((byte[]) t.next()).containsExactly(0, 1, 2, (byte) 0xFF);
            byte[] big = new byte[1 << 20]; // 16 times the stream's initial window, 16 times max_body_size: no body limit
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 31);
            }
            t.sendBinary(big);
            assertThat(Arrays.equals((byte[]) t.next(), big)).as("1 MiB echoed intact").isTrue();
            t.sendClose(1000, false);
            assertThat(t.next()).isEqualTo(1000);
            assertThat(t.endedWithin(5)).as("the upstream's close ends the stream").isTrue();
            assertThat(t.resetCode).isEqualTo(-1);
        }
    }

    @Test
    void echoOverH2WithTls() throws Exception {
        try (H2WebSocketClient c = H2WebSocketClient.connectTls(server.port("tls"), "a.test")) {
            H2WebSocketClient.Tunnel t = c.open("https", "a.test", "/ws");
            assertThat(t.status()).isEqualTo(200);
            t.sendText("over tls");
            assertThat(t.next()).isEqualTo("over tls");
            byte[] big = new byte[300_000];
            Arrays.fill(big, (byte) 7);
            t.sendBinary(big);
            assertThat((byte[]) t.next()).hasSize(300_000);
        }
    }

    @Test
    void upstreamHandshakeIsAFreshUpgradeAndTheTunnelCarriesRawBytes() throws Exception {
        try (H2WebSocketClient c = h2c()) {
            Http2Headers h = H2WebSocketClient.extendedConnect("http", "a.test", "/raw?x=1");
            h.set("sec-websocket-protocol", "chat");
            h.set("sec-websocket-extensions", "permessage-deflate");
            h.set("sec-websocket-key", "Y2xpZW50cyBvd24ga2V5IQ=="); // not the client's to choose: replaced
            H2WebSocketClient.Tunnel t = c.open(h, false);
            assertThat(t.status()).isEqualTo(200);
            assertThat(t.head.get().get("sec-websocket-protocol")).hasToString("chat");
            RawUpgradeOrigin.Connection up = raw.next();
            String head = up.head;
            assertThat(head).startsWith("GET /raw?x=1 HTTP/1.1\r\n").containsIgnoringCase("\r\nupgrade: websocket\r\n")
                    .containsIgnoringCase("\r\nconnection: upgrade\r\n").contains("sec-websocket-version: 13\r\n")
                    .contains("sec-websocket-protocol: chat\r\n").contains("sec-websocket-extensions: permessage-deflate\r\n")
                    .doesNotContain("Y2xpZW50cyBvd24ga2V5IQ==").doesNotContain(":protocol").doesNotContainIgnoringCase("content-length")
                    .doesNotContainIgnoringCase("transfer-encoding");
            assertThat(up.key).as("16 random bytes, base64").hasSize(24);
            assertThat(Base64.getDecoder().decode(up.key)).hasSize(16);
            t.sendRaw("ping".getBytes(StandardCharsets.US_ASCII), false);
            assertThat(up.read(4)).isEqualTo("ping");
            up.write("pong");
            TunnelTesting.waitFor(() -> (int) t.received, 4);
            t.end(); // END_STREAM: the upstream reads its end of input (FIN) and closes
            // Within 1 s: well before the raw cluster's 2 s idle timeout would close the connection anyway.
            assertThat(up.eof.poll(1, TimeUnit.SECONDS)).as("FIN reached the upstream at once").isTrue();
            assertThat(t.endedWithin(1)).as("the upstream's close ends the stream").isTrue();
        }
        try (H2WebSocketClient c = h2c()) { // a second handshake gets another key
            c.open("http", "a.test", "/raw");
            RawUpgradeOrigin.Connection up = raw.next();
            assertThat(up.key).isNotEqualTo(raw.lastKeyBefore(up));
        }
    }

    @Test
    void closeFromEitherSideReachesTheOther() throws Exception {
        int closedBefore = wsOrigin.closed.get();
        try (H2WebSocketClient c = h2c()) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            t.sendText("bye"); // the upstream closes: close frame, then its connection
            assertThat(t.next()).isEqualTo(1000);
            assertThat(t.endedWithin(5)).isTrue();
            assertThat(t.resetCode).isEqualTo(-1);
            H2WebSocketClient.Tunnel reset = c.open("http", "a.test", "/ws");
            reset.sendText("x");
            assertThat(reset.next()).isEqualTo("x");
            reset.reset(); // RST_STREAM: the upstream connection closes
            TunnelTesting.waitFor(wsOrigin.closed::get, closedBefore + 2);
            assertThat(c.isOpen()).as("other streams and the connection go on").isTrue();
            H2WebSocketClient.Tunnel again = c.open("http", "a.test", "/ws");
            again.sendText("still here");
            assertThat(again.next()).isEqualTo("still here");
        }
    }

    @Test
    void theGateJudgesTheHandshakeAsAGetOfItsPath() throws Exception {
        int before = raw.handshakes.get();
        try (H2WebSocketClient c = h2c()) {
            H2WebSocketClient.Tunnel denied = c.open(H2WebSocketClient.extendedConnect("http", "a.test", "/ws-admin"), false);
            assertThat(denied.status()).isEqualTo(403);
            assertThat(denied.endedWithin(5)).isTrue();
            H2WebSocketClient.Tunnel unknownHost = c.open(H2WebSocketClient.extendedConnect("http", "nobody.test", "/ws"), false);
            assertThat(unknownHost.status()).isEqualTo(421);
            assertThat(c.open("http", "a.test", "/limited").status()).isEqualTo(200);
            assertThat(c.open("http", "a.test", "/limited").status()).isEqualTo(200);
            H2WebSocketClient.Tunnel limited = c.open(H2WebSocketClient.extendedConnect("http", "a.test", "/limited"), false);
            assertThat(limited.status()).as("the rate limit counts WebSockets too").isEqualTo(429);
        }
        assertThat(raw.handshakes.get() - before).as("only the two allowed handshakes reached the upstream").isEqualTo(2);
    }

    @Test
    void malformedExtendedConnectsAreRefused() throws Exception {
        try (H2WebSocketClient c = h2c()) {
            Http2Headers noAuthority = H2WebSocketClient.extendedConnect("http", "a.test", "/ws");
            noAuthority.remove(":authority");
            assertThat(resetCode(c, noAuthority)).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
            Http2Headers noPath = H2WebSocketClient.extendedConnect("http", "a.test", "/ws");
            noPath.remove(":path");
            assertThat(resetCode(c, noPath)).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
            Http2Headers noScheme = H2WebSocketClient.extendedConnect("http", "a.test", "/ws");
            noScheme.remove(":scheme");
            assertThat(resetCode(c, noScheme)).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
            Http2Headers onGet = H2WebSocketClient.extendedConnect("http", "a.test", "/ws").method("GET");
            assertThat(resetCode(c, onGet)).as(":protocol on GET").isEqualTo(Http2Error.PROTOCOL_ERROR.code());
            Http2Headers other = H2WebSocketClient.extendedConnect("http", "a.test", "/ws");
            other.set(":protocol", "connect-udp");
            assertThat(c.open(other, false).status()).as("a protocol we do not tunnel").isEqualTo(501);
            Http2Headers plainConnect = H2WebSocketClient.extendedConnect("http", "a.test", "/ws");
            plainConnect.remove(":protocol");
            plainConnect.remove(":path");
            plainConnect.remove(":scheme");
            assertThat(c.open(plainConnect, false).status()).as("CONNECT without :protocol stays refused").isEqualTo(501);
            assertThat(c.open(H2WebSocketClient.extendedConnect("http", "a.test", "/ws"), true).status())
                    .as("END_STREAM with the HEADERS: a tunnel that carries nothing").isEqualTo(400);
            H2WebSocketClient.Tunnel fine = c.open("http", "a.test", "/ws");
            assertThat(fine.status()).as("the connection survives every refusal").isEqualTo(200);
        }
    }

    private static long resetCode(H2WebSocketClient c, Http2Headers headers) throws Exception {
        H2WebSocketClient.Tunnel t = c.open(headers, false);
        assertThat(t.endedWithin(5)).isTrue();
        return t.resetCode;
    }

    @Test
    void upstreamAnswersThatAreNoSwitchNeverOpenATunnel() throws Exception {
        try (H2WebSocketClient c = h2c()) {
            assertThat(c.open("http", "a.test", "/").status()).as("a 200 without a switch").isEqualTo(502);
            assertThat(c.open("http", "a.test", "/status/403").status()).as("a refusal passes").isEqualTo(403);
            assertThat(c.open("http", "a.test", "/raw/bad-accept").status()).as("a wrong Sec-WebSocket-Accept").isEqualTo(502);
            assertThat(c.open("http", "a.test", "/raw/no-upgrade").status()).as("a 101 to another protocol").isEqualTo(502);
            int before = h2.requests.size();
            assertThat(c.open("http", "a.test", "/h2").status()).as("an HTTP/2 upstream without SETTINGS_ENABLE_CONNECT_PROTOCOL: nothing sent").isEqualTo(502);
            assertThat(h2.requests).hasSize(before);
        }
    }

    @Test
    void quietTunnelsOutliveTheConnectionIdleTimeoutAndEndAtTheirOwn() throws Exception {
        try (H2WebSocketClient c = h2c()) {
            H2WebSocketClient.Tunnel ws = c.open("http", "a.test", "/ws"); // cluster idle 5 s
            H2WebSocketClient.Tunnel quiet = c.open("http", "a.test", "/raw"); // cluster idle 2 s
            raw.next();
            Thread.sleep(3_000); // three times limits.idle_timeout
            assertThat(quiet.endedWithin(2)).as("the raw cluster's 2 s idle timeout ended its tunnel").isTrue();
            ws.sendText("awake");
            assertThat(ws.next()).isEqualTo("awake");
            assertThat(c.goAway()).as("no idle GOAWAY while a tunnel is open").isNotDone();
        }
        try (H2WebSocketClient c = h2c()) {
            c.open("http", "a.test", "/status/403").ended.get(5, TimeUnit.SECONDS);
            assertThat(c.goAway().get(5, TimeUnit.SECONDS)).as("without a tunnel the connection idles out as before").isPositive();
        }
    }

    @Test
    void reloadKeepsTheTunnel() throws Exception {
        try (H2WebSocketClient c = h2c()) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            t.sendText("before");
            assertThat(t.next()).isEqualTo("before");
            assertThat(server.reload(config("      - {path: /other, respond: {status: 204}}\n"))).isTrue();
            t.sendText("after");
            assertThat(t.next()).isEqualTo("after");
            assertThat(t.ended).isNotDone();
        } finally {
            server.reload(config(""));
        }
    }

    @Test
    void aStopDrainsTheTunnelWithinTheDrainTimeout() throws Exception {
        RawUpgradeOrigin rawForStop = new RawUpgradeOrigin();
        WebSocketOrigin origin = new WebSocketOrigin();
        TestServer own = TestServer.start(CONFIG.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"),
                origin.url(), rawForStop.port(), plain.url(), h2.port(), ""));
        try (H2WebSocketClient c = H2WebSocketClient.connect(own.port("h2c"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            t.sendText("one");
            assertThat(t.next()).isEqualTo("one");
            long start = System.nanoTime();
            Thread stopper = new Thread(() -> own.server().stop(Duration.ofSeconds(3)));
            stopper.start();
            Thread.sleep(1_500); // the first GOAWAY, its PING, the final GOAWAY: the tunnel goes on meanwhile
            t.sendText("two");
            assertThat(t.next()).as("the tunnel works while the server drains").isEqualTo("two");
            stopper.join(10_000);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(tookMillis).as("the stop waited for the tunnel, up to drain_timeout").isBetween(2_500L, 6_000L);
            TunnelTesting.waitFor(() -> c.isOpen() ? 0 : 1, 1);
            TunnelTesting.waitFor(origin.closed::get, 1);
        } finally {
            own.close();
            origin.close();
            rawForStop.close();
        }
    }

    @Test
    void aStopEndsOnceTheLastTunnelCloses() throws Exception {
        WebSocketOrigin origin = new WebSocketOrigin();
        // idle_timeout 60 s: the connection must close because its last tunnel did, not because it idled
        TestServer own = TestServer.start(CONFIG.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"),
                origin.url(), raw.port(), plain.url(), h2.port(), "").replace("idle_timeout: 1s", "idle_timeout: 60s"));
        try (H2WebSocketClient c = H2WebSocketClient.connect(own.port("h2c"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/ws");
            long start = System.nanoTime();
            Thread stopper = new Thread(() -> own.server().stop(Duration.ofSeconds(20)));
            stopper.start();
            Thread.sleep(1_500); // past the final GOAWAY: only the tunnel keeps the connection
            assertThat(stopper.isAlive()).as("the stop waits for the tunnel").isTrue();
            t.sendText("bye"); // the upstream closes; our side ends too
            assertThat(t.next()).isEqualTo(1000);
            assertThat(t.endedWithin(5)).isTrue();
            t.end();
            stopper.join(10_000);
            assertThat(stopper.isAlive()).isFalse();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .as("the stop ended with the last tunnel, long before drain_timeout").isLessThan(8_000L);
        } finally {
            own.close();
            origin.close();
        }
    }

    /**
     * A WebSocket upstream in raw TCP: reads the handshake head, answers {@code 101} with the
     * right accept ({@code /raw/bad-accept}: a wrong one; {@code /raw/no-upgrade}: a switch to
     * another protocol), then hands the connection to the test, which reads and writes raw bytes.
     */
    static final class RawUpgradeOrigin implements AutoCloseable {
        private static final Pattern KEY = Pattern.compile("(?im)^sec-websocket-key: *(\\S+)");
        private final ServerSocket socket;
        private final LinkedBlockingQueue<Connection> connections = new LinkedBlockingQueue<>();
        private volatile String lastKey;
        /** Handshakes answered with a switch. */
        final AtomicInteger handshakes = new AtomicInteger();
        private final Thread acceptor;

        RawUpgradeOrigin() throws Exception {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = new Thread(this::acceptLoop, "raw-upgrade-origin");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        /** The next connection that completed its handshake. */
        Connection next() throws InterruptedException {
            Connection c = connections.poll(5, TimeUnit.SECONDS);
            assertThat(c).as("an upgraded upstream connection within 5 s").isNotNull();
            return c;
        }

        /** RFC 6455 4.2.2: the {@code Sec-WebSocket-Accept} for {@code key}. */
        static String accept(String key) throws Exception {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                    .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII)));
        }

        /** The request head's {@code Sec-WebSocket-Key}, or "". */
        static String key(CharSequence head) {
            Matcher m = KEY.matcher(head);
            return m.find() ? m.group(1) : "";
        }

        String lastKeyBefore(Connection c) {
            return c.previousKey;
        }

        private void acceptLoop() {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    Thread t = new Thread(() -> serve(s), "raw-upgrade-connection");
                    t.setDaemon(true);
                    t.start();
                } catch (Exception e) {
                    return;
                }
            }
        }

        private void serve(Socket s) {
            try {
                InputStream in = s.getInputStream();
                StringBuilder head = new StringBuilder();
                while (!head.toString().endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        s.close();
                        return;
                    }
                    head.append((char) b);
                }
                String key = key(head);
                String accept = accept(key);
                String path = head.substring(4, head.indexOf(" ", 4));
                String upgrade = "websocket";
                if (path.startsWith("/raw/bad-accept")) {
                    accept = Base64.getEncoder().encodeToString(new byte[20]);
                } else if (path.startsWith("/raw/no-upgrade")) {
                    upgrade = "h2c";
                }
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: " + upgrade + "\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: " + accept + "\r\n"
                        + (head.toString().toLowerCase().contains("sec-websocket-protocol: chat") ? "Sec-WebSocket-Protocol: chat\r\n" : "")
                        + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                handshakes.incrementAndGet();
                if (path.equals("/raw") || path.startsWith("/raw?")) { // the others are the proxy's to close
                    Connection c = new Connection(s, head.toString(), key, lastKey);
                    lastKey = key;
                    connections.add(c);
                }
            } catch (Exception e) {
                try {
                    s.close();
                } catch (Exception ignored) {
                    // closing anyway
                }
            }
        }

        @Override
        public void close() throws Exception {
            socket.close();
        }

        /** One upgraded connection: its head and key, raw reads and writes; {@code eof} gets true at the proxy's FIN. */
        static final class Connection {
            final Socket socket;
            final String head;
            final String key;
            final String previousKey;
            final LinkedBlockingQueue<Boolean> eof = new LinkedBlockingQueue<>();
            private final LinkedBlockingQueue<Integer> bytes = new LinkedBlockingQueue<>();

            Connection(Socket socket, String head, String key, String previousKey) {
                this.socket = socket;
                this.head = head;
                this.key = key;
                this.previousKey = previousKey;
                Thread reader = new Thread(this::readLoop, "raw-upgrade-reader");
                reader.setDaemon(true);
                reader.start();
            }

            private void readLoop() {
                try {
                    InputStream in = socket.getInputStream();
                    for (int b; (b = in.read()) >= 0; ) {
                        bytes.add(b);
                    }
                    eof.add(true);
                    socket.close(); // the proxy's FIN: our side closes too
                } catch (Exception e) {
                    eof.add(false);
                }
            }

            String read(int n) throws InterruptedException {
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                for (int i = 0; i < n; i++) {
                    Integer b = bytes.poll(5, TimeUnit.SECONDS);
                    assertThat(b).as("byte " + i + " of " + n + " within 5 s").isNotNull();
                    got.write(b);
                }
                return got.toString(StandardCharsets.US_ASCII);
            }

            void write(String text) throws Exception {
                socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
            }
        }
    }
}
