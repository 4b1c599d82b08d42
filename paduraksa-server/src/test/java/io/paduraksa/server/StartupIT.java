package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.ServerProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server process while it starts: SIGHUPs sent all through the start do not end it (the
 * reload they ask for runs once it serves), and a listener that cannot bind ends it with exit code 1
 * and one line naming the listener and its address.
 */
class StartupIT {
    private static final String REQUEST = "GET /v HTTP/1.1\r\nHost: a.test\r\n\r\n";
    private static final Pattern SERVING = Pattern.compile("serving .* on \\{public=/127\\.0\\.0\\.1:(\\d+)");

    /**
     * SIGHUP in a tight loop from the process's first log line (the JVM's own boot, before
     * {@code main}, cannot be covered: the JVM's default SIGHUP action ends it) until it answers.
     */
    @Test
    void sighupsDuringTheStartAreSurvivedAndTheServerServes(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("paduraksa.yaml");
        Files.writeString(config, ReloadIT.yaml("v1") + "server: {drain_timeout: 1s}\n");
        try (ServerProcess server = ServerProcess.start(config, dir.resolve("server.log"))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.log().isEmpty()) {
                assertThat(server.process().isAlive()).as(server.withLog("alive before its first line")).isTrue();
                assertThat(System.nanoTime() - deadline).as(server.withLog("first line within 30 s")).isNegative();
                Thread.onSpinWait();
            }
            int sent = 0;
            int sentBeforeServing = 0;
            String answer = null;
            while (answer == null) {
                int kill = server.hangup();
                assertThat(server.process().isAlive()).as(server.withLog("alive after " + (sent + 1) + " SIGHUPs (exit code "
                        + (server.process().isAlive() ? "-" : server.process().exitValue()) + ")")).isTrue();
                assertThat(kill).as(server.withLog("kill -HUP")).isZero();
                sent++;
                Matcher m = SERVING.matcher(server.log());
                if (!m.find()) {
                    sentBeforeServing = sent;
                } else {
                    answer = bodyAt(Integer.parseInt(m.group(1)));
                }
                assertThat(System.nanoTime() - deadline).as(server.withLog("serving within 30 s")).isNegative();
            }
            assertThat(answer).as(server.withLog("the answer after " + sent + " SIGHUPs")).isEqualTo("v1");
            assertThat(sentBeforeServing).as(server.withLog("SIGHUPs sent before the serving line")).isPositive();
            String log = server.log();
            assertThat(count(log, "SIGHUP received while starting: the reload runs once the configuration serves"))
                    .as(server.withLog("remembered once, however many came")).isEqualTo(1);
            assertThat(log).doesNotContain("SIGHUP is ignored").doesNotContain("Exception");
            ReloadIT.awaitTrue(() -> server.withLog("the remembered reload ran"), () -> server.log().contains("reloaded " + config));
            assertThat(server.log()).as(server.withLog("the remembered reload"))
                    .contains("SIGHUP received while starting: reloading now that the configuration serves");
            server.process().destroy(); // SIGTERM: still the graceful stop
            assertThat(server.awaitExit(Duration.ofSeconds(15))).as(server.withLog("exit code after SIGTERM")).isZero();
        }
    }

    /** Under nohup the JVM may not handle SIGHUP at all: the log says so, and a SIGHUP is ignored. */
    @Test
    void underNohupTheLogSaysSighupCannotReload(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("paduraksa.yaml");
        Files.writeString(config, ReloadIT.yaml("v1"));
        try (ServerProcess server = ServerProcess.start(config, dir.resolve("server.log"), List.of("nohup"))) {
            int port = server.awaitPort("public");
            ReloadIT.awaitTrue(() -> server.withLog("the nohup warning"), () -> server.log().contains("SIGHUP is ignored by this process"));
            assertThat(server.hangup()).isZero();
            assertThat(bodyAt(port)).as(server.withLog("answer after SIGHUP")).isEqualTo("v1");
            assertThat(server.process().isAlive()).as(server.withLog("alive after SIGHUP")).isTrue();
        }
    }

    @Test
    void aListenerThatCannotBindEndsTheStartWithOneLineNamingIt(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            Path config = dir.resolve("paduraksa.yaml");
            Files.writeString(config, """
                    listeners:
                      - {name: public, address: "127.0.0.1:0"}
                      - {name: second, address: "127.0.0.1:%d"}
                    hosts:
                      - names: [a.test]
                        routes:
                          - {path: /, respond: {status: 200}}
                    """.formatted(port));
            try (ServerProcess server = ServerProcess.start(config, dir.resolve("server.log"))) {
                assertThat(server.awaitExit(Duration.ofSeconds(30))).as(server.withLog("exit code")).isEqualTo(1);
                List<String> errors = new ArrayList<>();
                for (String line : server.log().split("\n")) {
                    if (line.contains("cannot") || line.contains("Exception") || line.contains(" ERROR ") || line.contains(" WARN ")
                            || line.startsWith("\tat ")) {
                        errors.add(line);
                    }
                }
                assertThat(errors).as(server.withLog("error lines")).containsExactly(
                        "paduraksa: cannot start: listener 'second' (listeners[1]) cannot bind 127.0.0.1:" + port
                                + ": Address already in use");
                assertThat(server.log()).as(server.withLog("no drain on a failed start")).doesNotContain("stopping:");
            }
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static String bodyAt(int port) {
        try (RawHttp c = new RawHttp(port)) {
            return c.exchange(REQUEST).body();
        } catch (IOException e) {
            return null; // not answering yet: keep sending
        }
    }
}
