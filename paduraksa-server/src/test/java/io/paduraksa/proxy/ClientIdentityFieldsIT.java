package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fields that claim the client's address (or scheme, host, port) over real HTTP/1.1 and h2c
 * connections to an echoing origin: from a peer that is not a trusted proxy none passes, in any
 * spelling; from a trusted proxy only the ones it sets itself. And the request id sent back to the
 * client on forwarded responses and gate answers.
 */
class ClientIdentityFieldsIT {
    /** Forged identity fields, each with a value from 198.51.100.0/24 that must never reach the origin. */
    private static final String[][] FORGED = {
        {"X-Real-IP", "198.51.100.1"}, {"True-Client-IP", "198.51.100.2"}, {"X-Client-IP", "198.51.100.3"},
        {"X-Cluster-Client-IP", "198.51.100.4"}, {"Fastly-Client-IP", "198.51.100.5"}, {"X-Originating-IP", "198.51.100.6"},
        {"Forwarded", "for=198.51.100.7"}, {"X-Forwarded-For", "198.51.100.8"}, {"CF_Connecting_IP", "198.51.100.9"},
        {"X_Real_IP", "198.51.100.10"}, {"Client-IP", "198.51.100.11"}, {"X-Envoy-External-Address", "198.51.100.12"},
        {"X-Forwarded-Host", "evil.example"}, {"X-Forwarded-Proto", "gopher"}, {"X-Forwarded-Port", "198.51.100.13"},
        {"True_Client_IP", "198.51.100.14"},
    };

