package io.paduraksa.server.http3;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.server.transport.Transport;
import io.paduraksa.testing.Tools;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An HTTP/3 listener with two event loops opens one UDP socket per loop on the native transports
 * ({@code SO_REUSEPORT}) and one on NIO, and answers QUIC clients (each from its own UDP port, which the
 * kernel hashes to one of the sockets) on every transport.
 */
class Http3SocketsIT {

    @ParameterizedTest(name = "{0}: {1} sockets")
    @CsvSource({"io_uring, 2", "epoll, 2", "nio, 1"})
    void oneUdpSocketPerEventLoopOnTheNativeTransports(String transport, int sockets) throws Exception {
        Tools.requireNative(transport,
                Transport.all().stream().filter(t -> t.name().equals(transport)).findFirst().orElseThrow().unavailabilityCause());
        try (TestServer server = TestServer.start("""
                server: {transport: %s, threads: 2}
                listeners:
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [http1, h3]
                    tls:
                      certificates:
                        - {cert: "%s", key: "%s"}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 200, body: "h3\\n"}}
                """.formatted(transport, H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key")))) {
            assertThat(server.server().transport().name()).isEqualTo(transport);
            assertThat(server.server().http3Sockets()).isEqualTo(sockets);
            for (int i = 0; i < 6; i++) {
                try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
                    H3Client.Response ok = c.send("GET", "a.test", "/").await();
                    assertThat(ok.status).isEqualTo(200);
                    assertThat(ok.body()).isEqualTo("h3\n");
                }
            }
        }
    }
}
