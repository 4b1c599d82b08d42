package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import org.junit.jupiter.api.Test;

/** The sample configuration's gate actions over a real socket. */
class Http1SmokeIT {
    static final String YAML = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
            clusters:
              app: {destinations: [{url: "http://127.0.0.1:9"}]}
            policies:
              no-admin: {type: path, deny: [/admin]}
            hosts:
              - names: [a.test]
                policies: [no-admin]
                routes:
                  - {path: /static, respond: {status: 200, body: "static\\n"}}
                  - {path: /old, redirect: {location: "https://a.test/new", status: 301}}
                  - {path: /, forward: app}
            """;

    @Test
    void answersRedirectsDeniesAndRefusesUnknownHosts() throws Exception {
        try (TestServer server = TestServer.start(YAML); RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response ok = c.exchange("GET /static HTTP/1.1\r\nHost: a.test\r\n\r\n");
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("static\n");
            assertThat(ok.header("date")).hasSize(29).endsWith(" GMT");
            assertThat(c.exchange("GET /old HTTP/1.1\r\nHost: a.test\r\n\r\n").header("location")).isEqualTo("https://a.test/new");
            assertThat(c.exchange("GET /admin/x HTTP/1.1\r\nHost: a.test\r\n\r\n").status()).isEqualTo(403);
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: nope.example\r\n\r\n").status()).isEqualTo(421);
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").status()).isEqualTo(502);
            assertThat(c.exchange("GET /static HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n").header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }
}
