package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code attacks} policy's body phase in the real server: form and JSON bodies over HTTP/1.1
 * (Content-Length and chunked, sent in pieces) and h2c (several DATA frames) are inspected as they
 * arrive; an attack is answered 403 by the gate, a benign body is forwarded whole (the origin
 * echoes its length) or answered by the gate's own route; the size and time bounds hold; a denied
 * request's access-log line names the rules, the part and an escaped excerpt.
 */
class AttacksBodyIT {
    static TestOrigin origin;
    static TestServer server;
    @TempDir
    static Path dir;
    static Path log;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        log = dir.resolve("access.log");
        server = TestServer.start("""
                access_log: {enabled: true, path: "%s", format: json}
                listeners:
                  - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                policies:
                  waf:
                    type: attacks
                    inspect: {body: {max: 64KiB}}
                  strict:
                    type: attacks
                    inspect: {body: {max: 1KiB, on_oversize: deny, timeout: 1s}}
                hosts:
                  - names: [shop.test]
                    policies: [waf]
                    routes: [{path: /, forward: app}]
                  - names: [gate.test]
                    policies: [waf]
                    routes: [{path: /, respond: {status: 200, body: "answered\\n"}}]
                  - names: [strict.test]
                    policies: [strict]
                    routes: [{path: /, forward: app}]
                """.formatted(log, origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    static String post(String host, String type, String body) {
        return "POST /comment HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: " + type + "\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    @ParameterizedTest(name = "{0} {1} -> {3}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            shop.test | application/x-www-form-urlencoded | name=Siobh%C3%A1n+O%27Brien&comment=Great+shoes%2C+would+buy+again | 200
            shop.test | application/x-www-form-urlencoded | name=ann&comment=1%27+union+select+password+from+users--       | 403
            shop.test | application/x-www-form-urlencoded | comment=%3Cscript%3Ealert(document.cookie)%3C/script%3E          | 403
            shop.test | application/json                  | {"name":"D'Souza","items":[{"sku":"A-1","qty":2}],"gift":false}  | 200
            shop.test | application/json                  | {"comment":"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"}  | 403
            shop.test | application/json                  | {"q": 1 union select 1}                                          | 403
            shop.test | multipart/form-data; boundary=x   | 1 union select 1                                                 | 403
            shop.test | application/xml                   | <order><item sku="A-1">Great shoes, would buy again</item></order> | 200
            shop.test | application/xml                   | <order><item sku="1' union select password from users--"/></order> | 403
            shop.test | text/xml                          | <!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/hostname">]><r>&x;</r> | 403
            gate.test | application/x-www-form-urlencoded | q=red+running+shoes                                              | 200
            gate.test | application/x-www-form-urlencoded | file=../../../../etc/passwd                                      | 403
            """)
    void http1BodiesAreInspected(String host, String type, String body, int status) throws Exception {
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            RawHttp.Response r = c.exchange(post(host, type, body));

            assertThat(r.status()).as(r.toString()).isEqualTo(status);
            if (status == 200 && host.equals("shop.test")) {
                assertThat(r.body()).contains("origin: origin").contains("body-bytes: " + body.getBytes(StandardCharsets.UTF_8).length);
            }
        }
    }

    /** A chunked body whose attack and escapes are cut by the chunks, sent piece by piece with pauses. */
    @Test
    void aChunkedBodyCutMidEscapeIsInspectedAcrossChunks() throws Exception {
        String[] pieces = {"name=ann&comment=1%2", "7+un", "ion+sel", "ect+password+from+users--"};
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send("POST /comment HTTP/1.1\r\nHost: shop.test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n");
            for (String p : pieces) {
                Thread.sleep(50);
                c.send(Integer.toHexString(p.length()) + "\r\n" + p + "\r\n");
            }
            c.send("0\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(403);
        }
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            c.send("POST /comment HTTP/1.1\r\nHost: shop.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
            String body = "{\"comment\":\"caf\\u00e9 \\\"latte\\\"\",\"n\":[1,2,3]}";
            for (int i = 0; i < body.length(); i += 5) {
                String p = body.substring(i, Math.min(body.length(), i + 5));
                c.send(Integer.toHexString(p.length()) + "\r\n" + p + "\r\n");
            }
            c.send("0\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.body()).contains("body-bytes: " + body.length());
        }
    }

    @Test
    void theSizeAndTimeBoundsHold() throws Exception {
        String big = "a=" + "x".repeat(2000);
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            assertThat(c.exchange(post("strict.test", "application/x-www-form-urlencoded", big)).status())
                    .as("over 1KiB with on_oversize: deny").isEqualTo(403);
        }
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            assertThat(c.exchange(post("shop.test", "application/x-www-form-urlencoded", big)).status())
                    .as("under 64KiB").isEqualTo(200);
        }
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            long start = System.nanoTime();
            c.send("POST /comment HTTP/1.1\r\nHost: strict.test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 100\r\n\r\nq=only+a+part");
            RawHttp.Response r = c.read();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(r.status()).as("not whole within timeout 1s").isEqualTo(403);
            assertThat(millis).as("answered after the 1 s timeout, within a sweep or two").isBetween(900L, 3_000L);
        }
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            application/x-www-form-urlencoded | name=ann&comment=Great+shoes              | 200
            application/x-www-form-urlencoded | name=ann&comment=1%27+union+select+password+from+users-- | 403
            application/json                  | {"comment":"\\u003csvg/onload=alert(1)\\u003e"} | 403
            application/json                  | {"comment":"nice","n":[1,2]}              | 200
            """)
    void h2cBodiesAreInspectedOverSeveralDataFrames(String type, String body, int status) throws Exception {
        Http2Headers headers = H2Client.headers("POST", "shop.test", "/comment");
        headers.add("content-type", type);
        try (H2Client c = H2Client.connect(server.port("mixed"))) {
            H2Client.Stream s = c.send(headers, body.substring(0, 7), false);
            for (int i = 7; i < body.length(); i += 6) {
                c.sendData(s, body.substring(i, Math.min(body.length(), i + 6)), false);
            }
            c.sendData(s, "", true);
            H2Client.Response r = s.done.get(5, TimeUnit.SECONDS);

            assertThat(r.status()).as(r.toString()).isEqualTo(status);
            if (status == 200) {
                assertThat(r.body()).contains("origin: origin").contains("body-bytes: " + body.length());
            }
        }
    }

    /** A client that goes away while its body is inspected (a close, a stream reset) leaves nothing behind. */
    @Test
    void aClientThatLeavesMidBodyLeavesNothingBehind() throws Exception {
        for (int i = 0; i < 20; i++) {
            try (RawHttp c = new RawHttp(server.port("mixed"))) {
                c.send("POST /comment HTTP/1.1\r\nHost: shop.test\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
                        + "{\"comment\":\"half a str");
            }
        }
        Http2Headers headers = H2Client.headers("POST", "shop.test", "/comment");
        headers.add("content-type", "application/x-www-form-urlencoded");
        try (H2Client c = H2Client.connect(server.port("mixed"))) {
            for (int i = 0; i < 20; i++) {
                H2Client.Stream s = c.send(headers, "name=ann&comment=half", false);
                c.cancel(s);
            }
            H2Client.Stream s = c.send(headers, "name=ann&comment=whole", true);
            H2Client.Response r = s.done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).as("the connection still serves after 20 resets mid-body").isEqualTo(200);
        }
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            assertThat(c.exchange(post("shop.test", "application/json", "{\"comment\":\"fine\"}")).status()).isEqualTo(200);
        }
    }

