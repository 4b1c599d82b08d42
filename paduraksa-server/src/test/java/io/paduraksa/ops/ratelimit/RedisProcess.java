package io.paduraksa.ops.ratelimit;


import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real redis-server on 127.0.0.1, a child process of the test: no persistence, a free port
 * found by binding port 0 (kept across {@link #stop}/{@link #start} so clients reconnect).
 * Tests are skipped when {@code /usr/bin/redis-server} is absent (they fail instead under {@code .ci/run}: Tools).
 */
final class RedisProcess implements AutoCloseable {
    private static final Path BINARY = Path.of("/usr/bin/redis-server");
    private final int port;
    private Process process;

    private RedisProcess(int port) {
        this.port = port;
    }

    static RedisProcess startOnFreePort() throws IOException {
        io.paduraksa.testing.Tools.require("redis-server", "redis-server", BINARY.toString());
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        RedisProcess r = new RedisProcess(port);
        r.start();
        return r;
    }

    String uri() {
        return "redis://127.0.0.1:" + port + "/0";
    }

    void start() throws IOException {
        process = new ProcessBuilder(BINARY.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    throw new IOException("redis-server exited with " + process.exitValue() + " (port " + port + ")");
                }
                Thread.onSpinWait();
            }
        }
        throw new IOException("redis-server did not listen on " + port + " within 10 s");
    }

    void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            process = null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
