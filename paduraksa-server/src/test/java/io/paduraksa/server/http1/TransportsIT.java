package io.paduraksa.server.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.server.transport.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same HTTP/1.1 exchange on every socket transport the server supports, each forced with
 * {@code server.transport}; a transport this machine cannot run is skipped, saying why.
 */
class TransportsIT {
    static final String YAML = """
            server: {transport: %s, threads: 1}
            listeners:
              - {name: h1, address: "127.0.0.1:0", protocols: [http1]}
              - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /static, respond: {status: 200, body: "static\\n"}}
              - names: [b.test]
                routes:
                  - {path: /, respond: {status: 404, body: "b\\n"}}
            """;
    static final String GET_A = "GET /static HTTP/1.1\r\nHost: a.test\r\n\r\n";
    static final String GET_B = "GET /x HTTP/1.1\r\nHost: b.test\r\n\r\n";

    @ParameterizedTest
    @ValueSource(strings = {"io_uring", "epoll", "nio"})
    void servesKeepAliveAndPipelinedRequests(String transport) throws Exception {
        assumeAvailable(transport);
        try (TestServer server = TestServer.start(YAML.formatted(transport))) {
            assertThat(server.server().transport().name()).isEqualTo(transport);
            for (String listener : new String[] {"h1", "mixed"}) {
                try (RawHttp c = new RawHttp(server.port(listener))) {
                    for (int i = 0; i < 20; i++) {
                        assertThat(c.exchange(GET_A).body()).isEqualTo("static\n");
                    }
                    c.send(GET_A + GET_B + "HEAD /static HTTP/1.1\r\nHost: a.test\r\n\r\n" + GET_B + GET_A);
                    assertThat(c.read().status()).isEqualTo(200);
                    assertThat(c.read().body()).isEqualTo("b\n");
                    RawHttp.Response head = c.read(true);
                    assertThat(head.header("content-length")).isEqualTo("7");
                    assertThat(c.read().status()).isEqualTo(404);
                    assertThat(c.read().body()).isEqualTo("static\n");
                    RawHttp.Response last = c.exchange("GET /static HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
                    assertThat(last.header("connection")).isEqualTo("close");
                    assertThat(c.isClosedByServer()).isTrue();
                }
            }
        }
    }

    private static void assumeAvailable(String name) {
        io.paduraksa.testing.Tools.requireNative(name, Transport.all().stream().filter(t -> t.name().equals(name))
                .findFirst().orElseThrow().unavailabilityCause());
    }
}
