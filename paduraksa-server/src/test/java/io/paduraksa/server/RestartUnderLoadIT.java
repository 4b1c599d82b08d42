package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.ServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restarts under constant HTTP/1.1 and h2c load. Socket activation: a minimal {@code LISTEN_FDS}
 * launcher (python3, the way systemd does it) binds the port once and starts each new real server
 * process with the socket as fd 3. In one test the new one starts first and the old one gets
 * SIGTERM once the new one serves; in another, as {@code systemctl restart} does it, the old one is
 * stopped and has exited before the new one starts, so connections made in between wait in the
 * kernel's accept queue. Five restarts of either kind refuse no connection and fail no request. The
 * control, a plain stop/start of a server that binds the port itself, must show refused
 * connections: proof the clients can see them.
 */
public class RestartUnderLoadIT {
    /** Restarts per test: each is a JVM start under load (seconds); three show every restart's guarantees. */
    private static final int RESTARTS = 3;
    private static final String REQUEST = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";

    /** Binds 127.0.0.1:0 once; "start N" forks a server with the socket as fd 3, "stop PID" sends SIGTERM and reaps it. */
    private static final String LAUNCHER = """
            import os, signal, socket, sys
            logdir, cmd = sys.argv[1], sys.argv[2:]
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(('127.0.0.1', 0))
            s.listen(1024)
            print('port', s.getsockname()[1], flush=True)
            for line in sys.stdin:
                w = line.split()
                if w[0] == 'start':
                    log = os.open(os.path.join(logdir, 'server-' + w[1] + '.log'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    pid = os.fork()
                    if pid == 0:
                        os.dup2(log, 1)
                        os.dup2(log, 2)
                        if s.fileno() != 3:
                            os.dup2(s.fileno(), 3)
                        os.set_inheritable(3, True)
                        env = dict(os.environ, LISTEN_FDS='1', LISTEN_PID=str(os.getpid()), LISTEN_FDNAMES='public')
                        os.execve(cmd[0], cmd, env)
                    os.close(log)
                    print('pid', pid, flush=True)
                elif w[0] == 'stop':
                    pid = int(w[1])
                    os.kill(pid, signal.SIGTERM)
                    _, status = os.waitpid(pid, 0)
                    print('exited', os.waitstatus_to_exitcode(status), flush=True)
            """;

    private static String yaml(int port) {
        return """
                server: {drain_timeout: 10s}
                listeners:
                  - {name: public, address: "127.0.0.1:%d", protocols: [http1, h2c]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 200, body: "ok"}}
                """.formatted(port);
    }

    /** What the clients saw. A refused connect or a failed request on a fresh connection counts; a reused one closed by a draining server is retried. */
    private static final class Load {
        final AtomicLong answered = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong retried = new AtomicLong();
        /** What each retried request met, for the failure message. */
        final List<String> retriedDetails = new CopyOnWriteArrayList<>();
        final List<String> failures = new CopyOnWriteArrayList<>();
        /** Longest time from a request's start (its connect, on a fresh connection) to its answer. */
        final AtomicLong longestWaitNanos = new AtomicLong();
        /** When each new server process was started (nanoTime), for {@link #waitedFor}. */
        final List<Long> starts = new CopyOnWriteArrayList<>();
        /** Per start: requests begun before that process existed and answered after it started. */
        final AtomicLongArray waitedFor = new AtomicLongArray(16);
        volatile boolean done;

        void answered(long began, long now) {
            answered.incrementAndGet();
            longestWaitNanos.accumulateAndGet(now - began, Math::max);
            for (int i = 0; i < starts.size(); i++) {
                long start = starts.get(i);
                if (began - start < 0 && now - start > 0) {
                    waitedFor.incrementAndGet(i);
                }
            }
        }
    }

    private static final class Client extends Thread {
        private final int port;
        private final boolean h2c;
        private final Load load;
        private final int readTimeoutMillis;
        final AtomicLong answered = new AtomicLong();

        Client(int port, boolean h2c, Load load, int n) {
            this(port, h2c, load, n, 5_000);
        }

        /** {@code readTimeoutMillis}: how long a request may wait for its answer before it counts as failed. */
        Client(int port, boolean h2c, Load load, int n, int readTimeoutMillis) {
            super("restart-client-" + n + (h2c ? "-h2c" : "-http1"));
            this.port = port;
            this.h2c = h2c;
            this.load = load;
            this.readTimeoutMillis = readTimeoutMillis;
        }

