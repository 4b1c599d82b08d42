package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.ServerProcess;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reload under load: clients on keep-alive connections (three HTTP/1.1, one h2c) never see a failed request while the
 * route's answer changes, a broken file is turned away with its location and the old answer stays,
 * and a real server process reloads on SIGHUP and exits 0 on SIGTERM.
 */
class ReloadIT {
    private static final String REQUEST = "GET /v HTTP/1.1\r\nHost: a.test\r\n\r\n";
    private static final Pattern BODY = Pattern.compile("v(\\d+)");

    static String yaml(String body) {
        return """
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /v, respond: {status: 200, body: "%s"}}
                """.formatted(body);
    }

    /**
     * A client on one keep-alive connection (HTTP/1.1, or h2c with one stream after another) that
     * asks for /v until stopped and records every problem.
     */
    private static final class Client extends Thread {
        private final int port;
        private final boolean h2c;
        private final ReloadState shared;
        final AtomicLong answered = new AtomicLong();
        volatile int lastVersion;
        volatile boolean done;

        Client(int port, boolean h2c, ReloadState shared, int n) {
            super("reload-client-" + n + (h2c ? "-h2c" : "-http1"));
            this.port = port;
            this.h2c = h2c;
            this.shared = shared;
        }

        @Override
        public void run() {
            try {
                if (h2c) {
                    runH2c();
                } else {
                    runHttp1();
                }
            } catch (IOException | RuntimeException e) {
                shared.problems.add(getName() + ": " + e);
            }
        }

        private void runHttp1() throws IOException {
            try (RawHttp c = new RawHttp(port)) {
                while (!done) {
                    // A request sent after reload() returned must see that version or a later one.
                    int published = shared.published;
                    RawHttp.Response r = c.exchange(REQUEST);
                    if (r.status() != 200 || !check(published, r.body())) {
                        shared.problems.add(getName() + ": unexpected answer " + r.statusLine() + " '" + r.body() + "'");
                        return;
                    }
                }
            }
        }

        private void runH2c() throws IOException {
            try (ShutdownIT.H2 h2 = new ShutdownIT.H2(port)) {
                h2.handshake(65_535);
                for (int stream = 1; !done; stream += 2) {
                    int published = shared.published;
                    int id = stream;
                    h2.headers(id, true, ":method", "GET", ":scheme", "http", ":path", "/v", ":authority", "a.test");
                    ShutdownIT.Frame head = h2.readUntil(f -> f.stream() == id && f.type() == ShutdownIT.H2.HEADERS);
                    ShutdownIT.Frame data = h2.readUntil(f -> f.stream() == id && f.type() == ShutdownIT.H2.DATA);
                    h2.windowUpdate(0, data.payload().length); // keep the connection window open
                    String body = new String(data.payload(), StandardCharsets.US_ASCII);
                    // 0x88: ":status: 200" from HPACK's static table (RFC 7541 appendix A, index 8).
                    if (head.payload()[0] != (byte) 0x88 || !data.endStream() || !check(published, body)) {
                        shared.problems.add(getName() + ": unexpected answer on stream " + id + " '" + body + "'");
                        return;
                    }
                }
            }
        }

        private boolean check(int published, String body) {
            Matcher m = BODY.matcher(body);
            if (!m.matches()) {
                return false;
            }
            int version = Integer.parseInt(m.group(1));
            if (version < published || version < lastVersion) {
                shared.problems.add(getName() + ": saw v" + version + " after v" + Math.max(published, lastVersion));
            }
            lastVersion = version;
            answered.incrementAndGet();
            return true;
        }
    }

    private static final class ReloadState {
        volatile int published = 1;
        final List<String> problems = new CopyOnWriteArrayList<>();
    }

    @Test
    void reloadsUnderKeepAliveLoadWithoutAFailedRequest() throws Exception {
        ReloadState shared = new ReloadState();
        List<Client> clients = new ArrayList<>();
        try (TestServer server = TestServer.start(yaml("v1")); RawHttp probe = new RawHttp(server.port("public"))) {
            long firstGeneration = server.server().store().current().generation();
            for (int i = 0; i < 4; i++) {
                clients.add(new Client(server.port("public"), i == 3, shared, i));
            }
            clients.forEach(Thread::start);
            awaitTrue("every client answered", () -> clients.stream().allMatch(c -> c.answered.get() >= 50));
            for (int v = 2; v <= 4; v++) {
                long[] before = clients.stream().mapToLong(c -> c.answered.get()).toArray();
                assertThat(server.reload(yaml("v" + v))).as("reload to v%d", v).isTrue();
                shared.published = v;
                assertThat(probe.exchange(REQUEST).body()).as("first request after reload %d", v).isEqualTo("v" + v);
                int version = v;
                awaitTrue("every client saw v" + v, () -> clients.stream().allMatch(c -> c.lastVersion >= version));
                for (int i = 0; i < clients.size(); i++) {
                    int n = i;
                    awaitTrue("client " + i + " kept going", () -> clients.get(n).answered.get() >= before[n] + 20);
                }
                assertThat(shared.problems).isEmpty();
            }
            assertThat(server.server().store().current().generation()).isEqualTo(firstGeneration + 3);
            assertThat(server.server().reloader().reloads()).isEqualTo(3);
            stop(clients); // before the server closes, which would end their connections
        } finally {
            stop(clients);
        }
        assertThat(shared.problems).isEmpty();
        assertThat(clients).allSatisfy(c -> assertThat(c.answered.get()).isGreaterThan(100));
    }

