package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.RestartUnderLoadIT;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WebSockets across restarts. A WebSocket opened before a hand-over ({@code run --takeover}) or a
 * socket-activated restart in {@code systemctl restart} order (the old process stopped and gone
 * before the new one starts) keeps echoing through the old process while it drains; the old process
 * exits once the WebSocket closes, well before {@code drain_timeout}. One left open is cut when
 * {@code drain_timeout} passes, and the old process exits then, with code 0.
 */
class RestartWebSocketIT {
    /** Text messages the client receives, and the end of the WebSocket (a close frame or an error). */
    private static final class Received implements WebSocket.Listener {
        final LinkedBlockingQueue<String> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<String> ended = new CompletableFuture<>();
        private StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            ended.complete("close " + statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            ended.complete("error " + error);
        }

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

    private static String config(int port, String drainTimeout, WebSocketOrigin origin) {
        return """
                server: {drain_timeout: %s}
                listeners:
                  - {name: public, address: "127.0.0.1:%d", protocols: [http1]}
                clusters:
                  ws:
                    destinations: [{url: "%s"}]
                hosts:
                  - names: ["127.0.0.1"]
                    routes:
                      - {path: /ws, forward: ws}
                      - {path: /, respond: {status: 200, body: "ok"}}
                """.formatted(drainTimeout, port, origin.url());
    }

    /**
     * {@code systemctl restart} under socket activation: the launcher holds the listening socket (as
     * the socket unit does), SIGTERMs the old process and starts the new one only once the old one
     * exited. The WebSocket keeps echoing through the old process while it drains; a connection made
     * meanwhile waits in the accept queue (nobody accepts: the old process closed its copy of the
     * socket, the new one does not run yet) and is answered by the new process once the WebSocket
     * closed and the old process exited.
     */
    @Test
    void aWebSocketEchoesThroughASocketActivatedRestartUntilItClosesAndThenTheNewProcessAnswers(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("paduraksa.yaml");
        try (WebSocketOrigin origin = new WebSocketOrigin(); HttpClient client = HttpClient.newHttpClient();
             RestartUnderLoadIT.Launcher launcher = new RestartUnderLoadIT.Launcher(dir, config)) {
            int port = Integer.parseInt(launcher.command(null)[1]);
            Files.writeString(config, config(port, "30s", origin), StandardCharsets.UTF_8);
            long old = Long.parseLong(launcher.command("start 0")[1]);
            Path oldLog = dir.resolve("server-0.log");
            RestartUnderLoadIT.awaitServing(oldLog, old);
            String listening = RestartUnderLoadIT.fd3(old);
            Received r = new Received();
            WebSocket ws = client.newWebSocketBuilder()
                    .buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"), r).get(5, TimeUnit.SECONDS);
            ws.sendText("before", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("before");

            launcher.send("stop " + old); // answered once the old process exited
            Await.until("old process draining", () -> read(oldLog).contains("draining 1 open connections"), Duration.ofSeconds(10));
            RestartUnderLoadIT.awaitListenerClosed(old, listening);
            CompletableFuture<RawHttp.Response> waiting = CompletableFuture.supplyAsync(() -> {
                try (RawHttp c = new RawHttp(port)) {
                    c.socket().setSoTimeout(30_000);
                    return c.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, task -> Thread.ofPlatform().daemon().name("waiting-client").start(task)); // not the common pool: it blocks
            for (int i = 0; i < 3; i++) {
                ws.sendText("during drain " + i, true).get(5, TimeUnit.SECONDS);
                assertThat(r.next()).isEqualTo("during drain " + i);
                assertThat(ProcessHandle.of(old).map(ProcessHandle::isAlive)).as("the old process drains while the WebSocket is open")
                        .contains(true);
            }
            assertThat(waiting).as("a connection made during the drain waits for the next process").isNotDone();

            long closedAt = System.nanoTime();
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
            assertThat(launcher.answer(Duration.ofSeconds(20))).as("old process exit").containsExactly("exited", "0");
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - closedAt)).as("well before drain_timeout (30 s)")
                    .isLessThan(15);
            assertThat(read(oldLog)).doesNotContain("drain timeout");

            long next = Long.parseLong(launcher.command("start 1")[1]);
            RestartUnderLoadIT.awaitServing(dir.resolve("server-1.log"), next);
            RawHttp.Response answer = waiting.get(30, TimeUnit.SECONDS);
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("ok");
            assertThat(launcher.command("stop " + next)).containsExactly("exited", "0");
        }
    }

    /**
     * A WebSocket nobody closes is cut when {@code drain_timeout} passes: it echoes until then, the
     * old process closes it (the client sees its end, the upstream connection closes too) and exits
     * on time with code 0.
     */
    @Test
    void aWebSocketLeftOpenIsClosedAtDrainTimeoutAndTheOldProcessExitsWithZero(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("paduraksa.yaml");
        long drainMillis = 2_000;
        try (WebSocketOrigin origin = new WebSocketOrigin(); HttpClient client = HttpClient.newHttpClient();
             RestartUnderLoadIT.Launcher launcher = new RestartUnderLoadIT.Launcher(dir, config)) {
            int port = Integer.parseInt(launcher.command(null)[1]);
            Files.writeString(config, config(port, drainMillis + "ms", origin), StandardCharsets.UTF_8);
            long old = Long.parseLong(launcher.command("start 0")[1]);
            Path oldLog = dir.resolve("server-0.log");
            RestartUnderLoadIT.awaitServing(oldLog, old);
            Received r = new Received();
            WebSocket ws = client.newWebSocketBuilder()
                    .buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"), r).get(5, TimeUnit.SECONDS);
            ws.sendText("before", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("before");

            long stoppedAt = System.nanoTime();
            launcher.send("stop " + old);
            Await.until("old process draining", () -> read(oldLog).contains("draining 1 open connections"), Duration.ofSeconds(10));
            ws.sendText("during drain", true).get(5, TimeUnit.SECONDS);
            assertThat(r.next()).isEqualTo("during drain");
            assertThat(r.ended).isNotDone();

            assertThat(launcher.answer(Duration.ofMillis(drainMillis + 10_000))).as("old process exit").containsExactly("exited", "0");
            long exitMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
            assertThat(exitMillis).as("SIGTERM to exit, drain_timeout %d ms", drainMillis)
                    .isBetween(drainMillis, drainMillis + 4_000);
            assertThat(read(oldLog)).contains("drain timeout: closing 1 connections");
            assertThat(r.ended.get(5, TimeUnit.SECONDS)).as("the client sees its WebSocket end").isNotNull();
            Await.until("the upstream WebSocket connection closed", () -> origin.closed.get() == origin.opened.get());
            System.out.printf("WebSocket left open: the old process exited %d ms after SIGTERM (drain_timeout %d ms)%n",
                    exitMillis, drainMillis);
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
