package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.testing.Tools;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real browser's WebSocket over HTTP/2: headless chromium loads a page the proxy serves over h2
 * with TLS (the test certificate allowed by its SPKI hash), the page opens
 * {@code new WebSocket('wss://...')} to the same origin, sends a message and, on the echo, fetches
 * {@code /echoed/<message>}. The server's access log shows that fetch and proves the handshake came
 * as an HTTP/2 request (RFC 8441 extended CONNECT on the page's connection), not as an HTTP/1.1
 * Upgrade. The page opens the WebSocket only after a fetch on its connection came back, and 100 ms
 * later: chromium takes the h2 connection for a WebSocket only once that session is available with
 * our SETTINGS_ENABLE_CONNECT_PROTOCOL, and opened one straight from the page's script over
 * HTTP/1.1 once in CI (2026-12-06, the whole test took 0.5 s). Chromium runs in real time (its virtual-time budget does not wait for WebSockets) with a
 * DevTools port so that it stays up, and is stopped by the test once the line is there.
 */
public class Http2WebSocketBrowserIT {
    private static final String PAGE = """
            <html><body><p id="out">waiting</p><script>
            const out = document.getElementById('out');
            function open() {
              const ws = new WebSocket('wss://' + location.host + '/ws');
              ws.onopen = () => ws.send('hello-from-chromium');
              ws.onmessage = (e) => { out.textContent = 'echo: ' + e.data; ws.close(1000); fetch('/echoed/' + e.data); };
              ws.onerror = () => { fetch('/websocket-error'); };
            }
            fetch('/ready').then(() => setTimeout(open, 100));
            </script></body></html>
            """;

    @Test
    void chromiumOpensAWebSocketOverHttp2AndGetsTheEcho(@TempDir Path dir) throws Exception {
        Path chromium = Tools.require("chromium", "chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser");
        Path log = dir.resolve("access.log");
        Files.writeString(dir.resolve("page.html"), PAGE);
        try (WebSocketOrigin origin = new WebSocketOrigin();
             TestServer server = TestServer.start("""
                     listeners:
                       - name: tls
                         address: "127.0.0.1:0"
                         protocols: [http1, h2]
                         tls: {certificates: [{cert: "%s", key: "%s"}]}
                     access_log: {enabled: true, path: "%s", format: json}
                     clusters:
                       ws: {destinations: [{url: "%s"}]}
                     hosts:
                       - names: [a.test]
                         routes:
                           - {path: /ws, forward: ws}
                           - path: /
                             respond: {status: 200, content_type: text/html; charset=utf-8, body: "%s"}
                     """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), log, origin.url(),
                     PAGE.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")))) {
            int port = server.port("tls");
            Path profile = Files.createDirectories(dir.resolve("profile"));
            List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                    "--ignore-certificate-errors-spki-list=" + spki(H2Client.testFile("a-test.pem")),
                    "--host-resolver-rules=MAP a.test 127.0.0.1", "--remote-debugging-port=0",
                    "https://a.test:" + port + "/"));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("chromium.txt").toFile()).start();
            try {
                String echoed = awaitLine(log, "\"path\":\"/echoed/");
                assertThat(echoed).as("the page got its message back").contains("/echoed/hello-from-chromium");
            } finally {
                Tools.stop(p);
            }
            String ws = awaitLine(log, "\"path\":\"/ws\"");
            assertThat(ws).as("the handshake came over HTTP/2, was judged as a GET and opened the tunnel")
                    .contains("\"protocol\":\"HTTP/2.0\"").contains("\"method\":\"GET\"").contains("\"status\":200");
        }
    }

    /** The base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as chromium's SPKI allow-list wants it. */
    public static String spki(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(cert.getPublicKey().getEncoded()));
        }
    }

    /** The access log's line containing {@code needle} (the writer thread flushes it soon after the request). */
    public static String awaitLine(Path log, String needle) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> lines = List.of();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                for (String l : lines) {
                    if (l.contains(needle)) {
                        return l;
                    }
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no access-log line with " + needle + " in " + lines);
    }
}
