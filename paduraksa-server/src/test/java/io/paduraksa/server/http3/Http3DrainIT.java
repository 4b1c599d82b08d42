package io.paduraksa.server.http3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Reload and stop with HTTP/3 connections open: a reload's new answers reach an open QUIC
 * connection; a stop sends GOAWAY, lets the request in flight finish (its body still arriving),
 * refuses nothing the client sent before, and closes the connection with H3_NO_ERROR well before
 * the drain timeout.
 */
class Http3DrainIT {
    private static final String YAML = """
            listeners:
              - name: tls
                address: "127.0.0.1:0"
                protocols: [http1, h3]
                tls: {certificates: [{cert: "%s", key: "%s"}]}
            clusters:
              app: {destinations: [{url: "%s"}]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /app, forward: app}
                  - {path: /, respond: {status: 200, body: "%s"}}
            """;

    private static String yaml(TestOrigin origin, String body) {
        return YAML.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url(), body);
    }

    @Test
    void aReloadReachesAnOpenHttp3Connection() throws Exception {
        try (TestOrigin origin = new TestOrigin("origin"); TestServer server = TestServer.start(yaml(origin, "before"))) {
            try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
                assertThat(c.send("GET", "a.test", "/").await().body()).isEqualTo("before");
                assertThat(server.reload(yaml(origin, "after"))).isTrue();
                assertThat(c.send("GET", "a.test", "/").await().body()).isEqualTo("after");
            }
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (TestOrigin origin = new TestOrigin("origin");
             TestServer server = TestServer.start(yaml(origin, "x").replace("protocols: [http1, h3]",
                     "protocols: [http1, h3]\n    http3: {idle_timeout: 1s}"))) {
            try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
                assertThat(c.send("GET", "a.test", "/").await().status).isEqualTo(200);
                long start = System.nanoTime();
                assertThat(c.channel().closeFuture().await(10, TimeUnit.SECONDS)).as("closed when idle").isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void aStopSendsGoAwayAndLetsTheRequestInFlightFinish() throws Exception {
        try (TestOrigin origin = new TestOrigin("origin")) {
            TestServer server = TestServer.start(yaml(origin, "x"));
            H3Client c = H3Client.connect(server.port("tls"), "a.test");
            try {
                H3Client.Response inFlight = c.open(H3Client.headers("POST", "a.test", "/app/echo"));
                Thread.sleep(200); // forwarded, waiting for its body
                long start = System.nanoTime();
                CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> server.server().stop(Duration.ofSeconds(10)));
                Http3ClientConnectionHandler h3 = c.channel().pipeline().get(Http3ClientConnectionHandler.class);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!h3.isGoAwayReceived() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(h3.isGoAwayReceived()).as("GOAWAY received").isTrue();
                assertThat(inFlight.done).isNotDone();
                inFlight.stream.write(new DefaultHttp3DataFrame(Unpooled.wrappedBuffer(new byte[1234])));
                inFlight.stream.writeAndFlush(new DefaultHttp3DataFrame(Unpooled.EMPTY_BUFFER)).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
                inFlight.await();
                assertThat(inFlight.status).isEqualTo(200);
                assertThat(inFlight.body()).contains("body-bytes: 1234\n");
                assertThat(c.channel().closeFuture().await(5, TimeUnit.SECONDS)).as("the server closed the connection").isTrue();
                stopped.get(10, TimeUnit.SECONDS);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the stop did not wait for its drain timeout")
                        .isLessThan(Duration.ofSeconds(8));
            } finally {
                c.close();
                server.close();
            }
        }
    }
}