        @Override
        public void run() {
            while (!load.done) {
                try {
                    if (h2c) {
                        h2c();
                    } else {
                        http1();
                    }
                } catch (ConnectException e) {
                    load.refused.incrementAndGet();
                    pause();
                } catch (IOException e) {
                    if (!reused) {
                        load.failures.add(getName() + ": request on a fresh connection failed: " + e);
                    } else {
                        load.retried.incrementAndGet();
                        load.retriedDetails.add(getName() + ": " + e);
                    }
                }
            }
        }

        /** Whether the connection that failed had answered a request already (set by http1/h2c). */
        private boolean reused;

        private int http1() throws IOException {
            reused = false;
            long began = System.nanoTime();
            try (RawHttp c = new RawHttp(port)) {
                c.socket().setSoTimeout(readTimeoutMillis);
                while (!load.done) {
                    RawHttp.Response r = c.exchange(REQUEST);
                    if (r.status() != 200 || !r.body().equals("ok")) {
                        load.failures.add(getName() + ": unexpected answer " + r.statusLine() + " '" + r.body() + "'");
                    }
                    began = answered(began);
                    if ("close".equalsIgnoreCase(r.header("connection"))) {
                        return 1;
                    }
                }
            }
            return 1;
        }

        private int h2c() throws IOException {
            reused = false;
            long began = System.nanoTime();
            try (ShutdownIT.H2 h2 = new ShutdownIT.H2(port).readTimeout(readTimeoutMillis)) {
                h2.handshake(65_535);
                for (int stream = 1; !load.done; stream += 2) {
                    int id = stream;
                    h2.headers(id, true, ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
                    ShutdownIT.Frame head = h2.readUntil(f -> f.stream() == id && f.type() == ShutdownIT.H2.HEADERS
                            || f.type() == ShutdownIT.H2.GOAWAY);
                    if (head.type() == ShutdownIT.H2.GOAWAY) {
                        return 1; // the old process drains: a new connection goes to the new one
                    }
                    ShutdownIT.Frame data = h2.readUntil(f -> f.stream() == id && f.type() == ShutdownIT.H2.DATA);
                    h2.windowUpdate(0, data.payload().length);
                    String body = new String(data.payload(), StandardCharsets.US_ASCII);
                    if (head.payload()[0] != (byte) 0x88 || !body.equals("ok")) {
                        load.failures.add(getName() + ": unexpected answer on stream " + id + " '" + body + "'");
                    }
                    began = answered(began);
                }
            }
            return 1;
        }

        /** Counts an answer to the request begun at {@code began}; returns when the next one begins (now). */
        private long answered(long began) {
            long now = System.nanoTime();
            reused = true;
            answered.incrementAndGet();
            load.answered(began, now);
            return now;
        }

        private static void pause() {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The python launcher process and its line protocol: the first line is {@code port N}; {@code start
     * N} answers {@code pid PID} (the server logs to {@code dir/server-N.log}); {@code stop PID} sends
     * SIGTERM, waits for the exit and answers {@code exited CODE}.
     */
    public static final class Launcher implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final Writer in;
        final Path dir;
        private final List<Long> started = new ArrayList<>();

        /** Binds 127.0.0.1:0; each server it starts runs {@code run --config config}. */
        public Launcher(Path dir, Path config) throws IOException {
            this.dir = dir;
            Path script = dir.resolve("launcher.py");
            Files.writeString(script, LAUNCHER, StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of("python3", script.toString(), dir.toString()));
            command.addAll(javaCommand(config));
            process = new ProcessBuilder(command).redirectError(dir.resolve("launcher.err").toFile()).start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
            in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        }

        /** Sends {@code line} and reads its answer; {@code null} reads the next line only (the port, first). */
        public String[] command(String line) throws IOException {
            if (line != null) {
                send(line);
            }
            return answer();
        }

        /** Sends {@code line} without reading the answer (a {@code stop} answers only once the server exited). */
        public void send(String line) throws IOException {
            in.write(line + "\n");
            in.flush();
        }

        /** The next answer line, split at spaces; fails when none comes within {@code limit}. */
        public String[] answer(Duration limit) throws Exception {
            // A thread of its own: the common pool may be busy with a test's blocked clients (one thread on 2 cores).
            CompletableFuture<String[]> line = CompletableFuture.supplyAsync(() -> {
                try {
                    return answer();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, r -> Thread.ofPlatform().daemon().name("launcher-answer").start(r));
            try {
                return line.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("no launcher answer within " + limit.toMillis() + " ms; " + logs(), e);
            }
        }

        /** Every server log so far, for failure messages. */
        private String logs() throws IOException {
            StringBuilder b = new StringBuilder();
            try (var files = Files.list(dir)) {
                for (Path log : files.filter(f -> f.getFileName().toString().startsWith("server-")).sorted().toList()) {
                    b.append("\n--- ").append(log.getFileName()).append(":\n").append(read(log));
                }
            }
            return b.toString();
        }

        /** The next answer line, split at spaces. */
        public String[] answer() throws IOException {
            String answer = out.readLine();
            assertThat(answer).as("launcher answer; stderr: %s", Files.exists(dir.resolve("launcher.err"))
                    ? Files.readString(dir.resolve("launcher.err")) : "").isNotNull();
            String[] words = answer.split(" ");
            if (words[0].equals("pid")) {
                started.add(Long.parseLong(words[1]));
            }
            return words;
        }

        /** Ends the launcher, and any server it started that still runs (a test that failed half-way), by PID. */
        @Override
        public void close() throws InterruptedException {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
            for (long pid : started) {
                ProcessHandle.of(pid).filter(p -> p.info().commandLine().orElse("").contains("io.paduraksa.server.Main"))
                        .ifPresent(p -> {
                            p.destroyForcibly();
                            p.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> p).join();
                        });
            }
        }
    }

    public static List<String> javaCommand(Path config) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"),
                "io.paduraksa.server.Main", "run", "--config", config.toString());
    }

