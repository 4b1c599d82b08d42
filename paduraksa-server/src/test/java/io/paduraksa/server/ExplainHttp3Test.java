package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.gate.GateOutcome;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.CompiledFixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code paduraksa explain} names each listener that serves HTTP/3, with its limits and the Alt-Svc it advertises. */
class ExplainHttp3Test {

    private static String explain(String yaml) {
        Snapshot snapshot = CompiledFixtures.compile("edge.yaml", yaml);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            assertThat(Explain.run(out, snapshot, "198.51.100.7", List.of(), "GET", "https://www.example.test/"))
                    .isEqualTo(GateOutcome.RESPOND);
        } finally {
            snapshot.release();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aListenerWithH3IsShownWithItsSettings() {
        String out = explain("""
                listeners:
                  - name: public
                    address: "0.0.0.0:8443"
                    protocols: [http1, h2, h3]
                    tls: {certificates: [{cert: site.pem, key: site.key}]}
                    http3: {max_streams: 200, idle_timeout: 1m}
                  - {name: plain, address: "0.0.0.0:8080"}
                hosts:
                  - names: [www.example.test]
                    routes: [{path: /, respond: {status: 200}}]
                """);
        assertThat(out).contains("http3     listener public: h3 over QUIC on UDP 0.0.0.0:8443 (max_streams 200,"
                + " max_field_section_size 32KiB, idle_timeout 60s); its HTTP/1.1 and HTTP/2 answers carry Alt-Svc: h3=\":8443\"; ma=86400");
        assertThat(out).doesNotContain("listener plain");
    }

    @Test
    void noLineWithoutH3() {
        assertThat(explain("""
                hosts:
                  - names: [www.example.test]
                    routes: [{path: /, respond: {status: 200}}]
                """)).doesNotContain("http3 ");
    }
}
