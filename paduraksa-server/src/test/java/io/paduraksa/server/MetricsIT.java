package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** /metrics over real requests: the text parses as Prometheus 0.0.4 and the counters move as requests are answered. */
class MetricsIT {
    static final String YAML = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
              - {name: admin, address: "127.0.0.1:0", admin: true}
            policies:
              bots: {type: user_agent, deny: [sqlmap]}
            hosts:
              - names: [a.test]
                policies: [bots]
                routes:
                  - {path: /old, redirect: {location: "https://a.test/new", status: 301}}
                  - {path: /, respond: {status: 200, body: "ok"}}
            """;

    @Test
    void countersParseAndIncreaseWithRealRequests() throws Exception {
        try (TestServer server = TestServer.start(YAML);
             RawHttp admin = new RawHttp(server.port("admin"));
             RawHttp client = new RawHttp(server.port("public"))) {
            Map<String, Double> before = Exposition.parse(scrape(admin)).samples;

            assertThat(client.exchange(get("a.test", "/", "")).status()).isEqualTo(200);
            assertThat(client.exchange(get("a.test", "/page", "")).status()).isEqualTo(200);
            assertThat(client.exchange(get("a.test", "/old", "")).status()).isEqualTo(301);
            assertThat(client.exchange(get("a.test", "/", "User-Agent: sqlmap/1.7\r\n")).status()).isEqualTo(403);
            assertThat(client.exchange(get("unknown.test", "/", "")).status()).isBetween(400, 499);
            try (RawHttp refused = new RawHttp(server.port("public"))) {
                assertThat(refused.exchange("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n").status()).isEqualTo(501);
            }

            Exposition after = Exposition.parse(scrape(admin));
            Map<String, Double> now = after.samples;
            assertThat(after.types).containsEntry("paduraksa_requests_total", "counter")
                    .containsEntry("paduraksa_open_connections", "gauge")
                    .containsEntry("paduraksa_upstream_response_seconds", "histogram")
                    .containsEntry("paduraksa_jvm_gc_collections_total", "counter");
            assertThat(delta(before, now, "paduraksa_requests_total{listener=\"public\",class=\"2xx\"}")).isEqualTo(2);
            assertThat(delta(before, now, "paduraksa_requests_total{listener=\"public\",class=\"3xx\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_requests_total{listener=\"public\",class=\"4xx\"}")).isEqualTo(2);
            assertThat(delta(before, now, "paduraksa_requests_total{listener=\"public\",class=\"5xx\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_gate_decisions_total{decision=\"redirect\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_gate_decisions_total{decision=\"refused\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_gate_decisions_total{decision=\"respond\"}")).isEqualTo(4);
            assertThat(delta(before, now, "paduraksa_host_requests_total{host=\"a.test\"}")).isEqualTo(4);
            assertThat(delta(before, now, "paduraksa_host_requests_total{host=\"(unknown)\"}")).isEqualTo(1);
            assertThat(delta(before, now, "paduraksa_route_requests_total{host=\"a.test\",route=\"/\"}")).isEqualTo(3);
            assertThat(delta(before, now, "paduraksa_policy_hits_total{policy=\"bots\"}")).isEqualTo(1);
            assertThat(now.get("paduraksa_open_connections{listener=\"public\"}")).isGreaterThanOrEqualTo(1);
            assertThat(now.get("paduraksa_jvm_memory_used_bytes{area=\"heap\"}")).isPositive();
            assertThat(now).doesNotContainKey("paduraksa_requests_total{listener=\"admin\",class=\"2xx\"}");
        }
    }

    @Test
    void openHttp2StreamsIsAGauge() throws Exception {
        try (TestServer server = TestServer.start(YAML);
             RawHttp admin = new RawHttp(server.port("admin"));
             ShutdownIT.H2 h2 = new ShutdownIT.H2(server.port("public"))) {
            // A zero stream window holds the answer's DATA back, so the stream stays open.
            h2.handshake(0);
            h2.headers(1, true, ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
            h2.readUntil(f -> f.stream() == 1 && f.type() == ShutdownIT.H2.HEADERS);
            Map<String, Double> open = Exposition.parse(scrape(admin)).samples;
            assertThat(open.get("paduraksa_open_http2_streams")).isEqualTo(1);
        }
    }

    static String scrape(RawHttp admin) throws IOException {
        RawHttp.Response r = admin.exchange("GET /metrics HTTP/1.1\r\nHost: admin\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
        return r.body();
    }

    static String get(String host, String path, String extra) {
        return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "\r\n";
    }

    static double delta(Map<String, Double> before, Map<String, Double> after, String key) {
        assertThat(after).as("sample %s", key).containsKey(key);
        return after.get(key) - before.getOrDefault(key, 0.0);
    }

    /**
     * A strict reader of the text format 0.0.4: HELP then TYPE once per family, before its samples;
     * sample names belong to the family (histograms: _bucket with le, _sum, _count); label values
     * quoted with only \\, \" and \n escapes; values are numbers. Keys are the sample lines' text
     * before the value.
     */
    static final class Exposition {
        private static final Pattern HELP = Pattern.compile("# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)");
        private static final Pattern TYPE = Pattern.compile("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)");
        private static final Pattern SAMPLE = Pattern.compile(
                "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*\\})? (\\S+)");
        final Map<String, String> types = new LinkedHashMap<>();
        final Map<String, Double> samples = new HashMap<>();

        static Exposition parse(String text) {
            assertThat(text).endsWith("\n");
            Exposition e = new Exposition();
            Set<String> helped = new HashSet<>();
            String family = null;
            for (String line : text.split("\n")) {
                Matcher m;
                if ((m = HELP.matcher(line)).matches()) {
                    assertThat(helped.add(m.group(1))).as("one HELP for %s", m.group(1)).isTrue();
                    family = m.group(1);
                } else if ((m = TYPE.matcher(line)).matches()) {
                    assertThat(m.group(1)).as("TYPE follows its HELP").isEqualTo(family);
                    assertThat(e.types.put(m.group(1), m.group(2))).as("one TYPE for %s", family).isNull();
                } else {
                    assertThat(m = SAMPLE.matcher(line)).as("sample line: %s", line).matches();
                    String name = m.group(1);
                    assertThat(family).as("family of %s", line).isNotNull();
                    if ("histogram".equals(e.types.get(family))) {
                        assertThat(name).isIn(family + "_bucket", family + "_sum", family + "_count");
                        if (name.endsWith("_bucket")) {
                            assertThat(m.group(2)).contains("le=\"");
                        }
                    } else {
                        assertThat(name).isEqualTo(family);
                    }
                    String key = line.substring(0, line.lastIndexOf(' '));
                    double value = "+Inf".equals(m.group(3)) ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(3));
                    assertThat(e.samples.put(key, value)).as("one sample %s", key).isNull();
                    if ("counter".equals(e.types.get(family))) {
                        assertThat(value).as(key).isGreaterThanOrEqualTo(0);
                    }
                }
            }
            return e;
        }
    }
}
