package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The catch-all host {@code names: ["*"]} over HTTP/1.1 and h2c: /admin is denied on every unknown
 * host and the rest is forwarded, with the catch-all's own error pages (also for the forwarder's
 * 502); exact names and wildcards of any depth keep their own entries, and a malformed Host still
 * gets the default answer.
 */
class CatchAllHostIT {
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("catch-all-origin");
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                  dead: {destinations: [{url: "http://127.0.0.1:%d"}]}
                policies:
                  no-admin: {type: path, deny: [/admin]}
                error_pages:
                  default: {body: "server page ${status}\\n", content_type: text/plain}
                hosts:
                  - names: [known.test]
                    routes: [{path: /, respond: {status: 200, body: "known\\n"}}]
                  - names: ["*.known.test"]
                    routes: [{path: /, respond: {status: 200, body: "a known subdomain\\n"}}]
                  - names: ["*"]
                    policies: [no-admin]
                    routes:
                      - {path: /dead, forward: dead}
                      - {path: /, forward: app}
                    error_pages:
                      "403": {body: "no admin on unknown hosts\\n", content_type: text/plain}
                      "502": {body: "catch-all upstream down\\n", content_type: text/plain}
                """.formatted(origin.url(), deadPort));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void overHttp1TheCatchAllDeniesAdminAndForwardsTheRest() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response forwarded = c.exchange("GET /shop?q=1 HTTP/1.1\r\nHost: Unknown.Example:8080\r\n\r\n");
            assertThat(forwarded.status()).isEqualTo(200);
            assertThat(forwarded.body()).startsWith("GET /shop?q=1\n").contains("host: Unknown.Example:8080\n");

            RawHttp.Response denied = c.exchange("GET /admin/users HTTP/1.1\r\nHost: unknown.example\r\n\r\n");
            assertThat(denied.status()).isEqualTo(403);
            assertThat(denied.body()).isEqualTo("no admin on unknown hosts\n");

            RawHttp.Response badGateway = c.exchange("GET /dead HTTP/1.1\r\nHost: other.example\r\n\r\n");
            assertThat(badGateway.status()).isEqualTo(502);
            assertThat(badGateway.body()).as("the catch-all's own page for the forwarder's answer").isEqualTo("catch-all upstream down\n");
        }
    }

    @Test
    void overHttp1KnownNamesAndDeepWildcardsKeepTheirEntries() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(c.exchange("GET /admin HTTP/1.1\r\nHost: known.test\r\n\r\n").body()).isEqualTo("known\n");
            assertThat(c.exchange("GET /admin HTTP/1.1\r\nHost: a.b.c.known.test\r\n\r\n").body()).isEqualTo("a known subdomain\n");
        }
    }

    @Test
    void overHttp1AMalformedHostGetsTheDefaultAnswerNotTheCatchAll() throws Exception {
        for (String host : new String[] {"a..b.example", "a_b.example", "x".repeat(64) + ".example"}) {
            try (RawHttp c = new RawHttp(server.port("public"))) {
                RawHttp.Response r = c.exchange("GET /admin HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
                assertThat(r.status()).as(host).isEqualTo(421);
                assertThat(r.body()).as(host).isEqualTo("server page 421\n");
            }
        }
    }

    @Test
    void overH2cTheCatchAllDeniesAdminAndForwardsTheRest() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response forwarded = c.get("GET", "unknown.example", "/shop/h2");
            assertThat(forwarded.status()).isEqualTo(200);
            assertThat(forwarded.body()).startsWith("GET /shop/h2\n").contains("host: unknown.example\n");

            H2Client.Response denied = c.get("GET", "a.b.unknown.example", "/admin");
            assertThat(denied.status()).isEqualTo(403);
            assertThat(denied.body()).isEqualTo("no admin on unknown hosts\n");

            H2Client.Response badGateway = c.get("GET", "[2001:db8::1]:443", "/dead");
            assertThat(badGateway.status()).isEqualTo(502);
            assertThat(badGateway.body()).isEqualTo("catch-all upstream down\n");

            assertThat(c.get("GET", "x.known.test", "/admin").body()).isEqualTo("a known subdomain\n");
            H2Client.Response malformed = c.get("GET", "a..b.example", "/admin");
            assertThat(malformed.status()).isEqualTo(421);
            assertThat(malformed.body()).isEqualTo("server page 421\n");
        }
    }
}