    @Test
    void h2cHeadersWithoutBodyDoNotWait() throws Exception {
        Http2Headers headers = H2Client.headers("POST", "shop.test", "/comment");
        headers.add("content-type", "application/json");
        try (H2Client c = H2Client.connect(server.port("mixed"))) {
            H2Client.Response r = c.send(headers, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
        }
    }

    @Test
    void aDeniedBodysLineNamesTheRulesThePartAndAnEscapedExcerpt() throws Exception {
        String attack = "name=ann&comment=%22%0D%0A1%27+union+select+password+from+users--";
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            assertThat(c.exchange(post("gate.test", "application/x-www-form-urlencoded", attack)).status()).isEqualTo(403);
        }
        try (RawHttp c = new RawHttp(server.port("mixed"))) {
            assertThat(c.exchange(post("gate.test", "application/x-www-form-urlencoded", "name=ann&comment=clean")).status())
                    .isEqualTo(200);
        }
        JsonNode denied = awaitLine("403");
        String matches = denied.get("matches").asText();
        assertThat(matches).as(matches).containsPattern("942\\d{3} body:comment \"").contains("\\\"");
        assertThat(matches).as("no raw control byte or quote survives").doesNotContain("\r").doesNotContain("\n")
                .doesNotContain("\"1'");
        assertThat(denied.get("policy").asText()).isEqualTo("waf");
        JsonNode clean = awaitLine("200");
        assertThat(clean.has("matches")).as(clean.toString()).isFalse();
    }

    /** The newest access-log line of gate.test with this status (waits for the writer thread). */
    static JsonNode awaitLine(String status) throws Exception {
        ObjectMapper json = new ObjectMapper();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                java.util.List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                for (int i = lines.size() - 1; i >= 0; i--) {
                    JsonNode n = json.readTree(lines.get(i));
                    if (n.get("host").asText().equals("gate.test") && n.get("status").asText().equals(status)) {
                        return n;
                    }
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no gate.test line with status " + status);
    }
}
