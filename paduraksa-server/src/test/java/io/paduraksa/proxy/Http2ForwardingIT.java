package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** HTTP/2 (h2c) clients forwarded to an HTTP/1.1 upstream: translation both ways, bodies, trailers, failures. */
class Http2ForwardingIT {
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
                    timeouts: {response_headers: 400ms}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /, forward: app}
                """.formatted(origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void getIsTranslatedToHttp1AndBack() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            Http2Headers h = H2Client.headers("GET", "app.test", "/a/../b?q=1");
            h.add("cookie", "a=1");
            h.add("cookie", "b=2");
            h.add("x-custom", "kept");
            H2Client.Response r = c.send(h, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).startsWith("GET /b?q=1\n");
            assertThat(r.body()).contains("host: app.test\n", "cookie: a=1; b=2\n", "x-custom: kept\n", "x-forwarded-proto: http\n");
            assertThat(r.header("content-type")).isEqualTo("text/plain");
            assertThat(r.header("keep-alive")).isNull();
        }
    }

    @Test
    void postBodyIsStreamedUp() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            String body = "y".repeat(50_000);
            H2Client.Response r = c.send(H2Client.headers("POST", "app.test", "/upload"), body, true).done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("transfer-encoding: chunked\n", "body-bytes: 50000\n");
        }
    }

    @Test
    void manyStreamsShareTheUpstreamPool() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            Http2Headers[] requests = {H2Client.headers("GET", "app.test", "/many")};
            c.sendAll(requests, 200, 200, 20);
        }
    }

    @Test
    void chunkedResponseWithTrailersArrivesWhole() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response r = c.get("GET", "app.test", "/chunked");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello world");
        }
    }

    @Test
    void failuresAnswerOnTheStreamOnly() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            assertThat(c.get("GET", "app.test", "/never").status()).isEqualTo(504);
            assertThat(c.get("GET", "app.test", "/bad-status").status()).isEqualTo(502);
            H2Client.Response cut = c.get("GET", "app.test", "/close-early");
            assertThat(cut.reset()).isEqualTo(2L); // INTERNAL_ERROR
            assertThat(c.get("GET", "app.test", "/fine").status()).isEqualTo(200);
        }
    }
}