    private static TestOrigin origin;
    /** Trusts 192.0.2.0/24 only: the loopback clients are untrusted peers. Defaults otherwise. */
    private static TestServer untrusted;
    /** Trusts loopback: CF-Connecting-IP and the listed True-Client-IP pass; names with _ pass too. */
    private static TestServer trusted;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        String common = """
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /denied, respond: {status: 403, body: "denied, id ${request_id}\\n"}}
                      - {path: /, forward: app}
                """.formatted(origin.url());
        untrusted = TestServer.start(common + "client_ip: {trusted_proxies: [192.0.2.0/24]}\n");
        trusted = TestServer.start(common + """
                client_ip: {trusted_proxies: [127.0.0.0/8]}
                forwarding:
                  identity_headers_from_trusted_proxies: [True-Client-IP]
                  headers_with_underscores: pass
                  request_id: {propagate: true}
                """);
    }

    @AfterAll
    static void stop() {
        untrusted.close();
        trusted.close();
        origin.close();
    }

    private static String forgedHttp1() {
        StringBuilder b = new StringBuilder();
        for (String[] f : FORGED) {
            b.append(f[0]).append(": ").append(f[1]).append("\r\n");
        }
        return b.toString();
    }

    private static void addForged(Http2Headers h) {
        for (String[] f : FORGED) {
            h.add(f[0].toLowerCase(), f[1]); // HTTP/2 field names are lower case
        }
    }

    @Test
    void http1IdentityFieldsFromAnUntrustedPeerNeverReachTheUpstream() throws IOException {
        try (RawHttp c = new RawHttp(untrusted.port("public"))) {
            RawHttp.Response r = c.exchange("GET /who HTTP/1.1\r\nHost: app.test\r\n" + forgedHttp1()
                    + "X_Custom: underscore\r\nX-Custom: kept\r\n\r\n");
            String seen = r.body();
            assertThat(r.status()).isEqualTo(200);
            assertThat(seen).contains("x-forwarded-for: 127.0.0.1\n", "x-forwarded-proto: http\n", "x-forwarded-host: app.test\n",
                    "x-custom: kept\n");
            assertThat(seen).doesNotContain("198.51.100.", "evil.example", "gopher", "x-real-ip", "true-client-ip", "forwarded:",
                    "cf_connecting_ip", "x_real_ip", "underscore");
        }
    }

    @Test
    void http2IdentityFieldsFromAnUntrustedPeerNeverReachTheUpstream() throws Exception {
        try (H2Client c = H2Client.connect(untrusted.port("public"))) {
            Http2Headers h = H2Client.headers("GET", "app.test", "/who");
            addForged(h);
            h.add("x_custom", "underscore");
            h.add("x-custom", "kept");
            H2Client.Response r = c.send(h, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("x-forwarded-for: 127.0.0.1\n", "x-forwarded-proto: http\n", "x-custom: kept\n");
            assertThat(r.body()).doesNotContain("198.51.100.", "evil.example", "gopher", "x-real-ip", "true-client-ip",
                    "cf_connecting_ip", "x_real_ip", "underscore");
        }
    }

    @Test
    void http1FromATrustedProxyOnlyTheFieldsItSetsPass() throws IOException {
        try (RawHttp c = new RawHttp(trusted.port("public"))) {
            String seen = c.exchange("GET /who HTTP/1.1\r\nHost: app.test\r\nCF-Connecting-IP: 203.0.113.9\r\n"
                    + forgedHttp1().replace("True-Client-IP: 198.51.100.2", "True-Client-IP: 203.0.113.10")
                    + "X_Custom: underscore\r\n\r\n").body();
            assertThat(seen).contains("cf-connecting-ip: 203.0.113.9\n", "true-client-ip: 203.0.113.10\n",
                    "x-forwarded-for: 203.0.113.9\n", "x_custom: underscore\n");
            assertThat(seen).doesNotContain("198.51.100.", "evil.example", "gopher", "cf_connecting_ip", "true_client_ip");
        }
    }

    @Test
    void http2FromATrustedProxyOnlyTheFieldsItSetsPass() throws Exception {
        try (H2Client c = H2Client.connect(trusted.port("public"))) {
            Http2Headers h = H2Client.headers("GET", "app.test", "/who");
            h.add("cf-connecting-ip", "203.0.113.9");
            addForged(h);
            h.set("true-client-ip", "203.0.113.10");
            h.add("x_custom", "underscore");
            String seen = c.send(h, null, true).done.get(5, TimeUnit.SECONDS).body();
            assertThat(seen).contains("cf-connecting-ip: 203.0.113.9\n", "true-client-ip: 203.0.113.10\n",
                    "x-forwarded-for: 203.0.113.9\n", "x_custom: underscore\n");
            assertThat(seen).doesNotContain("198.51.100.", "evil.example", "gopher", "cf_connecting_ip", "true_client_ip");
        }
    }

    private static final Pattern UPSTREAM_ID = Pattern.compile("x-request-id: (\\S+)\n");

    private static String upstreamId(String echo) {
        Matcher m = UPSTREAM_ID.matcher(echo);
        assertThat(m.find()).as("the upstream got a request id in %s", echo).isTrue();
        return m.group(1);
    }

    @Test
    void http1ResponsesEchoTheRequestIdTheUpstreamGotAndGateAnswersTheirPagesId() throws IOException {
        try (RawHttp c = new RawHttp(untrusted.port("public"))) {
            RawHttp.Response forwarded = c.exchange("GET /id HTTP/1.1\r\nHost: app.test\r\nX-Request-Id: forged\r\n\r\n");
            assertThat(forwarded.header("x-request-id")).matches("[0-9a-f]{16}").isEqualTo(upstreamId(forwarded.body()));

            RawHttp.Response answered = c.exchange("GET /denied HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(answered.status()).isEqualTo(403);
            assertThat(answered.header("x-request-id")).matches("[0-9a-f]{16}");
            assertThat(answered.body()).isEqualTo("denied, id " + answered.header("x-request-id") + "\n");

            RawHttp.Response unknownHost = c.exchange("GET / HTTP/1.1\r\nHost: nobody.test\r\n\r\n");
            assertThat(unknownHost.header("x-request-id")).matches("[0-9a-f]{16}");
        }
        try (RawHttp c = new RawHttp(trusted.port("public"))) { // propagate: the client's usable id goes up and comes back
            RawHttp.Response forwarded = c.exchange("GET /id HTTP/1.1\r\nHost: app.test\r\nX-Request-Id: client-42\r\n\r\n");
            assertThat(upstreamId(forwarded.body())).isEqualTo("client-42");
            assertThat(forwarded.header("x-request-id")).isEqualTo("client-42");
        }
    }

    @Test
    void http2ResponsesEchoTheRequestIdTheUpstreamGotAndGateAnswersTheirPagesId() throws Exception {
        try (H2Client c = H2Client.connect(untrusted.port("public"))) {
            H2Client.Response forwarded = c.get("GET", "app.test", "/id");
            assertThat(forwarded.header("x-request-id")).matches("[0-9a-f]{16}").isEqualTo(upstreamId(forwarded.body()));

            H2Client.Response answered = c.get("GET", "app.test", "/denied");
            assertThat(answered.status()).isEqualTo(403);
            assertThat(answered.header("x-request-id")).matches("[0-9a-f]{16}");
            assertThat(answered.body()).isEqualTo("denied, id " + answered.header("x-request-id") + "\n");
        }
        try (H2Client c = H2Client.connect(trusted.port("public"))) {
            Http2Headers h = H2Client.headers("GET", "app.test", "/id");
            h.add("x-request-id", "client-43");
            H2Client.Response forwarded = c.send(h, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(upstreamId(forwarded.body())).isEqualTo("client-43");
            assertThat(forwarded.header("x-request-id")).isEqualTo("client-43");
        }
    }

    @Test
    void withEchoOffNoRequestIdGoesBackOnEitherProtocol() throws Exception {
        try (TestServer quiet = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                forwarding: {request_id: {echo: false}}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /denied, respond: {status: 403}}
                      - {path: /, forward: app}
                """.formatted(origin.url()))) {
            try (RawHttp c = new RawHttp(quiet.port("public"))) {
                RawHttp.Response forwarded = c.exchange("GET /id HTTP/1.1\r\nHost: app.test\r\n\r\n");
                assertThat(upstreamId(forwarded.body())).matches("[0-9a-f]{16}");
                assertThat(forwarded.header("x-request-id")).isNull();
                assertThat(c.exchange("GET /denied HTTP/1.1\r\nHost: app.test\r\n\r\n").header("x-request-id")).isNull();
            }
            try (H2Client c = H2Client.connect(quiet.port("public"))) {
                assertThat(c.get("GET", "app.test", "/id").header("x-request-id")).isNull();
                assertThat(c.get("GET", "app.test", "/denied").header("x-request-id")).isNull();
            }
        }
    }

    @Test
    void theUpstreamsOwnRequestIdIsReplacedByTheOneItGot() throws Exception {
        try (RawHttp c = new RawHttp(untrusted.port("public"))) {
            assertThat(c.exchange("GET /with-id HTTP/1.1\r\nHost: app.test\r\n\r\n").header("x-request-id")).matches("[0-9a-f]{16}");
        }
        try (H2Client c = H2Client.connect(untrusted.port("public"))) {
            assertThat(c.get("GET", "app.test", "/with-id").header("x-request-id")).matches("[0-9a-f]{16}");
        }
    }

    @Test
    void withForwardOffNoRequestIdGoesUpstreamAndOnlyTheGatesAnswersCarryOne() throws Exception {
        try (TestServer off = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                forwarding: {request_id: {forward: false}}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /denied, respond: {status: 403, body: "denied, id ${request_id}\\n"}}
                      - {path: /, forward: app}
                """.formatted(origin.url()))) {
            try (RawHttp c = new RawHttp(off.port("public"))) {
                RawHttp.Response forwarded = c.exchange("GET /id HTTP/1.1\r\nHost: app.test\r\n\r\n");
                assertThat(forwarded.body()).contains("host: app.test\n").doesNotContain("x-request-id");
                assertThat(forwarded.header("x-request-id")).isNull();
                // The client's own field and the upstream's answer field pass untouched.
                forwarded = c.exchange("GET /id HTTP/1.1\r\nHost: app.test\r\nX-Request-Id: client-7\r\n\r\n");
                assertThat(upstreamId(forwarded.body())).isEqualTo("client-7");
                assertThat(c.exchange("GET /with-id HTTP/1.1\r\nHost: app.test\r\n\r\n").header("x-request-id")).isEqualTo("origin-1");
                RawHttp.Response answered = c.exchange("GET /denied HTTP/1.1\r\nHost: app.test\r\n\r\n");
                assertThat(answered.header("x-request-id")).matches("[0-9a-f]{16}");
                assertThat(answered.body()).isEqualTo("denied, id " + answered.header("x-request-id") + "\n");
            }
            try (H2Client c = H2Client.connect(off.port("public"))) {
                H2Client.Response forwarded = c.get("GET", "app.test", "/id");
                assertThat(forwarded.body()).contains("host: app.test\n").doesNotContain("x-request-id");
                assertThat(forwarded.header("x-request-id")).isNull();
                Http2Headers h = H2Client.headers("GET", "app.test", "/id");
                h.add("x-request-id", "client-8");
                assertThat(upstreamId(c.send(h, null, true).done.get(5, TimeUnit.SECONDS).body())).isEqualTo("client-8");
                assertThat(c.get("GET", "app.test", "/with-id").header("x-request-id")).isEqualTo("origin-1");
                H2Client.Response answered = c.get("GET", "app.test", "/denied");
                assertThat(answered.header("x-request-id")).matches("[0-9a-f]{16}");
                assertThat(answered.body()).isEqualTo("denied, id " + answered.header("x-request-id") + "\n");
            }
        }
    }
}