    private static void stop(List<Client> clients) throws InterruptedException {
        for (Client c : clients) {
            c.done = true;
        }
        for (Client c : clients) {
            c.join(5_000);
        }
    }

    @Test
    void rejectsASyntaxErrorWithItsLocationAndKeepsServing() throws Exception {
        try (TestServer server = TestServer.start(yaml("v1")); RawHttp c = new RawHttp(server.port("public"))) {
            long generation = server.server().store().current().generation();
            String broken = yaml("v2") + "  - names: [b.test\n";
            assertThat(server.reload(broken)).isFalse();
            assertThat(server.server().reloader().lastError())
                    .contains(server.configFile() + ":7:12: YAML syntax error");
            assertThat(c.exchange(REQUEST).body()).isEqualTo("v1");
            assertThat(server.server().store().current().generation()).isEqualTo(generation);
            assertThat(server.server().reloader().failures()).isEqualTo(1);
            assertThat(server.reload(yaml("v3"))).isTrue();
            assertThat(server.server().reloader().lastError()).isNull();
            assertThat(c.exchange(REQUEST).body()).isEqualTo("v3");
        }
    }

    @Test
    void rejectsAnUnknownClusterWithItsPathAndLineAndKeepsServing() throws Exception {
        try (TestServer server = TestServer.start(yaml("v1")); RawHttp c = new RawHttp(server.port("public"))) {
            String broken = yaml("v2") + "      - {path: /api, forward: billing}\n";
            assertThat(server.reload(broken)).isFalse();
            assertThat(server.server().reloader().lastError())
                    .contains(server.configFile() + ":7:")
                    .contains("hosts[0].routes[1].forward")
                    .contains("billing");
            assertThat(c.exchange(REQUEST).body()).isEqualTo("v1");
            assertThat(c.exchange("GET /api HTTP/1.1\r\nHost: a.test\r\n\r\n").status()).isEqualTo(404);
        }
    }

    @Test
    void aServerProcessReloadsOnSighupAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("paduraksa.yaml");
        Files.writeString(config, yaml("v1") + "server: {drain_timeout: 2s}\n");
        // The log goes with the temporary folder: every failure below carries its text.
        try (ServerProcess server = ServerProcess.start(config, dir.resolve("server.log"))) {
            int port = server.awaitPort("public");
            try (RawHttp c = new RawHttp(port)) {
                assertThat(c.exchange(REQUEST).body()).as(server.withLog("first answer")).isEqualTo("v1");
            }
            Files.writeString(config, yaml("v2") + "server: {drain_timeout: 2s}\n");
            assertThat(server.hangup()).as(server.withLog("kill -HUP")).isZero();
            awaitTrue(() -> server.withLog("the process answers v2 after SIGHUP"), () -> bodyAt(port).equals("v2"));
            // The new snapshot is published before the reload is logged: a request can see v2 first.
            awaitTrue(() -> server.withLog("the log says it reloaded"), () -> server.log().contains("reloaded " + config));
            assertThat(server.log()).doesNotContain("SIGHUP is ignored");

            try (RawHttp idle = new RawHttp(port)) {
                assertThat(idle.exchange(REQUEST).body()).as(server.withLog("answer on the idle connection")).isEqualTo("v2");
                server.process().destroy(); // SIGTERM
                assertThat(idle.isClosedByServer()).as(server.withLog("idle keep-alive connection closed by the stop")).isTrue();
            }
            assertThat(server.awaitExit(Duration.ofSeconds(15))).as(server.withLog("exit code after SIGTERM")).isZero();
            assertThat(server.log()).contains("stopped");
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        }
    }

    private static String bodyAt(int port) {
        try (RawHttp c = new RawHttp(port)) {
            return c.exchange(REQUEST).body();
        } catch (IOException e) {
            return e.toString();
        }
    }

    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        awaitTrue(() -> what, condition);
    }

    /** Waits up to 10 s; the message is made only on failure (it may carry a log's text). */
    static void awaitTrue(Supplier<String> what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what.get());
            }
            Thread.sleep(5);
        }
    }
}