    public static void awaitServing(Path log, long pid) {
        Await.until("server " + pid + " serving or failed (" + log + ")", () -> {
            String text = read(log);
            return text.contains("serving ") || text.contains("cannot start") || !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }, Duration.ofSeconds(30));
        assertThat(read(log)).as("server %d log", pid).contains("serving ");
    }

    /** What a process's descriptor 3 is ({@code socket:[INODE]} for the inherited listening socket), or "" when closed. */
    public static String fd3(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "fd", "3")).toString();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Waits until a stopping server closed its copy of the inherited listening socket ({@code
     * listening} is what its fd 3 was while it served): from then on it accepts nothing, and new
     * connections wait in the accept queue for the next process. Its log says "draining" just before.
     */
    public static void awaitListenerClosed(long pid, String listening) {
        assertThat(listening).startsWith("socket:[");
        Await.until("server " + pid + " closed its listening socket", () -> !fd3(pid).equals(listening), Duration.ofSeconds(10));
    }

    /** The server listens for the next hand-over (after "serving": the socket opens once every listener serves). */
    public static void awaitHandOverSocket(Path log) {
        Await.until("hand-over socket open (" + log + ")", () -> read(log).contains("hand-over: a new process started with"),
                Duration.ofSeconds(10));
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    void socketActivationRestartsRefuseNothingAndPlainStopStartDoes(@TempDir Path dir) throws Exception {
        Load load = new Load();
        List<Client> clients = new ArrayList<>();
        Path config = dir.resolve("paduraksa.yaml");
        try (Launcher launcher = new Launcher(dir, config)) {
            int port = Integer.parseInt(launcher.command(null)[1]);
            Files.writeString(config, yaml(port), StandardCharsets.UTF_8);
            long pid = Long.parseLong(launcher.command("start 0")[1]);
            awaitServing(dir.resolve("server-0.log"), pid);
            assertThat(Files.readString(dir.resolve("server-0.log"))).contains("uses the inherited socket fd 3 (public)");
            for (int i = 0; i < 4; i++) {
                clients.add(new Client(port, i == 3, load, i));
            }
            clients.forEach(Thread::start);
            awaitProgress(clients);
            for (int restart = 1; restart <= RESTARTS; restart++) {
                long next = Long.parseLong(launcher.command("start " + restart)[1]);
                awaitServing(dir.resolve("server-" + restart + ".log"), next);
                String[] exited = launcher.command("stop " + pid);
                assertThat(exited[1]).as("old server %d exit code; log:\n%s", pid,
                        Files.readString(dir.resolve("server-" + (restart - 1) + ".log"))).isEqualTo("0");
                pid = next;
                awaitProgress(clients);
            }
            assertThat(load.refused.get()).as("refused connections across " + RESTARTS + " socket-activated restarts").isZero();
            assertThat(load.failures).as("failed requests across " + RESTARTS + " socket-activated restarts").isEmpty();
            assertThat(load.retried.get()).as("requests lost on keep-alive connections a draining server closed"
                    + " (it answers the next request with Connection: close instead): %s", load.retriedDetails).isZero();
            long answeredActivated = load.answered.get();

            // Control: the last activated server and the launcher (the socket's last holder) go; then a
            // server that binds the port itself is stopped and started twice.
            launcher.command("stop " + pid);
            launcher.close();
            for (int restart = 0; restart < 2; restart++) {
                try (ServerProcess plain = ServerProcess.start(config, dir.resolve("plain-" + restart + ".log"))) {
                    plain.awaitPort("public");
                    awaitProgress(clients);
                    plain.process().destroy(); // SIGTERM: stop listening, drain, exit
                    assertThat(plain.awaitExit(Duration.ofSeconds(20))).isZero();
                }
            }
            assertThat(load.refused.get()).as("a plain stop/start refuses connections").isPositive();
            System.out.printf("restart under load: %d requests answered over %d socket-activated restarts, 0 refused, %d"
                    + " retried on reused connections; plain stop/start: %d refused%n",
                    answeredActivated, RESTARTS, load.retried.get(), load.refused.get());
        } finally {
            load.done = true;
            for (Client c : clients) {
                c.join(5_000);
            }
        }
    }

    /**
     * {@code systemctl restart} with socket activation: systemd stops the old service first (SIGTERM,
     * then it waits for the process to exit) and starts the new one only after that, while the socket
     * unit keeps the listening socket open. Connections made while no process serves (the old one's
     * drain and exit, the new one's start) wait in the kernel's accept queue and are answered by the
     * new process: three such restarts under HTTP/1.1 and h2c load refuse no connection and fail no
     * request, and every restart has requests that began before the new process existed and were
     * answered by it. The clients wait up to 30 s for an answer (the gap is a JVM start, seconds).
     */
    @Test
    void stopThenStartUnderSocketActivationRefusesNothing(@TempDir Path dir) throws Exception {
        Load load = new Load();
        List<Client> clients = new ArrayList<>();
        Path config = dir.resolve("paduraksa.yaml");
        long longestGapNanos = 0;
        try (Launcher launcher = new Launcher(dir, config)) {
            int port = Integer.parseInt(launcher.command(null)[1]);
            Files.writeString(config, yaml(port), StandardCharsets.UTF_8);
            long pid = Long.parseLong(launcher.command("start 0")[1]);
            awaitServing(dir.resolve("server-0.log"), pid);
            for (int i = 0; i < 4; i++) {
                clients.add(new Client(port, i == 3, load, i, 30_000));
            }
            clients.forEach(Thread::start);
            awaitProgress(clients);
            int restarts = RESTARTS;
            for (int restart = 1; restart <= restarts; restart++) {
                String[] exited = launcher.command("stop " + pid);
                long exitedAt = System.nanoTime();
                assertThat(exited[1]).as("old server %d exit code; log:\n%s", pid,
                        Files.readString(dir.resolve("server-" + (restart - 1) + ".log"))).isEqualTo("0");
                load.starts.add(System.nanoTime());
                pid = Long.parseLong(launcher.command("start " + restart)[1]);
                awaitServing(dir.resolve("server-" + restart + ".log"), pid);
                longestGapNanos = Math.max(longestGapNanos, System.nanoTime() - exitedAt);
                assertThat(Files.readString(dir.resolve("server-" + restart + ".log"))).contains("uses the inherited socket fd 3 (public)");
                awaitProgress(clients);
            }
            load.done = true;
            for (Client c : clients) {
                c.join(35_000);
            }
            assertThat(launcher.command("stop " + pid)[1]).isEqualTo("0");
            assertThat(load.refused.get()).as("refused connections across %d stop-then-start restarts", restarts).isZero();
            assertThat(load.failures).as("failed requests across %d stop-then-start restarts", restarts).isEmpty();
            assertThat(load.retried.get()).as("requests lost on keep-alive connections a draining server closed: %s",
                    load.retriedDetails).isZero();
            for (int i = 0; i < restarts; i++) {
                assertThat(load.waitedFor.get(i)).as("requests begun while no server ran, answered by server %d", i + 1).isPositive();
            }
            System.out.printf("stop-then-start under socket activation: %d requests answered over %d restarts, 0 refused,"
                    + " 0 failed; waited in the accept queue for the new process: %s; longest wait %d ms;"
                    + " longest old-exit-to-new-serving %d ms%n", load.answered.get(), restarts, waited(load, restarts),
                    TimeUnit.NANOSECONDS.toMillis(load.longestWaitNanos.get()), TimeUnit.NANOSECONDS.toMillis(longestGapNanos));
        } finally {
            load.done = true;
            for (Client c : clients) {
                c.join(35_000);
            }
        }
    }

    /**
     * The hand-over without systemd: each new process ({@code run --takeover}, the socket's path from
     * {@code server.takeover_socket}; RestartWebSocketIT uses {@code --takeover-socket PATH})
     * takes the listening socket from the running one over a Unix socket, serves, and sends it SIGTERM;
     * the old one drains and exits 0. Five hand-overs under load refuse and fail nothing.
     */
    @Test
    void takeoverRestartsRefuseNothing(@TempDir Path dir) throws Exception {
        Load load = new Load();
        List<Client> clients = new ArrayList<>();
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Path config = dir.resolve("paduraksa.yaml");
        Path handover = dir.resolve("takeover.sock");
        // The path from the file (server.takeover_socket): `run` and `run --takeover` need no flag for it.
        Files.writeString(config, yaml(port).replace("server: {drain_timeout: 10s}",
                "server: {drain_timeout: 10s, takeover_socket: \"" + handover + "\"}"), StandardCharsets.UTF_8);
        List<Process> processes = new ArrayList<>();
        try {
            Process old = startServer(config, dir.resolve("server-0.log"), List.of());
            processes.add(old);
            awaitServing(dir.resolve("server-0.log"), old.pid());
            awaitHandOverSocket(dir.resolve("server-0.log"));
            for (int i = 0; i < 4; i++) {
                clients.add(new Client(port, i == 3, load, i));
            }
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(handover)))
                    .isEqualTo("rw-------");
            clients.forEach(Thread::start);
            awaitProgress(clients);
            // A new process that cannot start (a broken file) exits 1 and the old one keeps serving.
            Path broken = dir.resolve("broken.yaml");
            Files.writeString(broken, yaml(port) + "  - names: [b.test\n", StandardCharsets.UTF_8);
            Process failed = startServer(broken, dir.resolve("broken.log"), List.of("--takeover", "--takeover-socket", handover.toString()));
            processes.add(failed);
            assertThat(failed.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(failed.exitValue()).isEqualTo(1);
            assertThat(old.isAlive()).isTrue();
            awaitProgress(clients);
            for (int restart = 1; restart <= RESTARTS; restart++) {
                Path log = dir.resolve("server-" + restart + ".log");
                Process next = startServer(config, log, List.of("--takeover"));
                processes.add(next);
                awaitServing(log, next.pid());
                awaitHandOverSocket(log);
                assertThat(old.waitFor(20, TimeUnit.SECONDS)).as("old server %d exits after the hand-over", old.pid()).isTrue();
                assertThat(old.exitValue()).as("old server exit code; log:\n%s",
                        Files.readString(dir.resolve("server-" + (restart - 1) + ".log"))).isZero();
                assertThat(Files.readString(log)).contains("hand-over: received 1 listening sockets from pid " + old.pid(),
                        "uses the inherited socket fd");
                old = next;
                awaitProgress(clients);
            }
            assertThat(load.refused.get()).as("refused connections across " + RESTARTS + " hand-overs").isZero();
            assertThat(load.failures).as("failed requests across " + RESTARTS + " hand-overs").isEmpty();
            assertThat(load.retried.get()).as("requests lost on keep-alive connections a draining server closed: %s",
                    load.retriedDetails).isZero();
            System.out.printf("takeover under load: %d requests answered over " + RESTARTS + " hand-overs, 0 refused, %d retried on reused connections%n",
                    load.answered.get(), load.retried.get());
        } finally {
            load.done = true;
            for (Client c : clients) {
                c.join(5_000);
            }
            for (Process p : processes) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String waited(Load load, int restarts) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < restarts; i++) {
            b.append(i == 0 ? "" : ", ").append(load.waitedFor.get(i));
        }
        return b.append(" requests per restart").toString();
    }

    public static Process startServer(Path config, Path log, List<String> extra) throws IOException {
        List<String> command = new ArrayList<>(javaCommand(config));
        command.addAll(extra);
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Every client answers 20 more requests. */
    private static void awaitProgress(List<Client> clients) {
        long[] before = clients.stream().mapToLong(c -> c.answered.get()).toArray();
        for (int i = 0; i < clients.size(); i++) {
            int n = i;
            Await.until(clients.get(i).getName() + " answered again",
                    () -> clients.get(n).answered.get() >= before[n] + 20, Duration.ofSeconds(20));
        }
    }
}
