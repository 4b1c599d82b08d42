package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 client that cancels a forwarded stream in the middle of its response (RST_STREAM
 * CANCEL): the upstream request is abandoned and its HTTP/1.1 connection closed (it is mid-response,
 * so it cannot go back to the pool), while the client's connection and its other streams go on.
 */
class Http2ClientCancelIT {
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [h2c]}
                clusters:
                  app: {destinations: [{url: "%s"}]}
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
    void cancelledStreamClosesItsUpstreamConnectionAndTheClientConnectionGoesOn() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Stream big = c.send(H2Client.headers("GET", "app.test", "/big/" + (1L << 30)), null, true);
            Await.until("the download started", () -> big.bytesReceived() > 0);
            Await.until("its upstream connection is open", () -> origin.openConnections() == 1);
            c.cancel(big);
            Await.until("the upstream connection closes after the cancel", () -> origin.openConnections() == 0);
            assertThat(c.get("GET", "app.test", "/after").status()).isEqualTo(200);
            assertThat(c.isOpenAfter(0)).isTrue();
        }
    }
}
