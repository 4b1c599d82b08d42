package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * WebSocket (HTTP/1.1 Upgrade) through the proxy: a real client (the JDK's) and a real server
 * (Netty's handshake) exchange text, binary and a 1 MiB message; either side's close reaches the
 * other; a reload that leaves the cluster alone keeps an open WebSocket.
 */
class WebSocketForwardingIT {
    private static final String CONFIG = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
            clusters:
              ws:
                destinations: [{url: "%s"}]
                timeouts: {idle: 5s}
              plain:
                destinations: [{url: "%s"}]
            hosts:
              - names: ["127.0.0.1"]
                routes:
            %s      - {path: /ws, forward: ws}
                  - {path: /, forward: plain}
            """;
    private static WebSocketOrigin wsOrigin;
    private static TestOrigin plainOrigin;
    private static TestServer server;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        wsOrigin = new WebSocketOrigin();
        plainOrigin = new TestOrigin("plain");
        server = TestServer.start(config(""));
        client = HttpClient.newHttpClient();
    }

    private static String config(String extraRoute) {
        return CONFIG.formatted(wsOrigin.url(), plainOrigin.url(), extraRoute);
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
        plainOrigin.close();
        wsOrigin.close();
    }

    /** Collects what the client receives, message by message. */
    static final class Received implements WebSocket.Listener {
        final LinkedBlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private StringBuilder text = new StringBuilder();
        private java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text = new StringBuilder();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            binary.writeBytes(b);
            if (last) {
                messages.add(binary.toByteArray());
                binary = new java.io.ByteArrayOutputStream();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }

        Object next() throws InterruptedException {
            Object m = messages.poll(5, TimeUnit.SECONDS);
            assertThat(m).as("a message within 5 s").isNotNull();
            return m;
        }
    }

    private static WebSocket open(Received r) throws Exception {
        return client.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + server.port("public") + "/ws"), r)
                .get(5, TimeUnit.SECONDS);
    }

    @Test
    void textBinaryAndABigMessageEchoThrough() throws Exception {
        Received r = new Received();
        WebSocket ws = open(r);
        try {
            ws.sendText("hello", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("hello");
            ws.sendBinary(ByteBuffer.wrap(new byte[] {0, 1, 2, (byte) 0xFF}), true).get(5, TimeUnit.SECONDS);
            assertThat((byte[]) r.next()).containsExactly(0, 1, 2, (byte) 0xFF);
            byte[] big = new byte[1 << 20];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 31);
            }
            ws.sendBinary(ByteBuffer.wrap(big), true).get(5, TimeUnit.SECONDS);
            assertThat(Arrays.equals((byte[]) r.next(), big)).as("1 MiB echoed intact").isTrue();
        } finally {
            ws.abort();
        }
    }

    @Test
    void clientCloseReachesTheUpstream() throws Exception {
        int closedBefore = wsOrigin.closed.get();
        Received r = new Received();
        WebSocket ws = open(r);
        ws.sendText("ping", true).get(5, TimeUnit.SECONDS);
        assertThat(r.next()).isEqualTo("ping");
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
        assertThat(r.closed.get(5, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        TunnelTesting.waitFor(() -> wsOrigin.closed.get(), closedBefore + 1);
    }

    @Test
    void upstreamCloseReachesTheClient() throws Exception {
        Received r = new Received();
        WebSocket ws = open(r);
        ws.sendText("bye", true).get(5, TimeUnit.SECONDS);
        assertThat(r.closed.get(5, TimeUnit.SECONDS)).isEqualTo(1000);
    }

    @Test
    void rawClientDisconnectClosesTheUpstreamConnection() throws Exception {
        int closedBefore = wsOrigin.closed.get();
        try (Socket s = new Socket("127.0.0.1", server.port("public"))) {
            s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String head = TunnelTesting.readHead(s.getInputStream());
            assertThat(head).startsWith("HTTP/1.1 101 ").containsIgnoringCase("upgrade: websocket")
                    .containsIgnoringCase("connection: upgrade")
                    .containsIgnoringCase("sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        }
        TunnelTesting.waitFor(() -> wsOrigin.closed.get(), closedBefore + 1);
    }

    @Test
    void refusedUpgradeIsAnOrdinaryResponse() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port("public"))) {
            s.getOutputStream().write(("GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String head = TunnelTesting.readHead(s.getInputStream());
            assertThat(head).startsWith("HTTP/1.1 200 ");
        }
        assertThat(plainOrigin.lastRequest()).contains("upgrade: websocket\n", "connection: Upgrade\n");
    }

    @Test
    void reloadWithTheClusterUnchangedKeepsTheWebSocket() throws Exception {
        Received r = new Received();
        WebSocket ws = open(r);
        try {
            ws.sendText("before", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("before");
            assertThat(server.reload(config("      - {path: /other, respond: {status: 204}}\n"))).isTrue();
            ws.sendText("after", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("after");
            assertThat(r.closed).isNotDone();
        } finally {
            ws.abort();
            server.reload(config(""));
        }
    }
}
