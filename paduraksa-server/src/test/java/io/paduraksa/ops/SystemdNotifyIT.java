package io.paduraksa.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real server in-process tells a fake systemd: READY=1 naming the bound port, RELOADING=1 with
 * MONOTONIC_USEC then READY=1 naming the new generation, READY=1 naming the failure after a broken
 * file, WATCHDOG=1 while it runs, STOPPING=1 when the drain begins. NOTIFY_SOCKET comes from a map,
 * the process environment is not touched.
 */
class SystemdNotifyIT {
    private static final String YAML = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /, respond: {status: 200, body: "ok"}}
            """;

    @Test
    void serverLifecycleIsToldToSystemd(@TempDir Path dir) throws Exception {
        long pid = ProcessHandle.current().pid();
        try (FakeNotifySocket systemd = FakeNotifySocket.onPath(dir.resolve("notify"));
             TestServer server = TestServer.start(YAML)) {
            SystemdNotifier notifier = SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", systemd.notifySocket(),
                    "WATCHDOG_USEC", "200000", "WATCHDOG_PID", Long.toString(pid)), pid);
            server.server().ready(notifier);
            long g = server.server().store().current().generation(); // a process-wide counter: other tests compiled configs too
            assertThat(systemd.next()).isEqualTo("READY=1\nSTATUS=serving config generation " + g + " on public=127.0.0.1:"
                    + server.port("public"));
            assertThat(systemd.nextPing()).isEqualTo("WATCHDOG=1");
            assertThat(systemd.nextPing()).isEqualTo("WATCHDOG=1");

            assertThat(server.reload(YAML.replace("\"ok\"", "\"ok2\""))).isTrue();
            assertThat(systemd.next()).matches("RELOADING=1\nMONOTONIC_USEC=\\d+");
            assertThat(systemd.next()).isEqualTo("READY=1\nSTATUS=config generation " + (g + 1) + " loaded");

            assertThat(server.reload(YAML + "  - names: [b.test]\n    routes: [{path: /, forward: nowhere}]\n")).isFalse();
            assertThat(systemd.next()).startsWith("RELOADING=1\n");
            String failed = systemd.next();
            assertThat(failed).startsWith("READY=1\nSTATUS=reload failed, still serving generation " + (g + 1) + ": ").contains("nowhere");
            assertThat(failed.lines()).as("STATUS is one line").hasSize(2);

            server.server().stop(java.time.Duration.ofSeconds(2));
            assertThat(systemd.next()).isEqualTo("STOPPING=1\nSTATUS=draining connections");
            systemd.pings.clear();
            assertThat(notifier.isActive()).isTrue();
        }
    }
}
