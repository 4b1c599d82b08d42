package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.testing.Tools;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The status page in a real headless browser: Debian's {@code chromium} loads {@code /status},
 * lets the page's script fetch {@code /status.json} (virtual time, no waiting), and prints the
 * DOM, which must hold the figures the script filled in.
 */
class StatusPageIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theJsonNamesTheSnapshotAndCountsRequests() throws Exception {
        try (TestServer server = TestServer.start(MetricsIT.YAML);
             RawHttp admin = new RawHttp(server.port("admin"));
             RawHttp client = new RawHttp(server.port("public"))) {
            assertThat(client.exchange(MetricsIT.get("a.test", "/", "")).status()).isEqualTo(200);
            RawHttp.Response r = admin.exchange("GET /status.json HTTP/1.1\r\nHost: admin\r\n\r\n");
            assertThat(r.header("content-type")).isEqualTo("application/json");
            JsonNode s = JSON.readTree(r.body());
            assertThat(s.get("generation").asLong()).isEqualTo(server.server().store().current().generation());
            assertThat(s.get("requests").get("2xx").asLong()).isEqualTo(1);
            assertThat(s.get("last_reload_error").isNull()).isTrue();
            assertThat(s.get("clusters")).isEmpty();
            assertThat(s.get("listeners").get(0).get("name").asText()).isEqualTo("public");
            assertThat(s.get("listeners").get(0).get("open_connections").asInt()).isEqualTo(1);
            RawHttp.Response page = admin.exchange("GET / HTTP/1.1\r\nHost: admin\r\n\r\n");
            assertThat(page.header("content-type")).isEqualTo("text/html; charset=utf-8");
            assertThat(page.body()).contains("fetch(\"status.json\"").doesNotContain("http://", "https://", "<link", "src=");
        }
    }

    @Test
    void aHeadlessBrowserShowsTheFiguresThePageFetched() throws Exception {
        String chromium = io.paduraksa.testing.Tools.require("chromium", "chromium",
                "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome").toString();
        try (TestServer server = TestServer.start(MetricsIT.YAML);
             RawHttp client = new RawHttp(server.port("public"))) {
            for (int i = 0; i < 3; i++) {
                assertThat(client.exchange(MetricsIT.get("a.test", "/", "")).status()).isEqualTo(200);
            }
            assertThat(client.exchange(MetricsIT.get("a.test", "/old", "")).status()).isEqualTo(301);
            long generation = server.server().store().current().generation();

            String dom = dumpDom(chromium, "http://127.0.0.1:" + server.port("admin") + "/status");

            assertThat(dom).contains("<td id=\"generation\">" + generation + "</td>")
                    .contains("<td class=\"num total-2xx\">3</td>")
                    .contains("<td class=\"num total-3xx\">1</td>")
                    .contains("<td id=\"last-error\" class=\"ok\">none</td>")
                    .contains("no clusters")
                    .contains("<td id=\"sha256\">" + server.server().store().current().sourceSha256() + "</td>");
        }
    }

    private static String dumpDom(String chromium, String url) throws Exception {
        Path profile = Files.createTempDirectory("paduraksa-chromium");
        try {
            List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--disable-gpu", "--no-sandbox",
                    "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                    "--virtual-time-budget=3000", "--dump-dom", url));
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            byte[] out;
            try {
                out = p.getInputStream().readAllBytes();
                assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("chromium finished").isTrue();
            } finally {
                Tools.stop(p);
            }
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }
}
