package io.paduraksa.server.http3;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.proxy.Http2WebSocketBrowserIT;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real browser over HTTP/3: headless chromium, forced onto QUIC for the test origin
 * ({@code --origin-to-force-quic-on}, the test certificate's SPKI allowed), loads a page the gate
 * answers, whose script fetches a forwarded path and reports what it got. The access log shows
 * every request came over HTTP/3.
 */
class Http3BrowserIT {
    private static final String PAGE = """
            <!doctype html><title>h3</title><script>
            fetch('/app/hello').then(r => r.text()).then(t => fetch('/seen/' + (t.indexOf('origin: origin') >= 0 ? 'ok' : 'bad')));
            </script>
            """;

    @Test
    void chromiumOverQuicGetsTheGateAnswerAndAForwardedResponse(@TempDir Path dir) throws Exception {
        Path chromium = Tools.require("chromium", "chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser");
        Path log = dir.resolve("access.log");
        try (TestOrigin origin = new TestOrigin("origin");
             TestServer server = TestServer.start("""
                     listeners:
                       - name: tls
                         address: "127.0.0.1:0"
                         protocols: [http1, h2, h3]
                         tls: {certificates: [{cert: "%s", key: "%s"}]}
                     access_log: {enabled: true, path: "%s", format: json}
                     clusters:
                       app: {destinations: [{url: "%s"}]}
                     hosts:
                       - names: [a.test]
                         routes:
                           - {path: /app, forward: app}
                           - {path: /seen, respond: {status: 204}}
                           - path: /
                             respond: {status: 200, content_type: text/html; charset=utf-8, body: "%s"}
                     """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), log, origin.url(),
                     PAGE.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")))) {
            int port = server.port("tls");
            Path profile = Files.createDirectories(dir.resolve("profile"));
            List<String> command = List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                    "--enable-quic", "--origin-to-force-quic-on=a.test:" + port, "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                    "--user-data-dir=" + profile,
                    "--ignore-certificate-errors-spki-list=" + Http2WebSocketBrowserIT.spki(H2Client.testFile("a-test.pem")),
                    "--host-resolver-rules=MAP a.test 127.0.0.1", "--remote-debugging-port=0",
                    "https://a.test:" + port + "/");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("chromium.txt").toFile()).start();
            try {
                String seen = Http2WebSocketBrowserIT.awaitLine(log, "\"path\":\"/seen/");
                assertThat(seen).as("the script got the forwarded response").contains("/seen/ok").contains("\"protocol\":\"HTTP/3\"");
            } finally {
                Tools.stop(p);
            }
            assertThat(Http2WebSocketBrowserIT.awaitLine(log, "\"path\":\"/app/hello\"")).contains("\"protocol\":\"HTTP/3\"")
                    .contains("\"status\":200");
            assertThat(Http2WebSocketBrowserIT.awaitLine(log, "\"path\":\"/\"")).contains("\"protocol\":\"HTTP/3\"");
        }
    }
}
