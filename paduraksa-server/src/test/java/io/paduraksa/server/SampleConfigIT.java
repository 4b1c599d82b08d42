package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.config.ListenerSpec;
import io.paduraksa.ops.Reloader;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.snapshot.Snapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped sample ({@code config/paduraksa.yaml}, also the .deb's {@code /etc/paduraksa/paduraksa.yaml})
 * has a loopback admin listener, and every admin URL its comments list answers (on port 0 here, so
 * the test needs no free 8080 or 9901).
 */
class SampleConfigIT {
    private static final Path SAMPLE = Path.of("..", "config", "paduraksa.yaml");

    @Test
    void theSampleHasALoopbackAdminListener() throws Exception {
        Snapshot s = Reloader.compile(SAMPLE);
        try {
            List<ListenerSpec> admin = s.spec().listeners().stream().filter(ListenerSpec::admin).toList();
            assertThat(admin).hasSize(1);
            assertThat(admin.get(0).name()).isEqualTo("admin");
            assertThat(admin.get(0).address()).isEqualTo("127.0.0.1:9901");
        } finally {
            s.release();
        }
    }

    @Test
    void everyAdminUrlInTheSampleCommentsAnswers() throws Exception {
        String text = Files.readString(SAMPLE);
        List<String> paths = new ArrayList<>();
        Matcher m = Pattern.compile("^#.*http://127\\.0\\.0\\.1:9901(/[a-z.]*)", Pattern.MULTILINE).matcher(text);
        while (m.find()) {
            paths.add(m.group(1));
        }
        m = Pattern.compile("^#.*\\((?:browser; )?(/status\\.json) for scripts\\)", Pattern.MULTILINE).matcher(text);
        while (m.find()) {
            paths.add(m.group(1));
        }
        assertThat(paths).containsExactlyInAnyOrder("/healthz", "/ready", "/metrics", "/status", "/status.json", "/config");
        String local = text.replace("address: \"127.0.0.1:8080\"", "address: \"127.0.0.1:0\"")
                .replace("address: \"127.0.0.1:9901\"", "address: \"127.0.0.1:0\"");
        try (TestServer server = TestServer.start(local)) {
            for (String path : paths) {
                try (RawHttp c = new RawHttp(server.port("admin"))) {
                    RawHttp.Response r = c.exchange("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    assertThat(r.status()).as(path).isEqualTo(200);
                    if (path.equals("/metrics")) {
                        assertThat(r.body()).contains("paduraksa_requests_total{listener=\"public\"");
                    }
                }
            }
            try (RawHttp c = new RawHttp(server.port("public"))) {
                assertThat(c.exchange("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").status()).as("the public listener").isEqualTo(200);
                assertThat(c.exchange("GET / HTTP/1.1\r\nHost: unknown.example\r\n\r\n").status()).as("the catch-all").isEqualTo(404);
                assertThat(c.exchange("GET /admin HTTP/1.1\r\nHost: unknown.example\r\n\r\n").status()).as("the catch-all's policy")
                        .isEqualTo(403);
                assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a..b.example\r\n\r\n").status()).as("a malformed Host").isEqualTo(421);
            }
        }
    }
}
