package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code RateLimit-Limit/-Remaining/-Reset} on gate answers, 429s and forwarded responses, over
 * HTTP/1.1 and h2c. The rate is 1/h, so nothing refills during a test: each request adds an hour
 * to the key's reset. Each test uses its own {@code X-Client} value, so its own bucket.
 */
class RateLimitHeadersIT {
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                policies:
                  limited: {type: rate_limit, key: "header:X-Client", rate: 1/h, burst: 3, headers: true}
                  wide: {type: rate_limit, key: "header:X-Client", rate: 1/h, burst: 10, headers: true}
                  quiet: {type: rate_limit, key: "header:X-Client", rate: 1/h, burst: 3}
                  get-only: {type: method, allow: [GET]}
                hosts:
                  - names: [rl.test]
                    routes:
                      - {path: /answer, policies: [limited], respond: {status: 200, body: "ok"}}
                      - {path: /forward, policies: [limited], forward: app}
                      - {path: /later, policies: [limited, get-only], respond: {status: 200, body: "ok"}}
                      - {path: /both, policies: [wide, limited], respond: {status: 200, body: "ok"}}
                      - {path: /quiet, policies: [quiet], forward: app}
                """.formatted(origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    private static String get(String path, String client) {
        return "GET " + path + " HTTP/1.1\r\nHost: rl.test\r\nX-Client: " + client + "\r\n\r\n";
    }

    private static void assertFields(RawHttp.Response r, int limit, int remaining, int reset) {
        assertThat(new String[] {r.header("RateLimit-Limit"), r.header("RateLimit-Remaining"), r.header("RateLimit-Reset")})
                .as(r.statusLine()).containsExactly(Integer.toString(limit), Integer.toString(remaining), Integer.toString(reset));
    }

    private static void assertFields(H2Client.Response r, int limit, int remaining, int reset) {
        assertThat(new String[] {r.header("ratelimit-limit"), r.header("ratelimit-remaining"), r.header("ratelimit-reset")})
                .as("status %d", r.status()).containsExactly(Integer.toString(limit), Integer.toString(remaining), Integer.toString(reset));
    }

    /** Three admitted with 2, 1, 0 remaining and 1 h more to reset each, then the 429 with 0 remaining. */
    private static void countsDownOverHttp1(String path, String client) throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (int i = 0; i < 3; i++) {
                RawHttp.Response r = c.exchange(get(path, client));
                assertThat(r.status()).isEqualTo(200);
                assertFields(r, 3, 2 - i, 3600 * (i + 1));
            }
            RawHttp.Response limited = c.exchange(get(path, client));
            assertThat(limited.status()).isEqualTo(429);
            assertThat(limited.header("Retry-After")).isEqualTo("3600");
            assertFields(limited, 3, 0, 3 * 3600);
            assertThat(c.exchange(get(path, client)).status()).as("the connection stays usable").isEqualTo(429);
        }
    }

    private static void countsDownOverHttp2(String path, String client) throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            for (int i = 0; i < 4; i++) {
                Http2Headers h = H2Client.headers("GET", "rl.test", path);
                h.add("x-client", client);
                H2Client.Response r = c.send(h, null, true).done.get(5, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(i < 3 ? 200 : 429);
                assertFields(r, 3, Math.max(0, 2 - i), 3600 * Math.min(3, i + 1));
            }
        }
    }

    @Test
    void http1GateAnswersCountDownAndThe429CarriesZero() throws Exception {
        countsDownOverHttp1("/answer", "h1-answer");
    }

    @Test
    void http1ForwardedResponsesCountDownAndThe429CarriesZero() throws Exception {
        countsDownOverHttp1("/forward", "h1-forward");
        assertThat(origin.lastRequest()).as("our fields are the client's, not the upstream's").doesNotContainIgnoringCase("ratelimit");
    }

    @Test
    void http2GateAnswersCountDownAndThe429CarriesZero() throws Exception {
        countsDownOverHttp2("/answer", "h2-answer");
    }

    @Test
    void http2ForwardedResponsesCountDownAndThe429CarriesZero() throws Exception {
        countsDownOverHttp2("/forward", "h2-forward");
    }

    @Test
    void anAnswerOfALaterPolicyCarriesTheFields() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("DELETE /later HTTP/1.1\r\nHost: rl.test\r\nX-Client: later\r\n\r\n");
            assertThat(r.status()).isEqualTo(405);
            assertFields(r, 3, 2, 3600);
        }
        try (H2Client c = H2Client.connect(server.port("public"))) {
            Http2Headers h = H2Client.headers("DELETE", "rl.test", "/later");
            h.add("x-client", "later");
            H2Client.Response r = c.send(h, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(405);
            assertFields(r, 3, 1, 7200);
        }
    }

    @Test
    void withTwoPoliciesTheOneWithLessRemainingIsReported() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange(get("/both", "both"));
            assertThat(r.status()).isEqualTo(200);
            assertFields(r, 3, 2, 3600); // wide has 9 left, limited 2
        }
    }

    @Test
    void withoutHeadersNoFieldsAreSent() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (int i = 0; i < 4; i++) {
                RawHttp.Response r = c.exchange(get("/quiet", "quiet-h1"));
                assertThat(r.status()).isEqualTo(i < 3 ? 200 : 429);
                assertThat(r.headers().keySet()).noneMatch(name -> name.startsWith("ratelimit"));
            }
        }
        try (H2Client c = H2Client.connect(server.port("public"))) {
            for (int i = 0; i < 4; i++) {
                Http2Headers h = H2Client.headers("GET", "rl.test", "/quiet");
                h.add("x-client", "quiet-h2");
                H2Client.Response r = c.send(h, null, true).done.get(5, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(i < 3 ? 200 : 429);
                assertThat(r.headers().contains("ratelimit-remaining")).isFalse();
            }
        }
    }
}
