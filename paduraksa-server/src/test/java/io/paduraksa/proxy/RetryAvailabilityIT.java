package io.paduraksa.proxy;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.proxy.balance.AffinityCookie;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Availability with a dead destination: a refused connection counts at once, the balancer skips
 * the destination that failed recently, a retry goes to a destination not tried yet, and passive
 * health counts 5xx answers only when asked to. Each cluster serves one test, so the order of the
 * tests does not matter.
 */
class RetryAvailabilityIT {
    private static TestOrigin good;
    private static TestOrigin failing;
    private static int deadPort;
    private static int deadPort2;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        good = new TestOrigin("good");
        failing = new TestOrigin("failing");
        failing.healthy(false); // its /healthz answers 503
        try (ServerSocket s = new ServerSocket(0); ServerSocket s2 = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // bound, then closed: connecting is refused
            deadPort2 = s2.getLocalPort();
        }
        String dead = "http://127.0.0.1:" + deadPort;
        String dead2 = "http://127.0.0.1:" + deadPort2;
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                clusters:
                  rr_retry:
                    destinations: [{url: "%1$s"}, {url: "%2$s"}]
                    load_balancing: round_robin
                    retry: {attempts: 2}
                  rr_plain:
                    destinations: [{url: "%1$s"}, {url: "%2$s"}]
                    load_balancing: round_robin
                    retry: {attempts: 0}
                  three:
                    destinations: [{url: "%1$s"}, {url: "%3$s"}, {url: "%2$s"}]
                    load_balancing: first_available
                    retry: {attempts: 2}
                  counting:
                    destinations: [{url: "%4$s"}, {url: "%2$s"}]
                    load_balancing: round_robin
                    retry: {attempts: 0}
                    health: {passive: {consecutive_failures: 2, eject_for: 30s, count_5xx: true}}
                  sticky:
                    destinations: [{url: "%1$s"}, {url: "%2$s"}]
                    retry: {attempts: 0}
                    affinity: {cookie: pdk}
                  not_counting:
                    destinations: [{url: "%4$s"}, {url: "%2$s"}]
                    load_balancing: round_robin
                    retry: {attempts: 0}
                    health: {passive: {consecutive_failures: 2, eject_for: 30s}}
                hosts:
                  - names: [retry.test]
                    routes: [{path: /, forward: rr_retry}]
                  - names: [plain.test]
                    routes: [{path: /, forward: rr_plain}]
                  - names: [three.test]
                    routes: [{path: /, forward: three}]
                  - names: [count.test]
                    routes: [{path: /, forward: counting}]
                  - names: [sticky.test]
                    routes: [{path: /, forward: sticky}]
                  - names: [nocount.test]
                    routes: [{path: /, forward: not_counting}]
                """.formatted(dead, good.url(), dead2, failing.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        good.close();
        failing.close();
    }

    private static int successes(String host, String path, int requests, int status) throws IOException {
        int n = 0;
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (int i = 0; i < requests; i++) {
                if (c.exchange("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").status() == status) {
                    n++;
                }
            }
        }
        return n;
    }

    /** The case: 9 of 40 before (every first attempt went to the dead destination and the budget ran out). */
    @Test
    void roundRobinWithRetriesAndOneDeadDestinationOfTwoAnswersEveryRequest() throws IOException {
        assertThat(successes("retry.test", "/rr", 40, 200)).isEqualTo(40);
    }

    /** Without retries only the request that found the destination dead fails: the balancer skips it afterwards. */
    @Test
    void withoutRetriesOnlyTheFirstRequestOnTheDeadDestinationFails() throws IOException {
        assertThat(successes("plain.test", "/rr", 40, 200)).isGreaterThanOrEqualTo(39);
    }

    /** First available, two dead destinations before the live one: the second retry must not go back to the first. */
    @Test
    void aRetryGoesToADestinationNotTriedYet() throws IOException {
        assertThat(successes("three.test", "/first", 1, 200)).isEqualTo(1);
        assertThat(successes("three.test", "/again", 10, 200)).isEqualTo(10);
    }

    /** A cookie naming a destination whose connection was just refused is not followed until the mark ends. */
    @Test
    void affinityDoesNotPinAClientToADestinationThatFailedRecently() throws IOException {
        String dead = "http://127.0.0.1:" + deadPort;
        String live = good.url();
        String line = new String(new AffinityCookie("pdk", new String[] {dead, live}, "sticky").setCookieLine(0), US_ASCII);
        String cookie = "Cookie: " + line.substring("Set-Cookie: ".length(), line.indexOf(';')) + "\r\n"; // pdk=<token of the dead destination>
        try (RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(c.exchange("GET /s HTTP/1.1\r\nHost: sticky.test\r\n" + cookie + "\r\n").status()).isEqualTo(502);
            for (int i = 0; i < 5; i++) {
                RawHttp.Response r = c.exchange("GET /s HTTP/1.1\r\nHost: sticky.test\r\n" + cookie + "\r\n");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("set-cookie")).startsWith("pdk=");
            }
        }
    }

    @Test
    void fiveHundredsEjectOnlyWhenCounted() throws IOException {
        // count_5xx: two 503s in a row eject the failing destination; then only the good one answers.
        int counted = successes("count.test", "/healthz", 20, 503);
        assertThat(counted).isBetween(1, 2);
        // Off (the default): a 5xx is an answer like any other, the destination keeps its turn.
        int notCounted = successes("nocount.test", "/healthz", 20, 503);
        assertThat(notCounted).isBetween(9, 11);
    }
}
