package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The admin listener: liveness, readiness, Prometheus metrics and the serving configuration's status. */
class AdminIT {
    static final String YAML = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
              - {name: admin, address: "127.0.0.1:0", admin: true}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /, respond: {status: 200, body: "%s"}}
            """;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void healthAndReadinessAnswer200AndUnknownPaths404() throws Exception {
        try (TestServer server = TestServer.start(YAML.formatted("v1")); RawHttp admin = new RawHttp(server.port("admin"))) {
            RawHttp.Response health = admin.exchange(get("/healthz"));
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.body()).isEqualTo("ok\n");
            assertThat(health.header("cache-control")).isEqualTo("no-store");
            assertThat(admin.exchange(get("/ready")).status()).isEqualTo(200);
            assertThat(admin.exchange(get("/ready?verbose")).status()).isEqualTo(200);
            assertThat(admin.exchange(get("/nope")).status()).isEqualTo(404);
        }
    }

    @Test
    void adminPathsAreNotServedOnThePublicListener() throws Exception {
        try (TestServer server = TestServer.start(YAML.formatted("v1")); RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET /metrics HTTP/1.1\r\nHost: a.test\r\n\r\n");
            assertThat(r.body()).isEqualTo("v1");
        }
    }

    @Test
    void metricsCountAllocatedBytesAndShowTheGeneration() throws Exception {
        try (TestServer server = TestServer.start(YAML.formatted("v1")); RawHttp admin = new RawHttp(server.port("admin"))) {
            RawHttp.Response first = admin.exchange(get("/metrics"));
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.header("content-type")).startsWith("text/plain; version=0.0.4");
            assertThat(first.body()).contains("# TYPE paduraksa_jvm_allocated_bytes_total counter\n")
                    .contains("# TYPE paduraksa_config_generation gauge\n");
            long allocated = metric(first.body(), "paduraksa_jvm_allocated_bytes_total");
            long generation = server.server().store().current().generation();
            assertThat(metric(first.body(), "paduraksa_config_generation")).isEqualTo(generation);
            assertThat(metric(first.body(), "paduraksa_hosts")).isEqualTo(1);

            byte[][] garbage = new byte[64][];
            for (int i = 0; i < garbage.length; i++) {
                garbage[i] = new byte[16 * 1024]; // at least 1 MiB more allocated before the next scrape
            }
            assertThat(garbage[63]).hasSize(16 * 1024);
            assertThat(server.reload(YAML.formatted("v2"))).isTrue();
            String second = admin.exchange(get("/metrics")).body();
            assertThat(metric(second, "paduraksa_jvm_allocated_bytes_total")).isGreaterThan(allocated + 1024 * 1024);
            assertThat(metric(second, "paduraksa_config_generation")).isEqualTo(generation + 1);
            assertThat(metric(second, "paduraksa_reloads_total")).isEqualTo(1);
            assertThat(metric(second, "paduraksa_reload_failures_total")).isZero();
        }
    }

    @Test
    void configNamesTheFileAndItsSha256AndTheLastReloadError() throws Exception {
        try (TestServer server = TestServer.start(YAML.formatted("v1")); RawHttp admin = new RawHttp(server.port("admin"))) {
            RawHttp.Response r = admin.exchange(get("/config"));
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("content-type")).isEqualTo("application/json");
            JsonNode config = JSON.readTree(r.body());
            assertThat(config.get("file").asText()).isEqualTo(server.configFile().toString());
            assertThat(config.get("sha256").asText()).isEqualTo(sha256(server));
            assertThat(config.get("generation").asLong()).isEqualTo(server.server().store().current().generation());
            assertThat(config.get("compiled_at").asText()).isNotEmpty();
            assertThat(config.get("last_reload_error").isNull()).isTrue();

            assertThat(server.reload(YAML.formatted("v2") + "      - {path: /api, forward: billing}\n")).isFalse();
            JsonNode failed = JSON.readTree(admin.exchange(get("/config")).body());
            assertThat(failed.get("generation").asLong()).isEqualTo(config.get("generation").asLong());
            assertThat(failed.get("sha256").asText()).as("still the serving file's").isEqualTo(config.get("sha256").asText());
            assertThat(failed.get("last_reload_error").asText())
                    .contains(server.configFile() + ":8:31: hosts[0].routes[1].forward: unknown cluster 'billing'");
            assertThat(metric(admin.exchange(get("/metrics")).body(), "paduraksa_reload_failures_total")).isEqualTo(1);

            assertThat(server.reload(YAML.formatted("v3"))).isTrue();
            JsonNode fixed = JSON.readTree(admin.exchange(get("/config")).body());
            assertThat(fixed.get("last_reload_error").isNull()).isTrue();
            assertThat(fixed.get("sha256").asText()).isEqualTo(sha256(server)).isNotEqualTo(config.get("sha256").asText());
            assertThat(fixed.get("generation").asLong()).isGreaterThan(config.get("generation").asLong());
        }
    }

    @Test
    void readyTurns503WhileTheServerDrains() throws Exception {
        try (TestServer server = TestServer.start(YAML.formatted("v1"));
             RawHttp admin = new RawHttp(server.port("admin"));
             ShutdownIT.H2 h2 = new ShutdownIT.H2(server.port("public"))) {
            assertThat(admin.exchange(get("/ready")).status()).isEqualTo(200);
            // An HTTP/2 answer held back by a zero stream window keeps the stop draining.
            h2.handshake(0);
            h2.headers(1, true, ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
            h2.readUntil(f -> f.stream() == 1 && f.type() == ShutdownIT.H2.HEADERS);
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server().stop(Duration.ofSeconds(10)));
            h2.readUntil(f -> f.type() == ShutdownIT.H2.GOAWAY);
            RawHttp.Response ready = admin.exchange(get("/ready"));
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("not ready\n");
            assertThat(admin.exchange(get("/healthz")).status()).as("alive while draining").isEqualTo(200);
            h2.windowUpdate(1, 1024);
            assertThat(h2.readToEnd()).isTrue();
            stop.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void connectionCloseIsHonoured() throws Exception {
        try (TestServer server = TestServer.start(YAML.formatted("v1")); RawHttp admin = new RawHttp(server.port("admin"))) {
            assertThat(admin.exchange("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").status()).isEqualTo(200);
            assertThat(admin.isClosedByServer()).isTrue();
        }
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
    }

    private static long metric(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + " (\\d+)$").matcher(text);
        assertThat(m.find()).as("%s in\n%s", name, text).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String sha256(TestServer server) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(server.configFile())));
    }
}
