package io.paduraksa.proxy.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reloads of an equivalent configuration keep what health checks learned and do not add probes:
 * a destination the active checks found down and one passive health ejected get no request after
 * any of N reloads, and the probe rate per destination stays one per interval.
 */
class ReloadHealthIT {
    private static final long INTERVAL_MS = 100;
    private static final int RELOADS = 5;

    private HealthOrigin good;
    private HealthOrigin down;
    private int deadPort;
    private TestServer server;

    @BeforeEach
    void start() throws Exception {
        good = new HealthOrigin(HealthOrigin.Mode.HTTP1);
        down = new HealthOrigin(HealthOrigin.Mode.HTTP1);
        down.status.set(503); // every probe fails; a forwarded request would show in down.seen
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // bound, then closed: connecting is refused
        }
        server = TestServer.start(config(0));
    }

    @AfterEach
    void stop() {
        server.close();
        good.close();
        down.close();
    }

    private String config(int generation) {
        return """
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                clusters:
                  checked:
                    destinations: [{url: "http://127.0.0.1:%1$d"}, {url: "http://127.0.0.1:%2$d"}]
                    retry: {attempts: 0}
                    health:
                      active: {path: /healthz, interval: %4$dms, timeout: 1s, unhealthy_threshold: 2, healthy_threshold: 2}
                  ejecting:
                    destinations: [{url: "http://127.0.0.1:%3$d"}, {url: "http://127.0.0.1:%1$d"}]
                    retry: {attempts: 0}
                    health: {passive: {consecutive_failures: 1, eject_for: 60s}}
                hosts:
                  - names: [checked.test]
                    routes: [{path: /generation, respond: {status: 200, body: "%5$d"}}, {path: /, forward: checked}]
                  - names: [ejecting.test]
                    routes: [{path: /, forward: ejecting}]
                """.formatted(good.port(), down.port(), deadPort, INTERVAL_MS, generation);
    }

    private int probes(HealthOrigin origin) {
        int n = 0;
        for (String s : origin.seen) {
            if (s.endsWith(" /healthz")) {
                n++;
            }
        }
        return n;
    }

    private int forwarded(HealthOrigin origin) {
        return origin.seen.size() - probes(origin);
    }

    private int statusCount(RawHttp c, String host, int requests, int status) throws IOException {
        int n = 0;
        for (int i = 0; i < requests; i++) {
            if (c.exchange("GET /r" + i + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").status() == status) {
                n++;
            }
        }
        return n;
    }

    @Test
    void reloadsKeepDownDestinationsOutAndTheProbeRateConstant() throws Exception {
        // Two failed probes make 'down' unhealthy; a third probe begins only after the second ended.
        Await.until("down destination probed three times", () -> probes(down) >= 3);
        try (RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(statusCount(c, "checked.test", 10, 200)).isEqualTo(10);
            // The first request on the dead destination is refused and ejects it; then it gets none.
            assertThat(statusCount(c, "ejecting.test", 2, 502)).isLessThanOrEqualTo(1);
            assertThat(statusCount(c, "ejecting.test", 10, 200)).isEqualTo(10);
            assertThat(forwarded(down)).isZero();

            long from = System.nanoTime();
            int goodBefore = probes(good);
            int downBefore = probes(down);
            for (int r = 1; r <= RELOADS; r++) {
                assertThat(server.reload(config(r))).as("reload %d", r).isTrue();
                assertThat(c.exchange("GET /generation HTTP/1.1\r\nHost: checked.test\r\n\r\n").body()).isEqualTo(Integer.toString(r));
                assertThat(statusCount(c, "checked.test", 10, 200)).as("after reload %d", r).isEqualTo(10);
                assertThat(statusCount(c, "ejecting.test", 10, 200)).as("after reload %d", r).isEqualTo(10);
                assertThat(forwarded(down)).as("requests that reached the down destination after reload %d", r).isZero();
            }
            // One checker per destination, each probing once per interval: at most one probe per interval
            // elapsed, plus the one running at the start. Two checkers (the replaced one still running)
            // would double it.
            Await.until("ten more probes of the down destination", () -> probes(down) >= downBefore + RELOADS + 10);
            double intervals = (System.nanoTime() - from) / 1e6 / INTERVAL_MS;
            assertThat(probes(down) - downBefore).as("probes of 'down' in %.1f intervals", intervals)
                    .isLessThanOrEqualTo((int) intervals + 2);
            assertThat(probes(good) - goodBefore).as("probes of 'good' in %.1f intervals", intervals)
                    .isLessThanOrEqualTo((int) intervals + 2);
            assertThat(forwarded(down)).isZero();
        }
    }
}
