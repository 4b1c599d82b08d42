package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/1.1 clients forwarded to real HTTP/1.1 upstreams on loopback: what the upstream receives,
 * what the client gets back, connection reuse, bodies both ways, and every upstream failure the
 * forwarder turns into an answer or a close.
 */
class ForwardingIT {
    private static TestOrigin origin;
    private static TestOrigin second;
    private static int deadPort;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin-one");
        second = new TestOrigin("origin-two");
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // bound, then closed: connecting is refused
        }
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                client_ip:
                  trusted_proxies: [192.0.2.0/24]
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                    timeouts: {connect: 1s, response_headers: 400ms, idle: 2s}
                  retrying:
                    destinations: [{url: "http://127.0.0.1:%d"}, {url: "%s"}]
                    load_balancing: first_available
                    retry: {attempts: 1, budget: 100%%, min_per_second: 100}
                  dead:
                    destinations: [{url: "http://127.0.0.1:%d"}]
                    health: {passive: {consecutive_failures: 1, eject_for: 30s}}
                forwarding:
                  x_forwarded_for: replace
                  via: paduraksa
                  response_headers: {remove: [X-Powered-By], set: {X-Content-Type-Options: nosniff}}
                hosts:
                  - names: [app.test]
                    response_headers: {remove: [Server]}
                    routes:
                      - {path: /retry, forward: retrying}
                      - {path: /dead, forward: dead}
                      - {path: /, forward: app}
                """.formatted(origin.url(), deadPort, second.url(), deadPort));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
        second.close();
    }

    private static RawHttp client() throws IOException {
        return new RawHttp(server.port("public"));
    }

    @Test
    void upstreamSeesTheNormalisedPathQueryAndForwardingFields() throws IOException {
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("GET /a/./b/../c?x=1&y=%20 HTTP/1.1\r\nHost: app.test\r\n"
                    + "X-Forwarded-For: 198.51.100.1\r\nCF-Connecting-IP: 203.0.113.9\r\nConnection: keep-alive, X-Hop\r\n"
                    + "X-Hop: secret\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\nX-Custom: kept\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            String seen = r.body();
            assertThat(seen).startsWith("GET /a/c?x=1&y=%20\n");
            assertThat(seen).contains("host: app.test\n", "x-custom: kept\n", "x-forwarded-for: 127.0.0.1\n",
                    "x-forwarded-proto: http\n", "x-forwarded-host: app.test\n", "via: 1.1 paduraksa\n");
            assertThat(seen).doesNotContain("cf-connecting-ip", "198.51.100.1", "x-hop", "keep-alive: timeout", "te: trailers");
            assertThat(seen).containsPattern("x-request-id: [0-9a-f]{16}\n");
        }
    }

    @Test
    void everyConnectionFieldOfTheRequestNamesHopByHopFields() throws IOException {
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("GET /conn HTTP/1.1\r\nHost: app.test\r\nConnection: keep-alive\r\n"
                    + "X-First: first-value\r\nConnection: X-First,\tx-second \r\nX-Second: second-value\r\nX-Third: three\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            String seen = r.body();
            assertThat(seen).contains("x-third: three\n");
            assertThat(seen).doesNotContain("x-first", "x-second", "first-value", "second-value");
        }
    }

    @Test
    void clientRequestIdNeverReachesTheUpstreamWhenIdsAreGenerated() throws IOException {
        try (RawHttp c = client()) {
            String seen = c.exchange("GET /id HTTP/1.1\r\nHost: app.test\r\nX-Request-Id: forged\r\nx-request-id: again\r\n\r\n").body();
            assertThat(seen).doesNotContain("forged", "again");
            assertThat(seen.split("x-request-id: ", -1)).hasSize(2);
        }
    }

    @Test
    void responseFieldsFollowTheHostAndDefaultRules() throws IOException {
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("GET /fields HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("server")).isNull();
            assertThat(r.header("x-powered-by")).isNull();
            assertThat(r.header("keep-alive")).isNull();
            assertThat(r.header("x-content-type-options")).isEqualTo("nosniff");
            assertThat(r.header("content-type")).isEqualTo("text/plain");
        }
    }

    @Test
    void keepAliveRequestsReuseOneUpstreamConnection() throws IOException {
        try (RawHttp c = client()) {
            c.exchange("GET /warm HTTP/1.1\r\nHost: app.test\r\n\r\n");
            int before = origin.connections();
            for (int i = 0; i < 5; i++) {
                assertThat(c.exchange("GET /again HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(200);
            }
            assertThat(origin.connections()).isEqualTo(before);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws IOException {
        try (RawHttp c = client()) {
            c.send("GET /one HTTP/1.1\r\nHost: app.test\r\n\r\nGET /two HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(c.read().body()).startsWith("GET /one");
            assertThat(c.read().body()).startsWith("GET /two");
        }
    }

    @Test
    void contentLengthBodyIsStreamedUp() throws IOException {
        String body = "x".repeat(100_000);
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("POST /upload HTTP/1.1\r\nHost: app.test\r\nContent-Length: 100000\r\n\r\n" + body);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("content-length: 100000\n", "body-bytes: 100000\n");
            assertThat(c.exchange("GET /after HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(200);
        }
    }

    @Test
    void chunkedBodyIsStreamedUpChunked() throws IOException {
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("POST /upload HTTP/1.1\r\nHost: app.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
            assertThat(r.body()).contains("transfer-encoding: chunked\n", "body-bytes: 7\n");
        }
    }

    @Test
    void expectContinueIsRelayed() throws IOException {
        try (RawHttp c = client()) {
            c.send("POST /upload HTTP/1.1\r\nHost: app.test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
            RawHttp.Response interim = c.read();
            assertThat(interim.status()).isEqualTo(100);
            c.send("hello");
            assertThat(c.read().body()).contains("body-bytes: 5\n");
        }
    }

    @Test
    void chunkedResponseKeepsItsTrailers() throws IOException {
        try (RawHttp c = client()) {
            c.send("GET /chunked HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n");
            String raw = c.readAll();
            assertThat(raw).contains("Transfer-Encoding: chunked\r\n");
            assertThat(raw).contains("5\r\nhello\r\n", "5\r\nworld\r\n", "0\r\ngrpc-status: 0\r\n\r\n");
        }
    }

    @Test
    void closeDelimitedResponseBecomesChunked() throws IOException {
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("GET /close-delimited HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.header("transfer-encoding")).isEqualTo("chunked");
            assertThat(r.body()).isEqualTo("until the end");
            assertThat(c.exchange("GET /after HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(200);
        }
    }

    @Test
    void headRequestGetsTheHeadOnly() throws IOException {
        try (RawHttp c = client()) {
            c.send("HEAD /head HTTP/1.1\r\nHost: app.test\r\n\r\n");
            RawHttp.Response r = c.read(true);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEmpty();
            assertThat(c.exchange("GET /after HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(200);
        }
    }

    @Test
    void refusedConnectionIsRetriedOnAnotherDestination() throws IOException {
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("GET /retry HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).startsWith("GET /retry");
        }
    }

    @Test
    void refusedConnectionWithoutRetryIs502ThenEjectedIs503() throws IOException {
        try (RawHttp c = client()) {
            assertThat(c.exchange("GET /dead HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(502);
            assertThat(c.exchange("GET /dead HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(503);
        }
    }

    @Test
    void silentUpstreamIs504() throws IOException {
        try (RawHttp c = client()) {
            assertThat(c.exchange("GET /never HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(504);
        }
    }

    @Test
    void invalidStatusLineIs502() throws IOException {
        try (RawHttp c = client()) {
            assertThat(c.exchange("GET /bad-status HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(502);
        }
    }

    @Test
    void responseCutShortClosesTheClientConnection() throws IOException {
        try (RawHttp c = client()) {
            c.send("GET /close-early HTTP/1.1\r\nHost: app.test\r\n\r\n");
            String raw = c.readAll();
            assertThat(raw).startsWith("HTTP/1.1 200 ");
            assertThat(raw).contains("Content-Length: 100\r\n");
            assertThat(raw).endsWith("0123456789");
        }
    }

    @Test
    void smuggledResponseIsNeverDeliveredAndTheConnectionNotReused() throws IOException {
        try (RawHttp c = client()) {
            RawHttp.Response r = c.exchange("GET /smuggle HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.body()).isEqualTo("ok");
            RawHttp.Response next = c.exchange("GET /next HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.body()).startsWith("GET /next").doesNotContain("evil");
        }
    }
}
