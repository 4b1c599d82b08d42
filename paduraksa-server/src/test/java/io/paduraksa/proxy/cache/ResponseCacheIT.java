package io.paduraksa.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The response cache over real sockets: a real upstream ({@link CacheOrigin}) and the server on
 * loopback, HTTP/1.1 clients writing raw bytes and HTTP/2 clients (h2c, and h2 over TLS). Each test uses its own paths,
 * so the shared store does not couple them; the origin counts what reached it.
 */
class ResponseCacheIT {
    private static CacheOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new CacheOrigin();
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                  - {name: admin, address: "127.0.0.1:0", admin: true}
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [h2]
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                cache: {max_size: 8MiB, max_object_size: 64KiB, coalesce_timeout: 3s}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                    timeouts: {connect: 1s, response_headers: 3s, idle: 3s}
                hosts:
                  - names: [app.test, app.a.test]
                    routes:
                      - {path: /nocache, forward: app}
                      - path: /authorized
                        forward: app
                        cache: {store_authorized: true}
                      - path: /
                        forward: app
                        cache: {stale_if_error: 30s}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @AfterEach
    void healthyAgain() {
        origin.failing = null;
    }

    private static RawHttp.Response get(String target, String... fields) throws IOException {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            return c.exchange(request("GET", target, fields));
        }
    }

    private static String request(String method, String target, String... fields) {
        StringBuilder sb = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: app.test\r\n");
        for (String f : fields) {
            sb.append(f).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    @Test
    void aFreshResponseIsAnsweredFromTheStoreWithItsAge() throws IOException {
        String t = "/hit?cc=max-age%3D60";
        RawHttp.Response first = get(t);
        RawHttp.Response second = get(t);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.header("age")).isNull();
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.body()).isEqualTo(first.body()).startsWith("n=1 ");
        assertThat(second.header("age")).matches("[0-9]+");
        assertThat(second.header("cache-control")).isEqualTo("max-age=60");
        assertThat(second.header("content-length")).isEqualTo(String.valueOf(first.body().length()));
        assertThat(second.header("date")).isNotNull();
        assertThat(origin.count(t)).isEqualTo(1);
    }

    @Test
    void theKeysHostIgnoresCaseThePortAndATrailingDot() throws IOException {
        String t = "/host-forms?cc=max-age%3D60";
        String body = get(t).body();
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (String host : new String[] {"APP.Test:8080", "app.test.", "App.TEST.:80"}) {
                RawHttp.Response r = c.exchange("GET " + t + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
                assertThat(r.body()).as(host).isEqualTo(body);
                assertThat(r.header("age")).as(host).isNotNull();
            }
        }
        assertThat(origin.count(t)).isEqualTo(1);
    }

    @Test
    void headIsAnsweredFromTheStoredGetAndKeepAliveGoesOn() throws IOException {
        String t = "/head?cc=max-age%3D60";
        try (RawHttp c = new RawHttp(server.port("public"))) {
            String body = c.exchange(request("GET", t)).body();
            c.send(request("HEAD", t));
            RawHttp.Response head = c.read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-length")).isEqualTo(String.valueOf(body.length()));
            assertThat(head.body()).isEmpty();
            assertThat(c.exchange(request("GET", t)).body()).isEqualTo(body); // the same connection still works
        }
        assertThat(origin.count(t)).isEqualTo(1);
    }

    @Test
    void pipelinedHitsAreAnsweredInOrder() throws IOException {
        String t = "/pipelined?cc=max-age%3D60";
        String body = get(t).body();
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send(request("GET", t) + request("GET", t) + request("GET", t));
            for (int i = 0; i < 3; i++) {
                assertThat(c.read().body()).isEqualTo(body);
            }
        }
        assertThat(origin.count(t)).isEqualTo(1);
    }

    @Test
    void varyOnAcceptEncodingKeepsOneVariantPerValue() throws IOException {
        String t = "/vary?cc=max-age%3D60&vary=Accept-Encoding";
        assertThat(get(t, "Accept-Encoding: gzip").body()).isEqualTo("n=1 ae=gzip");
        assertThat(get(t, "Accept-Encoding: gzip").body()).isEqualTo("n=1 ae=gzip");
        assertThat(get(t, "Accept-Encoding: br").body()).isEqualTo("n=2 ae=br");
        assertThat(get(t, "Accept-Encoding: br").body()).isEqualTo("n=2 ae=br");
        assertThat(get(t).body()).isEqualTo("n=3 ae=null");
        assertThat(get(t, "Accept-Encoding: gzip").body()).isEqualTo("n=1 ae=gzip");
        assertThat(origin.count(t)).isEqualTo(3);
    }

    @Test
    void responsesThatMustNotBeStoredAlwaysReachTheUpstream() throws IOException {
        for (String t : List.of("/never?cc=no-store%2C%20max-age%3D60", "/never?cc=private%2C%20max-age%3D60", "/never?cc=max-age%3D60&cookie=1",
                "/never?cc=max-age%3D60&vary=%2A", "/never?cc=no-cache%2C%20max-age%3D60", "/never?status=500&cc=max-age%3D60", "/never")) {
            get(t);
            RawHttp.Response second = get(t);
            assertThat(second.header("age")).as(t).isNull();
            assertThat(origin.count(t)).as(t).isEqualTo(2);
        }
        String cookie = "/never?cc=max-age%3D60&cookie=1";
        assertThat(get(cookie).header("set-cookie")).isEqualTo("session=3");
    }

    @Test
    void requestsWithAuthorizationOrARangeOrOnARouteWithoutCacheBypassIt() throws IOException {
        String t = "/bypass?cc=max-age%3D60";
        get(t, "Authorization: Bearer a");
        get(t, "Authorization: Bearer a");
        get(t, "Range: bytes=0-1");
        assertThat(origin.count(t)).isEqualTo(3);
        String n = "/nocache?cc=max-age%3D60";
        get(n);
        get(n);
        assertThat(origin.count(n)).isEqualTo(2);
    }

    @Test
    void storeAuthorizedKeepsOnlyResponsesThatArePublicOrHaveSMaxage() throws IOException {
        String plain = "/authorized/plain?cc=max-age%3D60";
        String shared = "/authorized/shared?cc=public%2C%20max-age%3D60";
        for (int i = 0; i < 2; i++) {
            get(plain, "Authorization: Bearer a");
            get(shared, "Authorization: Bearer a");
        }
        assertThat(origin.count(plain)).isEqualTo(2);
        assertThat(origin.count(shared)).isEqualTo(1);
    }

    @Test
    void aResponseExpiresAfterItsMaxAge() throws Exception {
        String t = "/expiry?cc=max-age%3D1";
        get(t);
        assertThat(get(t).body()).startsWith("n=1 ");
        Thread.sleep(2100);
        assertThat(get(t).body()).startsWith("n=2 ");
        assertThat(origin.count(t)).isEqualTo(2);
    }

    @Test
    void expiresGivesFreshnessWhenThereIsNoMaxAge() throws IOException {
        String t = "/expires?expires=60";
        get(t);
        assertThat(get(t).header("age")).isNotNull();
        assertThat(origin.count(t)).isEqualTo(1);
    }

    @Test
    void concurrentMissesMakeOneUpstreamRequest() throws Exception {
        String t = "/coalesce?cc=max-age%3D60&delay=700";
        int clients = 12;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<RawHttp.Response>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit((Callable<RawHttp.Response>) () -> get(t)));
            }
            for (Future<RawHttp.Response> a : answers) {
                RawHttp.Response r = a.get(10, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).startsWith("n=1 ");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(origin.count(t)).isEqualTo(1);
    }

    @Test
    void aStaleResponseIsServedWhenTheUpstreamFails() throws Exception {
        String t = "/stale?cc=max-age%3D1";
        String body = get(t).body();
        Thread.sleep(1500);
        origin.failing = "503";
        RawHttp.Response on503 = get(t);
        assertThat(on503.status()).isEqualTo(200);
        assertThat(on503.body()).isEqualTo(body);
        assertThat(Integer.parseInt(on503.header("age"))).isGreaterThanOrEqualTo(1);
        origin.failing = "close";
        RawHttp.Response onClose = get(t);
        assertThat(onClose.status()).isEqualTo(200);
        assertThat(onClose.body()).isEqualTo(body);
        // the close on a reused connection looks like a stale keep-alive connection: the forwarder tries once more
        assertThat(origin.count(t)).isBetween(3, 4);
    }

    @Test
    void withoutAStaleWindowTheUpstreamsFailureReachesTheClient() throws Exception {
        String t = "/stale-none?cc=max-age%3D1%2C%20must-revalidate";
        get(t);
        Thread.sleep(1500);
        origin.failing = "503";
        assertThat(get(t).status()).isEqualTo(503);
    }

    @Test
    void staleWhileRevalidateAnswersFromTheStaleCopyAndRefreshesInTheBackground() throws Exception {
        // the refresh takes 2 s at the origin; the stale answers must not wait for it
        String t = "/swr?cc=max-age%3D1%2C%20stale-while-revalidate%3D30&delay=2000";
        assertThat(get(t).body()).startsWith("n=1 ");
        Thread.sleep(1300); // stale now, within its stale-while-revalidate window
        long before = System.nanoTime();
        RawHttp.Response first = get(t);
        RawHttp.Response second = get(t);
        long tookMillis = (System.nanoTime() - before) / 1_000_000;
        assertThat(first.body()).as("the first request after the expiry").startsWith("n=1 ");
        assertThat(Integer.parseInt(first.header("age"))).isGreaterThanOrEqualTo(1);
        assertThat(second.body()).as("a request while the refresh runs").startsWith("n=1 ");
        assertThat(tookMillis).as("both answered without waiting for the 2 s refresh").isLessThan(1500);
        awaitBody(t, "n=2 ");
        assertThat(origin.count(t)).as("one refresh, however many stale answers").isEqualTo(2);
        assertThat(metrics()).containsPattern("paduraksa_cache_refreshes_total [1-9]");
    }

    @Test
    void aFailedBackgroundRefreshLeavesTheStaleCopyServing() throws Exception {
        String t = "/swr-fail?cc=max-age%3D1%2C%20stale-while-revalidate%3D30";
        String body = get(t).body();
        Thread.sleep(1300);
        origin.failing = "503";
        // each stale answer starts a refresh once the one before has ended: by the third, two 503s
        // (with a max-age of their own) have come back, and neither replaced the stale copy
        for (int i = 0; i < 3; i++) {
            int before = origin.count(t);
            RawHttp.Response r = get(t);
            assertThat(r.status()).as("answer %d while the upstream answers 503", i).isEqualTo(200);
            assertThat(r.body()).as("answer %d: the stale copy", i).isEqualTo(body);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (origin.count(t) == before) {
                assertThat(System.nanoTime()).as("refresh %d reached the upstream within 10 s", i).isLessThan(deadline);
                Thread.sleep(20);
                if (origin.count(t) == before) {
                    assertThat(get(t).body()).isEqualTo(body); // the previous refresh may still have run: this starts the next
                }
            }
        }
        origin.failing = null;
        awaitBody(t, "n=");
    }

    @Test
    void h2cBackgroundRefreshKeepsTheVariantsApart() throws Exception {
        String t = "/swr-h2?cc=max-age%3D1%2C%20stale-while-revalidate%3D30&vary=accept-encoding";
        try (H2Client c = H2Client.connect(server.port("public"))) {
            assertThat(c.send(h2Get(t, "gzip"), null, true).done.get(5, TimeUnit.SECONDS).body()).isEqualTo("n=1 ae=gzip");
            assertThat(c.send(h2Get(t, "br"), null, true).done.get(5, TimeUnit.SECONDS).body()).isEqualTo("n=2 ae=br");
            Thread.sleep(1300);
            assertThat(c.send(h2Get(t, "gzip"), null, true).done.get(5, TimeUnit.SECONDS).body())
                    .as("stale, refreshing in the background").isEqualTo("n=1 ae=gzip");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String now;
            do {
                assertThat(System.nanoTime()).as("the gzip variant refreshed within 10 s").isLessThan(deadline);
                Thread.sleep(20);
                now = c.send(h2Get(t, "gzip"), null, true).done.get(5, TimeUnit.SECONDS).body();
            } while (now.equals("n=1 ae=gzip"));
            assertThat(now).as("the refresh went upstream with the client's Accept-Encoding").isEqualTo("n=3 ae=gzip");
            assertThat(c.send(h2Get(t, "br"), null, true).done.get(5, TimeUnit.SECONDS).body())
                    .as("the other variant: still its own stale copy").isEqualTo("n=2 ae=br");
        }
    }

    @Test
    void aRequestTooLargeToCopyRefreshesInTheForeground() throws Exception {
        String t = "/swr-big?cc=max-age%3D1%2C%20stale-while-revalidate%3D30";
        assertThat(get(t).body()).startsWith("n=1 ");
        Thread.sleep(1300);
        String[] fields = new String[70];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = "X-Field-" + i + ": " + i;
        }
        assertThat(get(t, fields).body()).as("more fields than a copy holds: waits for the fetch").startsWith("n=2 ");
        assertThat(get(t).body()).startsWith("n=2 ");
    }

    private static Http2Headers h2Get(String target, String acceptEncoding) {
        return H2Client.headers("GET", "app.test", target).add("accept-encoding", acceptEncoding);
    }

    /** Asks until the body starts with {@code prefix} other than the first answer's ("n=1 "), for up to 10 s. */
    private static void awaitBody(String target, String prefix) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String body = get(target).body();
        while (!body.startsWith(prefix) || body.startsWith("n=1 ")) {
            assertThat(System.nanoTime()).as("%s answered with %s... within 10 s (last: %s)", target, prefix, body).isLessThan(deadline);
            Thread.sleep(20);
            body = get(target).body();
        }
    }

    private static String metrics() throws IOException {
        try (RawHttp admin = new RawHttp(server.port("admin"))) {
            return admin.exchange("GET /metrics HTTP/1.1\r\nHost: admin\r\n\r\n").body();
        }
    }

    @Test
    void purgeOnTheAdminListenerRemovesTheStoredResponses() throws IOException {
        String t = "/purge/a?cc=max-age%3D60";
        get(t);
        get(t);
        assertThat(origin.count(t)).isEqualTo(1);
        try (RawHttp admin = new RawHttp(server.port("admin"))) {
            assertThat(admin.exchange("GET /cache/purge HTTP/1.1\r\nHost: admin\r\n\r\n").status()).isEqualTo(405);
            RawHttp.Response purged = admin.exchange("POST /cache/purge?host=APP.test&path=/purge&prefix=true HTTP/1.1\r\n"
                    + "Host: admin\r\nContent-Length: 0\r\n\r\n");
            assertThat(purged.status()).isEqualTo(200);
            assertThat(purged.body()).isEqualTo("{\"purged\":1}\n");
        }
        assertThat(get(t).body()).startsWith("n=2 ");
    }

    @Test
    void metricsCountHitsMissesAndStores() throws IOException {
        String t = "/metrics?cc=max-age%3D60";
        get(t);
        get(t);
        try (RawHttp admin = new RawHttp(server.port("admin"))) {
            String text = admin.exchange("GET /metrics HTTP/1.1\r\nHost: admin\r\n\r\n").body();
            assertThat(text).containsPattern("paduraksa_cache_requests_total\\{result=\"hit\"\\} [1-9]");
            assertThat(text).containsPattern("paduraksa_cache_requests_total\\{result=\"miss\"\\} [1-9]");
            assertThat(text).containsPattern("paduraksa_cache_stores_total [1-9]");
            assertThat(text).contains("paduraksa_cache_max_bytes 8388608");
        }
    }

    @Test
    void h2cClientsGetHitsToo() throws Exception {
        String t = "/h2?cc=max-age%3D60";
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response first = c.get("GET", "app.test", t);
            H2Client.Response second = c.get("GET", "app.test", t);
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.body()).isEqualTo(first.body()).startsWith("n=1 ");
            assertThat(second.header("age")).matches("[0-9]+");
            H2Client.Response head = c.get("HEAD", "app.test", t);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
        }
        assertThat(get(t).body()).startsWith("n=1 "); // and HTTP/1.1 clients get the same stored copy
        assertThat(origin.count(t)).isEqualTo(1);
    }

    @Test
    void h2cVariantsFollowTheirAcceptEncoding() throws Exception {
        String t = "/h2vary?cc=max-age%3D60&vary=accept-encoding";
        try (H2Client c = H2Client.connect(server.port("public"))) {
            Http2Headers gzip = H2Client.headers("GET", "app.test", t).add("accept-encoding", "gzip");
            Http2Headers br = H2Client.headers("GET", "app.test", t).add("accept-encoding", "br");
            assertThat(c.send(gzip, null, true).done.get(5, TimeUnit.SECONDS).body()).isEqualTo("n=1 ae=gzip");
            assertThat(c.send(br, null, true).done.get(5, TimeUnit.SECONDS).body()).isEqualTo("n=2 ae=br");
            Http2Headers gzipAgain = H2Client.headers("GET", "app.test", t).add("accept-encoding", "gzip");
            assertThat(c.send(gzipAgain, null, true).done.get(5, TimeUnit.SECONDS).body()).isEqualTo("n=1 ae=gzip");
        }
        assertThat(origin.count(t)).isEqualTo(2);
    }

    @Test
    void h2ClientsOverTlsGetHitsWithTheirAge() throws Exception {
        String t = "/h2tls?cc=max-age%3D60";
        try (H2Client c = H2Client.connectTls(server.port("tls"), "app.a.test")) {
            H2Client.Response first = c.get("GET", "app.a.test", t);
            assertThat(first.header("age")).isNull();
            H2Client.Response second = c.get("GET", "app.a.test", t);
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.body()).isEqualTo(first.body()).startsWith("n=1 ");
            assertThat(second.header("age")).matches("[0-9]+");
            assertThat(second.header("cache-control")).isEqualTo("max-age=60");
            H2Client.Response head = c.get("HEAD", "app.a.test", t);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
        }
        assertThat(origin.count(t)).isEqualTo(1);
    }

    /**
     * The HTTP/2 twin of {@code Http3CacheIT}'s split request: a GET whose END_STREAM comes in a DATA
     * frame after its HEADERS (an empty one, with or without {@code content-length: 0}) could still
     * have brought a body when the gate ran, so it is forwarded without a lookup, and a GET that
     * does bring one reaches the upstream with it.
     */
    @Test
    void anH2GetWhoseEndStreamComesAfterItsHeadersIsForwarded() throws Exception {
        String t = "/h2split?cc=max-age%3D60";
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response first = c.get("GET", "app.test", t);
            assertThat(first.body()).startsWith("n=1 ");
            assertThat(c.get("GET", "app.test", t).header("age")).as("stored: a GET with END_STREAM on its HEADERS hits").isNotNull();
            Http2Headers[] splits = {H2Client.headers("GET", "app.test", t),
                H2Client.headers("GET", "app.test", t).add("content-length", "0")};
            for (int i = 0; i < splits.length; i++) {
                H2Client.Stream split = c.send(splits[i], null, false); // HEADERS without END_STREAM
                Thread.sleep(50); // the END_STREAM in a later read, as a client that had a body to send
                c.sendData(split, "", true);
                H2Client.Response r = split.done.get(5, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("age")).as("split %d: not from the store", i).isNull();
                assertThat(r.body()).startsWith("n=" + (i + 2) + " ");
            }
            H2Client.Stream withBody = c.send(H2Client.headers("GET", "app.test", t), null, false);
            Thread.sleep(50);
            c.sendData(withBody, "q=1", true);
            H2Client.Response r = withBody.done.get(5, TimeUnit.SECONDS);
            assertThat(r.header("age")).isNull();
            assertThat(r.body()).startsWith("n=4 ");
        }
        assertThat(origin.count(t)).isEqualTo(4);
    }

    @Test
    void h2cClientsGetTheStaleCopyWhenTheUpstreamFails() throws Exception {
        String t = "/h2stale?cc=max-age%3D1";
        try (H2Client c = H2Client.connect(server.port("public"))) {
            String body = c.get("GET", "app.test", t).body();
            Thread.sleep(1500);
            origin.failing = "503";
            H2Client.Response stale = c.get("GET", "app.test", t);
            assertThat(stale.status()).isEqualTo(200);
            assertThat(stale.body()).isEqualTo(body);
            assertThat(Integer.parseInt(stale.header("age"))).isGreaterThanOrEqualTo(1);
        }
        assertThat(origin.count(t)).isEqualTo(2);
    }
}
