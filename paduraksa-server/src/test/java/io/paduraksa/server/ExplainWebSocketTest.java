package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.gate.GateOutcome;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.CompiledFixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code paduraksa explain} with a {@code ws://} or {@code wss://} URL explains a WebSocket
 * handshake as the gate judges it on every protocol: a GET of its path (HTTP/2 extended CONNECT included).
 */
class ExplainWebSocketTest {
    private static Snapshot snapshot;

    @BeforeAll
    static void compile() {
        snapshot = CompiledFixtures.compile("edge.yaml", """
                clusters:
                  chat: {destinations: [{url: "http://192.0.2.10:8080"}]}
                policies:
                  only-get: {type: method, allow: [GET]}
                  no-admin: {type: path, deny: [/ws/admin]}
                hosts:
                  - names: [chat.example.test]
                    policies: [only-get, no-admin]
                    routes:
                      - {path: /ws, forward: chat}
                """);
    }

    @AfterAll
    static void release() {
        snapshot.release();
    }

    private static String explain(String method, String url, GateOutcome expected) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            assertThat(Explain.run(out, snapshot, "198.51.100.7", List.of(), method, url)).isEqualTo(expected);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aWssUrlIsJudgedAsAGetOfItsPathWhateverTheMethodSays() {
        String forwarded = explain("CONNECT", "wss://chat.example.test/ws/room?id=1", GateOutcome.FORWARD);
        assertThat(forwarded).contains("request   GET /ws/room?id=1 (Host: chat.example.test)")
                .contains("websocket a WebSocket handshake, judged as GET /ws/room?id=1: an HTTP/1.1 Upgrade, or an HTTP/2 extended CONNECT")
                .contains("to an h2c/h2 cluster as an extended CONNECT if that upstream advertises SETTINGS_ENABLE_CONNECT_PROTOCOL (else 502)")
                .contains("decision  FORWARD to cluster 'chat'");
        assertThat(explain("GET", "ws://chat.example.test/ws/admin", GateOutcome.RESPOND)).contains("decision  RESPOND 403");
    }

    @Test
    void anHttpsUrlStaysWhatItSays() {
        String plain = explain("CONNECT", "https://chat.example.test/ws", GateOutcome.RESPOND);
        assertThat(plain).contains("request   CONNECT /ws").doesNotContain("websocket ").contains("decision  RESPOND 405");
    }
}
