package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Segment parameters ({@code ;x} raw or {@code %3B}) against {@code deny: [/admin]} over real
 * HTTP/1.1 and h2c connections: every spelling a servlet container reads as {@code /admin} is
 * refused (403 with {@code strip}, the default; 400 with {@code reject}), and an allowed path with
 * parameters reaches the HTTP/1.1 and h2c upstreams as the path that was matched.
 */
class PathParametersIT {
    /** Spellings Tomcat, Jetty and Spring route to /admin (and case variants the deny folds). */
    private static final List<String> ADMIN_SPELLINGS = List.of(
            "/admin;x=1", "/admin;", "/admin;/", "/admin;jsessionid=1/x", "/x/..;/admin", "/x/..;x=1/admin",
            "/x/%2e%2e;/admin", "/.;/admin", "/;x/admin", "//admin;", "/a;x/b;y/..;/..;/admin;z",
            "/admin%3Bx=1", "/x/..%3b/admin", "/ADMIN;x", "/Admin;x/", "/admin;x=1?q=1");

    private static TestOrigin origin;
    private static H2Origin h2Origin;
    private static TestServer strip;
    private static TestServer reject;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        h2Origin = new H2Origin(100);
        String config = """
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                normalize: {path_parameters: %s}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                  h2: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}]}
                policies:
                  no-admin: {type: path, deny: [/admin]}
                hosts:
                  - names: [app.test]
                    policies: [no-admin]
                    routes: [{path: /, forward: app}]
                  - names: [h2.test]
                    policies: [no-admin]
                    routes: [{path: /, forward: h2}]
                """;
        strip = TestServer.start(config.formatted("strip", origin.url(), h2Origin.port()));
        reject = TestServer.start(config.formatted("reject", origin.url(), h2Origin.port()));
    }

    @AfterAll
    static void stop() {
        strip.close();
        reject.close();
        h2Origin.close();
        origin.close();
    }

    private static int http1Status(TestServer server, String target) throws IOException {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            return c.exchange("GET " + target + " HTTP/1.1\r\nHost: app.test\r\n\r\n").status();
        }
    }

    @Test
    void everyAdminSpellingIsDeniedOverHttp1() throws IOException {
        for (String target : ADMIN_SPELLINGS) {
            assertThat(http1Status(strip, target)).as("strip: GET %s", target).isEqualTo(403);
            assertThat(http1Status(reject, target)).as("reject: GET %s", target).isEqualTo(400);
        }
        assertThat(http1Status(strip, "/..;/admin")).as("'..;' above the root").isEqualTo(400);
    }

    @Test
    void everyAdminSpellingIsDeniedOverH2c() throws Exception {
        try (H2Client s = H2Client.connect(strip.port("public")); H2Client r = H2Client.connect(reject.port("public"))) {
            for (String target : ADMIN_SPELLINGS) {
                assertThat(s.get("GET", "app.test", target).status()).as("strip: :path %s", target).isEqualTo(403);
                assertThat(r.get("GET", "app.test", target).status()).as("reject: :path %s", target).isEqualTo(400);
            }
        }
    }

    @Test
    void anAllowedPathWithParametersForwardsWhatWasMatchedOverHttp1() throws IOException {
        try (RawHttp c = new RawHttp(strip.port("public"))) {
            RawHttp.Response r = c.exchange("GET /shop;jsessionid=0123ABCD/cart;v=2/..;/items%3Bx?q=1 HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).startsWith("GET /shop/items?q=1\n").doesNotContain("jsessionid");
        }
        assertThat(http1Status(reject, "/shop;jsessionid=0123ABCD")).isEqualTo(400);
        assertThat(http1Status(reject, "/shop")).isEqualTo(200);
    }

    @Test
    void anAllowedPathWithParametersForwardsWhatWasMatchedOverH2c() throws Exception {
        try (H2Client c = H2Client.connect(strip.port("public"))) {
            H2Client.Response toHttp1 = c.get("GET", "app.test", "/shop;jsessionid=0123ABCD/cart;v=2/..;/items?q=1");
            assertThat(toHttp1.status()).isEqualTo(200);
            assertThat(toHttp1.body()).startsWith("GET /shop/items?q=1\n").doesNotContain("jsessionid");
            H2Client.Response toH2 = c.get("GET", "h2.test", "/shop;jsessionid=0123ABCD/items;v=2");
            assertThat(toH2.status()).isEqualTo(200);
            assertThat(toH2.body()).contains(":path: /shop/items\n").doesNotContain("jsessionid");
        }
    }
}
