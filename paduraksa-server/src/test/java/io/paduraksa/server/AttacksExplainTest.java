package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotCompiler;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code paduraksa explain} shows each attack rule's verdict for the request under the policy's line. */
class AttacksExplainTest {

    @Test
    void explainListsEveryRuleVerdictAndTheScore() throws Exception {
        Snapshot snapshot = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", """
                policies:
                  waf: {type: attacks}
                hosts:
                  - names: [a.test]
                    policies: [waf]
                    routes: [{path: /, respond: {status: 200}}]
                """), PooledByteBufAllocator.DEFAULT);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            GateOutcome outcome = Explain.run(out, snapshot, "198.51.100.7", List.of("Host: a.test"), "GET",
                    "/search?q=%3Cscript%3Ealert(1)");

            assertThat(outcome).isEqualTo(GateOutcome.RESPOND);
        } finally {
            snapshot.release();
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("policy    waf")
                .contains("          941110 query:q: MATCH +5 (script tag (a namespace prefix too)) \"<script\"")
                .contains("          942100 query:q: no match")
                .contains("          score 5/5 (paranoia 1) -> deny");
    }

    @Test
    void explainShowsEveryOtherHeaderWithAllHeaders() throws Exception {
        Snapshot snapshot = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", """
                policies:
                  waf: {type: attacks, inspect: {all_headers: true}}
                hosts:
                  - names: [a.test]
                    policies: [waf]
                    routes: [{path: /, respond: {status: 200}}]
                """), PooledByteBufAllocator.DEFAULT);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            GateOutcome outcome = Explain.run(out, snapshot, "198.51.100.7", List.of("Host: a.test", "X-Api-Client: com.opensymphony.xwork2"),
                    "GET", "/");

            assertThat(outcome).isEqualTo(GateOutcome.RESPOND);
        } finally {
            snapshot.release();
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("          944130 header:x-api-client: MATCH +5 (Suspicious Java class or Spring4Shell class loader)")
                .contains("          930110 header:x-api-client: no match")
                .contains("          score 5/5 (paranoia 1) -> deny");
    }
}
