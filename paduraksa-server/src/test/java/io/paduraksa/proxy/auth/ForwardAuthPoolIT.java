package io.paduraksa.proxy.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.SslContextBuilder;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Forward-auth connections, coalescing, https and metrics against real loopback auth services that
 * count connections and requests ({@link CountingAuthService}): one per test, so counts are exact.
 */
class ForwardAuthPoolIT {
    private static CountingAuthService pooled;
    private static CountingAuthService coalesced;
    private static CountingAuthService tls;
    private static CountingAuthService stale;
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        pooled = new CountingAuthService(null, 0);
        coalesced = new CountingAuthService(null, 400);
        tls = new CountingAuthService(SslContextBuilder.forServer(H2Client.testFile("localhost-chain.pem").toFile(),
                H2Client.testFile("localhost.key").toFile()).build(), 0);
        stale = new CountingAuthService(null, 0, 1);
        origin = new TestOrigin("protected");
        String ca = H2Client.testFile("ca.pem").toString();
        String wrongCa = H2Client.testFile("a-test.pem").toString();
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                  - {name: admin, address: "127.0.0.1:0", admin: true}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                policies:
                  pooled: {type: forward_auth, url: "http://127.0.0.1:%d/auth", forward_headers: [Cookie], copy_response_headers: [X-User], timeout: 2s}
                  coalesced: {type: forward_auth, url: "http://127.0.0.1:%d/auth", forward_headers: [Cookie], copy_response_headers: [X-User], cache: {ttl: 1m}, timeout: 3s}
                  tls: {type: forward_auth, url: "https://localhost:%d/auth", ca: "%s", forward_headers: [Cookie], copy_response_headers: [X-User], timeout: 2s}
                  stale: {type: forward_auth, url: "http://127.0.0.1:%d/auth", forward_headers: [Cookie], timeout: 2s}
                  tls-wrong-ca: {type: forward_auth, url: "https://localhost:%d/auth", ca: "%s", forward_headers: [Cookie], timeout: 2s}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /pooled, policies: [pooled], forward: app}
                      - {path: /coalesced, policies: [coalesced], forward: app}
                      - {path: /tls, policies: [tls], forward: app}
                      - {path: /wrong-ca, policies: [tls-wrong-ca], forward: app}
                      - {path: /stale, policies: [stale], forward: app}
                """.formatted(origin.url(), pooled.port(), coalesced.port(), tls.port(), ca, stale.port(), tls.port(), wrongCa));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
        pooled.close();
        coalesced.close();
        tls.close();
        stale.close();
    }

    @Test
    void sequentialMissesShareOnePooledConnection() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (int i = 0; i < 5; i++) {
                RawHttp.Response r = c.exchange("GET /pooled/" + i + " HTTP/1.1\r\nHost: app.test\r\nCookie: user=p" + i + "\r\n\r\n");
                assertThat(r.status()).isEqualTo(200);
                assertThat(origin.lastRequest()).contains("x-user: p" + i + "\n");
            }
        }
        assertThat(pooled.requests.get()).isEqualTo(5);
        assertThat(pooled.connections.get()).isEqualTo(1);
        String m = metrics();
        assertThat(value(m, "paduraksa_forward_auth_connections_total{policy=\"pooled\",connection=\"reused\"}")).isEqualTo(4);
        assertThat(value(m, "paduraksa_forward_auth_connections_total{policy=\"pooled\",connection=\"new\"}")).isEqualTo(1);
        assertThat(value(m, "paduraksa_forward_auth_calls_total{policy=\"pooled\",outcome=\"allowed\"}")).isEqualTo(5);
        assertThat(value(m, "paduraksa_forward_auth_seconds_count{policy=\"pooled\"}")).isEqualTo(5);
        assertThat(value(m, "paduraksa_forward_auth_seconds_bucket{policy=\"pooled\",le=\"+Inf\"}")).isEqualTo(5);
        assertThat(value(m, "paduraksa_forward_auth_seconds_bucket{policy=\"pooled\",le=\"10\"}")).isEqualTo(5);
    }

    @Test
    void aPooledConnectionThatFailsBeforeAnAnswerIsRetriedOnceOnANewOne() throws Exception {
        // The service answers one request per connection and closes the next one unanswered.
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (int i = 0; i < 3; i++) {
                RawHttp.Response r = c.exchange("GET /stale/" + i + " HTTP/1.1\r\nHost: app.test\r\nCookie: user=s" + i + "\r\n\r\n");
                assertThat(r.status()).isEqualTo(200);
            }
        }
        assertThat(stale.requests.get()).isEqualTo(3);
        assertThat(stale.connections.get()).isEqualTo(3);
    }

    @Test
    void concurrentMissesForOneKeyMakeOneAuthCall() throws Exception {
        String user = "co-" + System.nanoTime();
        int before = coalesced.requests.get();
        String coalescedTotal = "paduraksa_forward_auth_coalesced_total{policy=\"coalesced\"}";
        String allowedTotal = "paduraksa_forward_auth_calls_total{policy=\"coalesced\",outcome=\"allowed\"}";
        String m0 = metrics();
        long coalescedBefore = m0.contains(coalescedTotal) ? value(m0, coalescedTotal) : 0;
        long allowedBefore = m0.contains(allowedTotal) ? value(m0, allowedTotal) : 0;
        try (H2Client c = H2Client.connect(server.port("public"))) {
            List<H2Client.Stream> streams = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                Http2Headers h = H2Client.headers("GET", "app.test", "/coalesced/" + i);
                h.add("cookie", "user=" + user);
                streams.add(c.send(h, null, true));
            }
            for (H2Client.Stream s : streams) {
                H2Client.Response r = s.done.get(10, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).contains("x-user: " + user + "\n");
            }
        }
        assertThat(coalesced.requests.get() - before).isEqualTo(1);
        String m = metrics();
        assertThat(value(m, coalescedTotal) - coalescedBefore).isEqualTo(49);
        assertThat(value(m, allowedTotal) - allowedBefore).isEqualTo(1);
    }

    @Test
    void anAnswerThatSetsACookieIsNotSharedWithTheWaiters() throws Exception {
        int before = coalesced.requests.get();
        String login = "login=" + System.nanoTime();
        try (H2Client c = H2Client.connect(server.port("public"))) {
            List<H2Client.Stream> streams = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Http2Headers h = H2Client.headers("GET", "app.test", "/coalesced/login" + i);
                h.add("cookie", login);
                streams.add(c.send(h, null, true));
            }
            java.util.Set<String> cookies = new java.util.HashSet<>();
            for (H2Client.Stream s : streams) {
                H2Client.Response r = s.done.get(10, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(302);
                cookies.add(r.header("set-cookie"));
            }
            assertThat(cookies).hasSize(5); // each client its own answer
        }
        assertThat(coalesced.requests.get() - before).isEqualTo(5);
    }

    @Test
    void anHttpsAuthServiceWithTheConfiguredCaDecides() throws Exception {
        RawHttp.Response r = get("/tls/page", "user=tina");
        assertThat(r.status()).isEqualTo(200);
        assertThat(origin.lastRequest()).contains("x-user: tina\n");
        assertThat(get("/tls/page", "nobody=1").status()).isEqualTo(401);
    }

    @Test
    void anHttpsAuthServiceWithAnUntrustedCertificateFailsClosed() throws Exception {
        int before = tls.requests.get();
        assertThat(get("/wrong-ca/page", "user=tina").status()).isEqualTo(503);
        assertThat(tls.requests.get()).isEqualTo(before);
        assertThat(value(metrics(), "paduraksa_forward_auth_calls_total{policy=\"tls-wrong-ca\",outcome=\"unavailable\"}"))
                .isEqualTo(1);
    }

    private static RawHttp.Response get(String path, String cookie) throws IOException {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            return c.exchange("GET " + path + " HTTP/1.1\r\nHost: app.test\r\nCookie: " + cookie + "\r\n\r\n");
        }
    }

    private static String metrics() throws IOException {
        try (RawHttp admin = new RawHttp(server.port("admin"))) {
            RawHttp.Response r = admin.exchange("GET /metrics HTTP/1.1\r\nHost: admin\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            return r.body();
        }
    }

    private static long value(String metrics, String sample) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(sample) + " (\\S+)$").matcher(metrics);
        assertThat(m.find()).as("%s in /metrics", sample).isTrue();
        return (long) Double.parseDouble(m.group(1));
    }
}
