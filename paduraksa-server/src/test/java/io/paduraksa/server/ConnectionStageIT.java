package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.net.IpParser;
import io.paduraksa.ops.Reloader;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.snapshot.Snapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The connection stage configured through YAML end to end: lock-down to trusted proxies, PROXY
 * protocol from trusted senders, CF-Connecting-IP only from trusted peers, and trusted proxies read
 * from files (Cloudflare's ranges as shipped).
 */
class ConnectionStageIT {
    private static final String GET = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";

    /** One listener and a host whose ip policy denies 203.0.113.0/24. */
    static String yaml(String listenerExtras, String trustedProxies) {
        return """
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]%s}
                client_ip:
                  trusted_proxies: [%s]
                policies:
                  blocked: {type: ip, deny: [203.0.113.0/24]}
                hosts:
                  - names: [a.test]
                    policies: [blocked]
                    routes:
                      - {path: /, respond: {status: 200, body: "ok"}}
                """.formatted(listenerExtras, trustedProxies);
    }

    @Test
    void lockedDownListenerRefusesAnUntrustedPeerBeforeAnyByteAndServesOnceTrusted() throws Exception {
        try (TestServer server = TestServer.start(yaml(", trusted_only: true", "192.0.2.0/24"))) {
            int port = server.port("public");
            try (RawHttp c = new RawHttp(port)) {
                assertThat(c.isClosedByServer()).as("closed without our sending a byte").isTrue();
            }
            try (RawHttp c = new RawHttp(port)) {
                assertThat(sendAndReadAll(c, GET)).as("no HTTP answer").isEmpty();
            }
            // The lock-down reads the serving snapshot: after a reload that trusts loopback, new connections are served.
            assertThat(server.reload(yaml(", trusted_only: true", "127.0.0.0/8"))).isTrue();
            try (RawHttp c = new RawHttp(port)) {
                assertThat(c.exchange(GET).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void lockedDownListenerServesATrustedPeer() throws Exception {
        try (TestServer server = TestServer.start(yaml(", trusted_only: true", "127.0.0.0/8"));
             RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange(GET);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("ok");
        }
    }

    @ParameterizedTest(name = "PROXY v1 naming {0} -> {1}")
    @CsvSource({"203.0.113.7, 403", "198.51.100.7, 200"})
    void proxyProtocolV1HeaderFromATrustedSenderNamesTheClient(String client, int status) throws Exception {
        try (TestServer server = TestServer.start(yaml(", proxy_protocol: [127.0.0.0/8]", ""));
             RawHttp c = new RawHttp(server.port("public"))) {
            c.send("PROXY TCP4 " + client + " 192.0.2.1 56324 443\r\n");
            assertThat(c.exchange(GET).status()).isEqualTo(status);
            assertThat(c.exchange(GET).status()).as("the whole connection is that client's").isEqualTo(status);
        }
    }

    @Test
    void proxyProtocolV2HeaderFromATrustedSenderNamesTheClient() throws Exception {
        try (TestServer server = TestServer.start(yaml(", proxy_protocol: [127.0.0.0/8]", ""));
             RawHttp c = new RawHttp(server.port("public"))) {
            byte[] header = {
                0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, // signature
                0x21, 0x11, 0x00, 0x0C,                                                     // v2 PROXY, TCP4, 12 bytes
                (byte) 203, 0, 113, 7, (byte) 192, 0, 2, 1,                                 // source, destination
                (byte) 0xDC, 0x04, 0x01, (byte) 0xBB};                                      // ports 56324, 443
            c.send(header);
            assertThat(c.exchange(GET).status()).isEqualTo(403);
        }
    }

    @Test
    void trustedSenderWithoutAProxyHeaderIsClosedWithoutAnAnswer() throws Exception {
        try (TestServer server = TestServer.start(yaml(", proxy_protocol: [127.0.0.0/8]", ""));
             RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(sendAndReadAll(c, GET)).isEmpty();
        }
    }

    @Test
    void untrustedSenderIsServedAsItselfAndAForgedProxyHeaderIsClosed() throws Exception {
        try (TestServer server = TestServer.start(yaml(", proxy_protocol: [192.0.2.0/24]", ""))) {
            try (RawHttp c = new RawHttp(server.port("public"))) {
                assertThat(c.exchange(GET).status()).isEqualTo(200);
            }
            try (RawHttp c = new RawHttp(server.port("public"))) {
                assertThat(sendAndReadAll(c, "PROXY TCP4 198.51.100.7 192.0.2.1 56324 443\r\n" + GET)).isEmpty();
            }
        }
    }

    @ParameterizedTest(name = "trusted_proxies [{0}]: CF-Connecting-IP 203.0.113.9 -> {1}")
    @CsvSource(delimiter = ';', value = {"127.0.0.1/32; 403", "192.0.2.0/24; 200", "'127.0.0.0/8, \"::1/128\"'; 403"})
    void cfConnectingIpIsHonouredOnlyFromATrustedPeer(String trusted, int status) throws Exception {
        try (TestServer server = TestServer.start(yaml("", trusted)); RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\nCF-Connecting-IP: 203.0.113.9\r\n\r\n").status()).isEqualTo(status);
            assertThat(c.exchange(GET).status()).as("without the header: the peer, allowed").isEqualTo(200);
        }
    }

    @Test
    void proxyHeaderAndCfConnectingIpTogether() throws Exception {
        // Behind a TCP load balancer that speaks PROXY protocol, trusting loopback as a proxy:
        // the header names the client.
        try (TestServer server = TestServer.start(yaml(", proxy_protocol: [127.0.0.0/8]", "127.0.0.0/8, 198.51.100.0/24"));
             RawHttp c = new RawHttp(server.port("public"))) {
            c.send("PROXY TCP4 198.51.100.7 192.0.2.1 56324 443\r\n");
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\nCF-Connecting-IP: 203.0.113.9\r\n\r\n").status()).isEqualTo(403);
        }
    }

    @Test
    void cloudflareRangesFileNextToTheConfigMakesCloudflareTrusted(@TempDir Path dir) throws Exception {
        Files.copy(Path.of("..", "config", "cloudflare-ips.txt"), dir.resolve("cloudflare-ips.txt"));
        Path config = Files.writeString(dir.resolve("edge.yaml"), """
                listeners:
                  - {name: public, address: "127.0.0.1:0", trusted_only: true}
                client_ip:
                  trusted_proxies_files: [cloudflare-ips.txt]
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 200}}
                """);
        Snapshot s = Reloader.compile(config);
        try {
            assertThat(trusted(s, "173.245.48.1")).isTrue();
            assertThat(trusted(s, "104.16.0.1")).isTrue();
            assertThat(trusted(s, "2400:cb00::1")).isTrue();
            assertThat(trusted(s, "192.0.2.1")).isFalse();
            assertThat(trusted(s, "127.0.0.1")).isFalse();
        } finally {
            s.release();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"explain", "--config", config.toString(), "--peer", "173.245.48.1",
            "-H", "CF-Connecting-IP: 203.0.113.9", "GET", "http://a.test/"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("peer      173.245.48.1 (a trusted proxy").contains("client IP 203.0.113.9 (from cf-connecting-ip)");
    }

    @Test
    void trustedProxiesFilesFeedTheLockDownAndTheClientIpHeader(@TempDir Path dir) throws Exception {
        Files.copy(Path.of("..", "config", "cloudflare-ips.txt"), dir.resolve("cloudflare-ips.txt"));
        Files.writeString(dir.resolve("local.txt"), "# the test's own loopback proxy\n127.0.0.0/8\n");
        Path config = Files.writeString(dir.resolve("edge.yaml"), yaml(", trusted_only: true", "")
                .replace("  trusted_proxies: []", "  trusted_proxies_files: [cloudflare-ips.txt, local.txt]"));
        EdgeServer server = EdgeServer.start(config, Reloader.compile(config));
        try (RawHttp c = new RawHttp(server.boundAddresses().get("public").getPort())) {
            assertThat(c.exchange(GET).status()).isEqualTo(200);
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\nCF-Connecting-IP: 203.0.113.9\r\n\r\n").status()).isEqualTo(403);
        } finally {
            server.stop(Duration.ofSeconds(2));
        }
    }

    private static boolean trusted(Snapshot s, String ip) {
        long[] a = new long[2];
        assertThat(IpParser.parse(ip, 0, ip.length(), a)).isTrue();
        return s.trustedProxies().contains(a[0], a[1]);
    }

    /** Sends, then returns everything the server answers before it closes; fails if it keeps the connection. */
    private static String sendAndReadAll(RawHttp c, String request) throws IOException {
        try {
            c.send(request);
        } catch (IOException e) {
            return ""; // already reset: certainly no answer
        }
        c.socket().setSoTimeout(3_000);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[1024];
        try {
            int n;
            while ((n = c.socket().getInputStream().read(buf)) > 0) {
                got.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept the connection open; it sent: " + got.toString(StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            // reset: the connection is closed
        }
        return got.toString(StandardCharsets.ISO_8859_1);
    }
}
