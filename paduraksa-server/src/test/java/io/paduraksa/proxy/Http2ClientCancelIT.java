package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.util.function.BooleanSupplier;
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
            await(() -> big.bytesReceived() > 0, "the download started");
            await(() -> origin.openConnections() == 1, "its upstream connection is open");
            c.cancel(big);
            await(() -> origin.openConnections() == 0, "the upstream connection closes after the cancel");
            assertThat(c.get("GET", "app.test", "/after").status()).isEqualTo(200);
            assertThat(c.isOpenAfter(0)).isTrue();
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 5 s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
