package io.paduraksa.server;

import static io.paduraksa.server.MetricsIT.delta;
import static io.paduraksa.server.MetricsIT.get;
import static io.paduraksa.server.MetricsIT.scrape;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metrics of forwarded requests, W3C trace context and the access log, over real requests to an
 * in-test origin: forwarded requests are counted once with the client's status, per-destination
 * counters and the latency histogram move, the upstream sees a traceparent continuing the client's
 * trace (or a new one), and every request leaves one access-log line with the same trace id.
 */
class InstrumentationIT {
    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String PARENT = "00f067aa0ba902b7";
    static final Pattern TRACEPARENT = Pattern.compile("traceparent: 00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    static TestOrigin origin;
    static TestServer server;
    static Path log;

    static String yaml(Path logFile, String format) {
        return """
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                  - {name: admin, address: "127.0.0.1:0", admin: true}
                clusters:
                  app: {destinations: [{url: "%s"}], retry: {attempts: 0}}
                  dead: {destinations: [{url: "http://127.0.0.1:1"}], retry: {attempts: 0}}
                access_log: {enabled: true, path: "%s", format: %s}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /answer, respond: {status: 200, body: "ok"}}
                      - {path: /dead, forward: dead}
                      - {path: /, forward: app}
                """.formatted(origin.url(), logFile, format);
    }

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        log = dir.resolve("logs/access.log");
        server = TestServer.start(yaml(log, "json"));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        origin.close();
    }

    @Test
    void forwardedRequestsAreCountedPerListenerAndDestination() throws Exception {
        String destination = origin.url().endsWith("/") ? origin.url().substring(0, origin.url().length() - 1) : origin.url();
        String labels = "cluster=\"app\",destination=\"" + destinationLabel() + "\"";
        try (RawHttp admin = new RawHttp(server.port("admin")); RawHttp client = new RawHttp(server.port("public"))) {
            Map<String, Double> before = MetricsIT.Exposition.parse(scrape(admin)).samples;
            assertThat(client.exchange(get("a.test", "/fixed/1", "")).status()).isEqualTo(200);
            assertThat(client.exchange(get("a.test", "/status/404", "")).status()).isEqualTo(404);
            try (RawHttp bad = new RawHttp(server.port("public"))) {
                assertThat(bad.exchange(get("a.test", "/bad-status", "")).status()).isEqualTo(502);
            }
            try (RawHttp dead = new RawHttp(server.port("public"))) {
                assertThat(dead.exchange(get("a.test", "/dead", "")).status()).isEqualTo(502);
            }
            Map<String, Double> now = MetricsIT.Exposition.parse(scrape(admin)).samples;
            assertThat(delta(before, now, "paduraksa_gate_decisions_total{decision=\"forward\"}")).isEqualTo(4);
            assertThat(delta(before, now, "paduraksa_requests_total{listener=\"public\",class=\"2xx\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_requests_total{listener=\"public\",class=\"4xx\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_requests_total{listener=\"public\",class=\"5xx\"}")).isEqualTo(2);
            assertThat(delta(before, now, "paduraksa_upstream_requests_total{" + labels + "}")).isEqualTo(3);
            assertThat(delta(before, now, "paduraksa_upstream_responses_total{" + labels + ",class=\"2xx\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_upstream_responses_total{" + labels + ",class=\"4xx\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_upstream_errors_total{" + labels + ",kind=\"invalid_response\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_upstream_response_seconds_count{" + labels + "}")).isEqualTo(2);
            assertThat(delta(before, now, "paduraksa_upstream_response_seconds_bucket{" + labels + ",le=\"+Inf\"}")).isEqualTo(2);
            assertThat(delta(before, now,
                    "paduraksa_upstream_errors_total{cluster=\"dead\",destination=\"http://127.0.0.1:1\",kind=\"connect\"}")).isEqualTo(1);
            // A refused connection was a request tried: requests_total = responses + errors.
            assertThat(delta(before, now,
                    "paduraksa_upstream_requests_total{cluster=\"dead\",destination=\"http://127.0.0.1:1\"}")).isEqualTo(1);
            assertThat(now.get("paduraksa_upstream_healthy{" + labels + "}")).isEqualTo(1);
            // Present, but its value depends on the event loops: when the second client lands on the first
            // one's loop, /bad-status reuses the pooled connection and closes it, leaving 0 open.
            assertThat(now).containsKey("paduraksa_upstream_connections{" + labels + ",state=\"open\"}");
            assertThat(now.get("paduraksa_upstream_in_flight{" + labels + "}")).isZero();
            assertThat(now).containsKey("paduraksa_access_log_dropped_total");
            assertThat(destination).startsWith("http://127.0.0.1:");
        }
    }

