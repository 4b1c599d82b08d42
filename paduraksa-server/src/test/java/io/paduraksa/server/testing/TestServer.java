package io.paduraksa.server.testing;

import io.paduraksa.ops.Reloader;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.server.EdgeServer;
import io.paduraksa.server.cycle.GateMeter;
import io.paduraksa.snapshot.Snapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The real server, in-process on loopback, for integration tests: writes the YAML to a temporary
 * file (so reload tests can rewrite it), compiles it like start-up does and binds every listener.
 * Use port 0 in listener addresses; {@link #port} tells the bound one.
 */
public final class TestServer implements AutoCloseable {
    /**
     * The first line of the event-loop allocation tests' configurations: they assert what our code allocates
     * per request, and Netty 4.2.18's io_uring transport (the default) allocates an {@code IoUringIoOps} per
     * submission (20-50 B per request in those tests), which would hide it. On epoll the transport allocates
     * nothing per request. docs/benchmarks-e2e.md reports io_uring's bytes per request for the whole process.
     */
    public static final String EPOLL = "server: {transport: epoll}\n";
    private final Path file;
    private final EdgeServer server;
    private final GateMeter meter;

    private TestServer(Path file, EdgeServer server, GateMeter meter) {
        this.file = file;
        this.server = server;
        this.meter = meter;
    }

    public static TestServer start(String yaml) {
        return start(yaml, null, null);
    }

    /** Starts with a {@link GateMeter} installed (counting is off until {@code meter.enabled(true)}). */
    public static TestServer startMetered(String yaml) {
        return start(yaml, null, new GateMeter());
    }

    public static TestServer start(String yaml, Forwarder forwarder, GateMeter meter) {
        try {
            Path dir = Files.createTempDirectory("paduraksa-it");
            Path file = dir.resolve("paduraksa.yaml");
            Files.writeString(file, yaml, StandardCharsets.UTF_8);
            Snapshot snapshot = Reloader.compile(file);
            return new TestServer(file, EdgeServer.start(file, snapshot, forwarder, meter), meter);
        } catch (Exception e) {
            throw new IllegalStateException("test server did not start: " + e.getMessage(), e);
        }
    }

    /** The bound port of the listener with this name. */
    public int port(String listener) {
        InetSocketAddress a = server.boundAddresses().get(listener);
        if (a == null) {
            throw new IllegalArgumentException("no listener '" + listener + "' (bound: " + server.boundAddresses() + ")");
        }
        return a.getPort();
    }

    public EdgeServer server() {
        return server;
    }

    public GateMeter meter() {
        return meter;
    }

    public Path configFile() {
        return file;
    }

    /** Rewrites the configuration file and reloads it the way SIGHUP does; returns whether it was taken. */
    public boolean reload(String yaml) {
        try {
            Files.writeString(file, yaml, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return server.reloader().reload();
    }

    @Override
    public void close() {
        server.stop(Duration.ofSeconds(2));
    }
}
