package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.RestartUnderLoadIT;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WebSocket opened before a hand-over ({@code run --takeover}) keeps echoing through the old
 * process while it drains; the old process exits once the WebSocket closes, well before
 * {@code drain_timeout}.
 */
class RestartWebSocketIT {
    /** Text messages the client receives. */
    private static final class Received implements WebSocket.Listener {
        final LinkedBlockingQueue<String> messages = new LinkedBlockingQueue<>();
        private StringBuilder text = new StringBuilder();

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

        String next() throws InterruptedException {
            String m = messages.poll(5, TimeUnit.SECONDS);
            assertThat(m).as("an echo within 5 s").isNotNull();
            return m;
        }
    }

    @Test
    void aWebSocketOpenedBeforeAHandOverEchoesUntilItClosesAndThenTheOldProcessExits(@TempDir Path dir) throws Exception {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Path handover = dir.resolve("takeover.sock");
        Path config = dir.resolve("paduraksa.yaml");
        try (WebSocketOrigin origin = new WebSocketOrigin(); HttpClient client = HttpClient.newHttpClient()) {
            Files.writeString(config, """
                    server: {drain_timeout: 30s}
                    listeners:
                      - {name: public, address: "127.0.0.1:%d", protocols: [http1]}
                    clusters:
                      ws:
                        destinations: [{url: "%s"}]
                    hosts:
                      - names: ["127.0.0.1"]
                        routes:
                          - {path: /ws, forward: ws}
                    """.formatted(port, origin.url()), StandardCharsets.UTF_8);
            Process old = RestartUnderLoadIT.startServer(config, dir.resolve("old.log"), List.of("--takeover-socket", handover.toString()));
            Process next = null;
            try {
                RestartUnderLoadIT.awaitServing(dir.resolve("old.log"), old.pid());
                RestartUnderLoadIT.awaitHandOverSocket(dir.resolve("old.log"));
                Received r = new Received();
                WebSocket ws = client.newWebSocketBuilder()
                        .buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"), r).get(5, TimeUnit.SECONDS);
                ws.sendText("before", true).get(5, TimeUnit.SECONDS);
                assertThat(r.next()).isEqualTo("before");

                next = RestartUnderLoadIT.startServer(config, dir.resolve("new.log"),
                        List.of("--takeover", "--takeover-socket", handover.toString()));
                RestartUnderLoadIT.awaitServing(dir.resolve("new.log"), next.pid());
                io.paduraksa.server.testing.Await.until("old process draining", () -> read(dir.resolve("old.log"))
                        .contains("draining 1 open connections"), java.time.Duration.ofSeconds(10));
                for (int i = 0; i < 3; i++) {
                    ws.sendText("during drain " + i, true).get(5, TimeUnit.SECONDS);
                    assertThat(r.next()).isEqualTo("during drain " + i);
                    assertThat(old.isAlive()).as("the old process drains while the WebSocket is open").isTrue();
                }
                long closedAt = System.nanoTime();
                ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
                assertThat(old.waitFor(20, TimeUnit.SECONDS)).as("old process exits once the WebSocket closed").isTrue();
                assertThat(old.exitValue()).isZero();
                assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - closedAt)).as("well before drain_timeout (30 s)")
                        .isLessThan(15);
                assertThat(read(dir.resolve("old.log"))).doesNotContain("drain timeout");
            } finally {
                old.destroyForcibly();
                old.waitFor(10, TimeUnit.SECONDS);
                if (next != null) {
                    next.destroyForcibly();
                    next.waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
