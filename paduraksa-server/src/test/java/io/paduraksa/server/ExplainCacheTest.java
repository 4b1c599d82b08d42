package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.CompiledFixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code paduraksa explain} says whether a forwarded request would use the response cache, and why not. */
class ExplainCacheTest {
    private static Snapshot snapshot;

    @BeforeAll
    static void compile() {
        snapshot = CompiledFixtures.compile("edge.yaml", """
                clusters:
                  app: {destinations: [{url: "http://192.0.2.10:8080"}]}
                hosts:
                  - names: [www.example.test]
                    routes:
                      - {path: /api, forward: app}
                      - {path: /, forward: app, cache: {default_ttl: 30s, stale_if_error: 5m}}
                """);
    }

    @AfterAll
    static void release() {
        snapshot.release();
    }

    private static String cacheLine(String method, String url, String... headers) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> fields = new ArrayList<>(List.of("Host: WWW.example.test:8443"));
        fields.addAll(Arrays.asList(headers));
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            Explain.run(out, snapshot, "198.51.100.7", fields, method, url);
        }
        return bytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("cache ")).findFirst().orElseThrow();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            GET  | /a/./b?x=1 | -                     | cache     eligible: key www.example.test /a/b x=1 (plus the fields a stored response's Vary names); cache(default_ttl 30s, max_ttl none, stale_while_revalidate 0s, stale_if_error 300s)
            HEAD | /a         | -                     | cache     eligible (HEAD: answered from the stored GET; a miss is forwarded, not stored): key www.example.test /a
            POST | /a         | -                     | cache     not used: the method is not GET or HEAD; forwarded as it is
            GET  | /a         | Authorization: Basic x | cache     not used: the request has Authorization (store_authorized is off)
            GET  | /a         | Range: bytes=0-9      | cache     not used: the request has a Range
            GET  | /a         | Content-Length: 5     | cache     not used: the request has a body
            GET  | /api/x     | -                     | cache     off on this route (no routes[].cache)
            """)
    void explainSaysWhetherTheCacheIsUsed(String method, String url, String header, String expected) {
        String line = header == null ? cacheLine(method, url) : cacheLine(method, url, header);
        assertThat(line).startsWith(expected);
    }
}
