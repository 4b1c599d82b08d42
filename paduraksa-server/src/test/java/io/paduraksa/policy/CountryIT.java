package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.testing.MmdbWriter;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Country rules through the real server, with a small .mmdb written by the test that puts the
 * loopback peer in Germany: the database decides for direct peers (a spoofed CF-IPCountry is
 * ignored), the header decides for a trusted proxy.
 */
class CountryIT {
    static String yaml(Path database, String trustedProxies) {
        return """
                listeners:
                  - {name: web, address: "127.0.0.1:0", protocols: [http1, h2c]}
                client_ip: {trusted_proxies: [%s]}
                policies:
                  only-fr: {type: country, allow: [FR], database: "%s"}
                  no-de: {type: country, deny: [DE]}
                hosts:
                  - names: [fr.test]
                    policies: [only-fr]
                    routes: [{path: /, respond: {status: 200, body: "bienvenue"}}]
                  - names: [de.test]
                    policies: [no-de]
                    routes: [{path: /, respond: {status: 200, body: "hello"}}]
                """.formatted(trustedProxies, database);
    }

    static Path database(Path dir) throws IOException {
        Path file = dir.resolve("countries.mmdb");
        new MmdbWriter().add("127.0.0.0/8", "DE").add("198.51.100.0/24", "FR").write(file);
        return file;
    }

    static int status(int port, String host, String extraHeader) throws IOException {
        try (RawHttp http = new RawHttp(port)) {
            return http.send("GET / HTTP/1.1\r\nHost: " + host + "\r\n" + extraHeader + "Connection: close\r\n\r\n").read().status();
        }
    }

    @Test
    void aDirectPeersCountryComesFromTheDatabaseAndItsHeaderIsIgnored(@TempDir Path dir) throws IOException {
        try (TestServer server = TestServer.start(yaml(database(dir), "192.0.2.0/24"))) {
            int port = server.port("web");
            assertThat(status(port, "fr.test", "")).isEqualTo(403);
            assertThat(status(port, "fr.test", "CF-IPCountry: FR\r\n")).as("spoofed header from an untrusted peer").isEqualTo(403);
            assertThat(status(port, "de.test", "")).isEqualTo(403);
            assertThat(status(port, "de.test", "CF-IPCountry: US\r\n")).isEqualTo(403);
        }
    }

    @Test
    void aTrustedProxysHeaderGivesTheCountry(@TempDir Path dir) throws IOException {
        try (TestServer server = TestServer.start(yaml(database(dir), "127.0.0.1/32"))) {
            int port = server.port("web");
            assertThat(status(port, "fr.test", "CF-Connecting-IP: 203.0.113.9\r\nCF-IPCountry: FR\r\n")).isEqualTo(200);
            assertThat(status(port, "fr.test", "CF-IPCountry: fr\r\n")).isEqualTo(200);
            assertThat(status(port, "fr.test", "")).as("no header: unknown, outside the allow list").isEqualTo(403);
            assertThat(status(port, "fr.test", "CF-IPCountry: XX\r\n")).isEqualTo(403);
            assertThat(status(port, "de.test", "CF-IPCountry: DE\r\n")).isEqualTo(403);
            assertThat(status(port, "de.test", "CF-IPCountry: FR\r\n")).as("the proxy's own address is not looked up").isEqualTo(200);
        }
    }
}
