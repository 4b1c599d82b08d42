package io.paduraksa.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sd_notify messages, over a real Unix datagram socket bound to a path and to an abstract name. */
class SystemdNotifierTest {
    private static final long PID = ProcessHandle.current().pid();

    @Test
    void withoutNotifySocketTheNotifierDoesNothing() {
        SystemdNotifier n = SystemdNotifier.fromEnvironment(Map.of("WATCHDOG_USEC", "1000"), PID);
        assertThat(n).isSameAs(SystemdNotifier.none());
        assertThat(n.isActive()).isFalse();
        n.ready("x");
        n.reloading();
        n.stopping();
        n.startWatchdog(new DefaultEventLoopGroup(1));
        n.close();
    }

    @Test
    void readyReachesASocketOnAPath(@TempDir Path dir) throws Exception {
        try (FakeNotifySocket systemd = FakeNotifySocket.onPath(dir.resolve("notify"));
             SystemdNotifier n = SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", systemd.notifySocket()), PID)) {
            assertThat(n.isActive()).isTrue();
            n.ready("serving config generation 1");
            assertThat(systemd.next()).isEqualTo("READY=1\nSTATUS=serving config generation 1");
        }
    }

    @Test
    void anAtSignNamesTheAbstractNamespace() throws Exception {
        String name = "paduraksa-test-" + PID + "-" + System.nanoTime();
        try (FakeNotifySocket systemd = FakeNotifySocket.abstractName(name);
             SystemdNotifier n = SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", "@" + name), PID)) {
            assertThat(systemd.notifySocket()).isEqualTo("@" + name);
            n.ready("ok");
            n.stopping();
            assertThat(systemd.next()).isEqualTo("READY=1\nSTATUS=ok");
            assertThat(systemd.next()).isEqualTo("STOPPING=1\nSTATUS=draining connections");
        }
    }

    @Test
    void reloadingCarriesTheMonotonicClockInMicroseconds(@TempDir Path dir) throws Exception {
        try (FakeNotifySocket systemd = FakeNotifySocket.onPath(dir.resolve("notify"));
             SystemdNotifier n = SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", systemd.notifySocket()), PID)) {
            long before = System.nanoTime() / 1_000;
            n.reloading();
            long after = System.nanoTime() / 1_000;
            Matcher m = Pattern.compile("RELOADING=1\nMONOTONIC_USEC=(\\d+)").matcher(systemd.next());
            assertThat(m.matches()).isTrue();
            assertThat(Long.parseLong(m.group(1))).isBetween(before, after);
        }
    }

    @Test
    void watchdogPingsWhileTheLoopsRunAndStopsWhileOneIsStuck(@TempDir Path dir) throws Exception {
        EventLoopGroup loops = new DefaultEventLoopGroup(2);
        Map<String, String> env = Map.of("NOTIFY_SOCKET", dir.resolve("notify").toString(),
                "WATCHDOG_USEC", "100000", "WATCHDOG_PID", Long.toString(PID));
        try (FakeNotifySocket systemd = FakeNotifySocket.onPath(dir.resolve("notify"));
             SystemdNotifier n = SystemdNotifier.fromEnvironment(env, PID)) {
            assertThat(n.watchdogMicros()).isEqualTo(100_000);
            n.startWatchdog(loops);
            for (int i = 0; i < 3; i++) {
                assertThat(systemd.nextPing()).isEqualTo("WATCHDOG=1");
            }
            CountDownLatch release = new CountDownLatch(1);
            loops.next().execute(() -> awaitQuietly(release));
            loops.next().execute(() -> awaitQuietly(release)); // both loops of the group: one of them is stuck for sure
            systemd.pings.clear();
            // At most two pings (one in flight at the clear, one sent before the stuck probe was posted), then none over five intervals.
            Thread.sleep(600);
            assertThat(systemd.pings.size()).as("pings while a loop is stuck").isLessThanOrEqualTo(2);
            systemd.pings.clear();
            release.countDown();
            assertThat(systemd.nextPing()).as("pings again once the loop runs").isEqualTo("WATCHDOG=1");

            n.stopping();
            assertThat(systemd.next()).startsWith("STOPPING=1");
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @ParameterizedTest(name = "WATCHDOG_USEC={0} WATCHDOG_PID={1} -> {2}")
    @CsvSource(nullValues = "-", value = {
        "30000000, -,     30000000",
        "30000000, SELF,  30000000",
        "30000000, 1,     0",
        "-,        SELF,  0",
        "0,        -,     0",
        "abc,      -,     0",
    })
    void watchdogAppliesOnlyToThisProcess(String usec, String pid, long expected) {
        Map<String, String> env = new java.util.HashMap<>();
        if (usec != null) {
            env.put("WATCHDOG_USEC", usec);
        }
        if (pid != null) {
            env.put("WATCHDOG_PID", pid.equals("SELF") ? Long.toString(PID) : pid);
        }
        assertThat(SystemdNotifier.watchdogMicros(env, PID)).isEqualTo(expected);
    }

    @Test
    void statusIsOneShortLine() {
        assertThat(SystemdNotifier.oneLine("a\nb\r\nc")).isEqualTo("a b  c");
        assertThat(SystemdNotifier.oneLine("x".repeat(500))).hasSize(200).endsWith("...");
    }
}
