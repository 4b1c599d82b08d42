package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Redirects whose location is built from the request ({@code ${host}}, {@code ${request_uri}}, ...),
 * through a real server over HTTP/1.1 and h2c, with hostile hosts and paths: the client is only ever
 * sent to the same site, and no request byte starts a header of its own.
 */
class RedirectTemplateIT {
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                hosts:
                  - names: [shop.test, "*.shop.test"]
                    routes:
                      - {path: /port, redirect: {location: "${scheme}://${host}:${port}/p${query}", status: 302}}
                      - {path: /, redirect: {location: "https://${host}${request_uri}", status: 301}}
                default:
                  redirect: {location: "https://www.shop.test${request_uri}", status: 308}
                """);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static RawHttp.Response h1(String host, String target) throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            return c.exchange("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        }
    }

    @Test
    void sendsHttpToHttpsOnTheSameHostAndPathOverHttp1() throws Exception {
        RawHttp.Response r = h1("Shop.Test:8080", "/cart/./items/../checkout?step=2&coupon=a%20b");
        assertThat(r.status()).isEqualTo(301);
        assertThat(r.header("location")).isEqualTo("https://shop.test/cart/checkout?step=2&coupon=a%20b");
        assertThat(h1("a.shop.test", "/port?x=1").header("location")).isEqualTo("http://a.shop.test:80/p?x=1");
        assertThat(h1("a.shop.test:8443", "/port").header("location")).isEqualTo("http://a.shop.test:8443/p");
    }

    @Test
    void sendsHttpToHttpsOverH2c() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            for (int i = 0; i < 3; i++) {
                H2Client.Response r = c.get("GET", "shop.test", "/a/" + i + "?q=" + i);
                assertThat(r.status()).isEqualTo(301);
                assertThat(r.header("location")).isEqualTo("https://shop.test/a/" + i + "?q=" + i);
            }
            H2Client.Response other = c.get("GET", "b.shop.test:81", "/port?z");
            assertThat(other.header("location")).isEqualTo("http://b.shop.test:81/p?z");
        }
    }

    /** Bytes that a header cannot carry are percent-encoded: a quote, angle brackets, a backslash kept raw in a query. */
    @Test
    void hostileQueriesAndPathsStayInsideTheLocation() throws Exception {
        RawHttp.Response r = h1("shop.test", "/x?a=\"<script>\"&b=\\");
        assertThat(r.status()).isEqualTo(301);
        assertThat(r.header("location")).isEqualTo("https://shop.test/x?a=%22%3Cscript%3E%22&b=%5C");
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response h2 = c.get("GET", "shop.test", "/x?a=\"<b>\"");
            assertThat(h2.header("location")).isEqualTo("https://shop.test/x?a=%22%3Cb%3E%22");
        }
    }

    /** A path that starts with "//" cannot make a relative location protocol-relative: it is normalised first. */
    @Test
    void aDoubleSlashPathDoesNotLeaveTheSite() throws Exception {
        assertThat(h1("unknown.test", "//evil.test/%2e%2e/x").header("location")).isEqualTo("https://www.shop.test/x");
        assertThat(h1("shop.test", "//evil.test").header("location")).isEqualTo("https://shop.test/evil.test");
    }

    /** A host that is no valid name never reaches a Location: the default (which does not name ${host}) or 400. */
    @Test
    void aHostileHostNeverReachesTheLocation() throws Exception {
        for (String host : new String[] {"evil.test/x.shop.test", "evil.test%2f.shop.test", "a@evil.test", "evil.test\\.shop.test",
            "evil.test?.shop.test"}) {
            RawHttp.Response r = h1(host, "/");
            assertThat(r.status()).as(host).isIn(308, 400);
            if (r.status() == 308) {
                assertThat(r.header("location")).as(host).isEqualTo("https://www.shop.test/");
            }
        }
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response r = c.get("GET", "evil.test/x.shop.test", "/");
            assertThat(r.status()).isIn(308, 400, 421);
            if (r.status() == 308) {
                assertThat(r.header("location")).isEqualTo("https://www.shop.test/");
            }
        }
    }
}