    @Test
    void aValidTraceparentIsContinuedWithANewParentAndItsTracestate() throws Exception {
        try (RawHttp client = new RawHttp(server.port("public"))) {
            String echo = client.exchange(get("a.test", "/echo/continued", "traceparent: 00-" + TRACE + "-" + PARENT + "-01\r\n"
                    + "tracestate: vendor=abc,other=1\r\n")).body();
            Matcher m = TRACEPARENT.matcher(echo);
            assertThat(m.find()).as(echo).isTrue();
            assertThat(m.group(1)).isEqualTo(TRACE);
            assertThat(m.group(2)).isNotEqualTo(PARENT);
            assertThat(m.group(3)).isEqualTo("01");
            assertThat(echo).contains("tracestate: vendor=abc,other=1\n").containsOnlyOnce("traceparent:");
            JsonNode line = lineFor("/echo/continued");
            assertThat(line.get("trace_id").asText()).isEqualTo(TRACE);
            assertThat(line.get("request_id").asText()).isEqualTo(m.group(2)); // our span id is the request id
        }
    }

    @Test
    void anAbsentOrInvalidTraceparentStartsANewTrace() throws Exception {
        try (RawHttp client = new RawHttp(server.port("public"))) {
            String absent = client.exchange(get("a.test", "/echo/absent", "")).body();
            String invalid = client.exchange(get("a.test", "/echo/invalid", "traceparent: 00-" + TRACE.toUpperCase() + "-" + PARENT
                    + "-01\r\ntracestate: vendor=abc\r\n")).body();
            Matcher a = TRACEPARENT.matcher(absent);
            Matcher i = TRACEPARENT.matcher(invalid);
            assertThat(a.find()).as(absent).isTrue();
            assertThat(i.find()).as(invalid).isTrue();
            assertThat(a.group(1)).isNotEqualTo(i.group(1)).isNotEqualTo("0".repeat(32));
            assertThat(i.group(1)).isNotEqualToIgnoringCase(TRACE);
            assertThat(a.group(3)).isEqualTo("00"); // not sampled unless configured
            assertThat(invalid).doesNotContain("tracestate"); // dropped with the invalid traceparent
            assertThat(lineFor("/echo/absent").get("trace_id").asText()).isEqualTo(a.group(1));
        }
    }

