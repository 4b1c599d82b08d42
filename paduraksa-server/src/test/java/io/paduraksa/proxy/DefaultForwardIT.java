package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code default: {forward: CLUSTER}}: requests for no configured host reach the cluster over HTTP/1.1 and h2c. */
class DefaultForwardIT {
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("fallback-origin");
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  fallback:
                    destinations: [{url: "%s"}]
                default: {forward: fallback}
                hosts:
                  - names: [known.test]
                    routes:
                      - {path: /, respond: {status: 204}}
                """.formatted(origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void unknownHostIsForwardedOverHttp1() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (int i = 0; i < 3; i++) {
                RawHttp.Response r = c.exchange("GET /any/path?q=" + i + " HTTP/1.1\r\nHost: other.test\r\n\r\n");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).startsWith("GET /any/path?q=" + i + "\n").contains("host: other.test\n");
            }
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: known.test\r\n\r\n").status()).isEqualTo(204);
        }
    }

    @Test
    void unknownHostIsForwardedOverH2c() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            for (int i = 0; i < 3; i++) {
                H2Client.Response r = c.get("GET", "other.test", "/h2/" + i);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).startsWith("GET /h2/" + i + "\n").contains("host: other.test\n");
            }
        }
    }
}
