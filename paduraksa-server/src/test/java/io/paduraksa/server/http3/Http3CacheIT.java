package io.paduraksa.server.http3;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.proxy.cache.CacheOrigin;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The response cache over HTTP/3: a GET whose FIN comes with its HEADERS (as browsers send it) gets
 * a stored response with its Age, and the stored copy when the upstream later fails
 * (stale-if-error). A request whose FIN comes after its HEADERS may still have a body, so it is not
 * looked up ({@code CachingForwarder.refusal}; Netty's HTTP/3 client sends GETs that way). Within
 * stale-while-revalidate the stale copy answers and a copy of the request refreshes it behind it.
 */
class Http3CacheIT {
    static CacheOrigin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new CacheOrigin();
        server = TestServer.start("""
                listeners:
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [http1, h3]
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                cache: {max_size: 8MiB, max_object_size: 64KiB, coalesce_timeout: 3s}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                    timeouts: {connect: 1s, response_headers: 3s, idle: 3s}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, forward: app, cache: {stale_if_error: 30s}}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void http3ClientsGetStoredResponsesWithTheirAge() throws Exception {
        String t = "/h3hit?cc=max-age%3D60";
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            H3Client.Response first = c.sendWithFin("GET", "a.test", t).await();
            H3Client.Response second = c.sendWithFin("GET", "a.test", t).await();

            assertThat(first.status).isEqualTo(200);
            assertThat(first.header("age")).isNull();
            assertThat(second.status).isEqualTo(200);
            assertThat(second.end).isEqualTo("fin");
            assertThat(second.body()).isEqualTo(first.body()).startsWith("n=1 ");
            assertThat(second.header("age")).matches("[0-9]+");
            assertThat(second.header("cache-control")).isEqualTo("max-age=60");
            assertThat(origin.count(t)).isEqualTo(1);
        }
    }

    @Test
    void aRequestWhoseEndComesAfterItsHeadersIsForwarded() throws Exception {
        String t = "/h3split?cc=max-age%3D60";
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            H3Client.Response first = c.sendWithFin("GET", "a.test", t).await();
            H3Client.Response split = c.send("GET", "a.test", t).await(); // FIN in a packet of its own
            assertThat(first.status).isEqualTo(200);
            assertThat(split.status).isEqualTo(200);
            assertThat(split.header("age")).isNull();
            assertThat(origin.count(t)).isEqualTo(2);
        }
    }

    @Test
    void http3ClientsGetTheStoredCopyWhenTheUpstreamFails() throws Exception {
        String t = "/h3stale?cc=max-age%3D1";
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            H3Client.Response first = c.sendWithFin("GET", "a.test", t).await();
            Thread.sleep(2_100); // past max-age=1: the copy is stale, within stale_if_error
            origin.failing = "503";
            H3Client.Response stale;
            try {
                stale = c.sendWithFin("GET", "a.test", t).await();
            } finally {
                origin.failing = null;
            }
            assertThat(first.status).isEqualTo(200);
            assertThat(stale.status).isEqualTo(200);
            assertThat(stale.body()).isEqualTo(first.body());
            assertThat(Integer.parseInt(stale.header("age"))).isGreaterThanOrEqualTo(1);
            assertThat(origin.count(t)).isEqualTo(2);
        }
    }

    @Test
    void http3StaleWhileRevalidateAnswersFromTheStaleCopyAndRefreshesInTheBackground() throws Exception {
        String t = "/h3swr?cc=max-age%3D1%2C%20stale-while-revalidate%3D30&delay=500";
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            assertThat(c.sendWithFin("GET", "a.test", t).await().body()).startsWith("n=1 ");
            Thread.sleep(1_300); // stale, within stale-while-revalidate
            H3Client.Response stale = c.sendWithFin("GET", "a.test", t).await();
            assertThat(stale.body()).as("the first request after the expiry gets the stale copy").startsWith("n=1 ");
            assertThat(Integer.parseInt(stale.header("age"))).isGreaterThanOrEqualTo(1);
            long deadline = System.nanoTime() + 10_000_000_000L;
            String body = stale.body();
            while (body.startsWith("n=1 ")) {
                assertThat(System.nanoTime()).as("the background refresh stored n=2 within 10 s").isLessThan(deadline);
                Thread.sleep(20);
                body = c.sendWithFin("GET", "a.test", t).await().body();
            }
            assertThat(body).startsWith("n=2 ");
            assertThat(origin.count(t)).isEqualTo(2);
        }
    }
}