    @Test
    void everyRequestLeavesOneJsonLine() throws Exception {
        try (RawHttp client = new RawHttp(server.port("public"))) {
            client.exchange(get("a.test", "/fixed/json?token=secret", "User-Agent: probe/1.0 \"quoted\"\r\n"));
            client.exchange(get("a.test", "/answer/x", ""));
            client.exchange(get("a.test", "/answer/traced", "traceparent: 00-" + TRACE + "-" + PARENT + "-01\r\n"));
        }
        try (RawHttp refused = new RawHttp(server.port("public"))) {
            refused.exchange("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n");
        }
        try (H2Client h2 = H2Client.connect(server.port("public"))) {
            assertThat(h2.get("GET", "a.test", "/fixed/h2").status()).isEqualTo(200);
        }
        JsonNode forwarded = lineFor("/fixed/json");
        assertThat(forwarded.get("status").asInt()).isEqualTo(200);
        assertThat(forwarded.get("bytes_sent").asLong()).isEqualTo(16);
        assertThat(forwarded.get("decision").asText()).isEqualTo("forward");
        assertThat(forwarded.get("cluster").asText()).isEqualTo("app");
        assertThat(forwarded.get("upstream").asText()).isEqualTo(destinationLabel());
        assertThat(forwarded.get("upstream_ms").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(forwarded.get("upstream_error").isNull()).isTrue();
        assertThat(forwarded.get("duration_ms").asDouble()).isGreaterThanOrEqualTo(forwarded.get("upstream_ms").asDouble());
        assertThat(forwarded.get("query_length").asInt()).isEqualTo("token=secret".length());
        assertThat(forwarded.has("query")).isFalse();
        assertThat(forwarded.get("user_agent").asText()).isEqualTo("probe/1.0 \"quoted\"");
        assertThat(forwarded.get("client_ip").asText()).isEqualTo("127.0.0.1");
        assertThat(forwarded.has("peer_ip")).isFalse();
        assertThat(forwarded.get("protocol").asText()).isEqualTo("HTTP/1.1");
        assertThat(forwarded.get("listener").asText()).isEqualTo("public");
        assertThat(forwarded.get("host").asText()).isEqualTo("a.test");
        assertThat(forwarded.get("method").asText()).isEqualTo("GET");
        assertThat(forwarded.get("request_id").asText()).matches("[0-9a-f]{16}");
        assertThat(forwarded.get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");

        JsonNode answered = lineFor("/answer/x");
        assertThat(answered.get("decision").asText()).isEqualTo("respond");
        assertThat(answered.get("bytes_sent").asLong()).isEqualTo(2);
        assertThat(answered.get("upstream").isNull()).isTrue();
        assertThat(answered.get("trace_id").isNull()).isTrue();
        // Not forwarded, so no traceparent was written: the log still names the client's trace.
        assertThat(lineFor("/answer/traced").get("trace_id").asText()).isEqualTo(TRACE);

        JsonNode refused = waitForLine(n -> n.get("decision").asText().equals("refused"));
        assertThat(refused.get("status").asInt()).isEqualTo(501);
        assertThat(refused.get("method").asText()).isEqualTo("CONNECT");

        JsonNode h2 = lineFor("/fixed/h2");
        assertThat(h2.get("protocol").asText()).isEqualTo("HTTP/2.0");
        assertThat(h2.get("status").asInt()).isEqualTo(200);
        assertThat(h2.get("bytes_sent").asLong()).isEqualTo(16);
    }

    @Test
    void aFailedForwardIsLoggedWithTheUpstreamErrorTheMetricCounts() throws Exception {
        try (RawHttp client = new RawHttp(server.port("public"))) {
            assertThat(client.exchange(get("a.test", "/dead/h1", "")).status()).isEqualTo(502);
        }
        try (H2Client h2 = H2Client.connect(server.port("public"))) {
            assertThat(h2.get("GET", "a.test", "/dead/h2").status()).isEqualTo(502);
            assertThat(h2.get("GET", "a.test", "/bad-status").status()).isEqualTo(502);
        }
        assertThat(lineFor("/dead/h1").get("upstream_error").asText()).isEqualTo("connect");
        JsonNode h2 = lineFor("/dead/h2");
        assertThat(h2.get("protocol").asText()).isEqualTo("HTTP/2.0");
        assertThat(h2.get("status").asInt()).isEqualTo(502);
        assertThat(h2.get("upstream_error").asText()).isEqualTo("connect");
        JsonNode invalid = waitForLine(n -> n.get("path").asText().equals("/bad-status") && n.get("protocol").asText().equals("HTTP/2.0"));
        assertThat(invalid.get("upstream_error").asText()).isEqualTo("invalid_response");
    }

    @Test
    void aReloadReopensTheFileForLogrotate() throws Exception {
        try (RawHttp client = new RawHttp(server.port("public"))) {
            client.exchange(get("a.test", "/answer/before-rotate", ""));
            lineFor("/answer/before-rotate");
            Path rotated = dir.resolve("logs/access.log.1");
            Files.move(log, rotated);
            assertThat(server.reload(yaml(log, "json"))).isTrue();
            waitUntil(() -> Files.exists(log));
            client.exchange(get("a.test", "/answer/after-rotate", ""));
            lineFor("/answer/after-rotate");
            assertThat(Files.readString(rotated)).contains("/answer/before-rotate").doesNotContain("/answer/after-rotate");
        }
    }

    @Test
    void theCombinedFormatIsApacheCompatible() throws Exception {
        Path combined = dir.resolve("combined.log");
        try (TestServer s = TestServer.start(yaml(combined, "combined"));
             RawHttp client = new RawHttp(s.port("public"))) {
            client.exchange(get("a.test", "/answer/c?q=1", "Referer: https://r.test/\r\nUser-Agent: agent/2\r\n"));
            waitUntil(() -> Files.exists(combined) && Files.readString(combined).contains("agent/2"));
            String line = Files.readString(combined).strip();
            assertThat(line).matches("127\\.0\\.0\\.1 - - \\[\\d\\d/[A-Z][a-z]{2}/\\d{4}:\\d\\d:\\d\\d:\\d\\d \\+0000\\] "
                    + "\"GET /answer/c HTTP/1\\.1\" 200 2 \"https://r\\.test/\" \"agent/2\"");
        }
    }

    // ---- helpers ----

    private static String destinationLabel() {
        String u = origin.url();
        return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
    }

    static JsonNode lineFor(String path) throws Exception {
        return waitForLine(n -> n.get("path").asText().equals(path));
    }

    interface LinePredicate {
        boolean test(JsonNode line);
    }

    static JsonNode waitForLine(LinePredicate p) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (JsonNode n : lines()) {
                if (p.test(n)) {
                    return n;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no such access-log line in " + lines());
    }

    static List<JsonNode> lines() throws IOException {
        List<JsonNode> out = new ArrayList<>();
        if (!Files.exists(log)) {
            return out;
        }
        for (String l : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (!l.isBlank()) {
                out.add(JSON.readTree(l));
            }
        }
        return out;
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    static void waitUntil(Condition c) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!c.holds()) {
            assertThat(System.nanoTime()).as("condition within 5 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
