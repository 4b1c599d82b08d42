package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.SslHandler;
import io.paduraksa.server.testing.TestServer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A TLS listener offering h2 and http/1.1 with two certificates (a.test with *.a.test, and b.test):
 * ALPN h2 reaches the gate over HTTP/2, a client that offers only http/1.1 (or no ALPN) speaks
 * HTTP/1.1, and SNI picks the certificate whose subjectAltName covers the name.
 */
class Http2TlsIT {
    static TestServer server;

    @BeforeAll
    static void start() {
        String yaml = """
                listeners:
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [http1, h2]
                    tls:
                      certificates:
                        - {cert: "%s", key: "%s"}
                        - {cert: "%s", key: "%s"}
                policies:
                  no-admin: {type: path, deny: [/admin]}
                hosts:
                  - names: [a.test, "*.a.test"]
                    policies: [no-admin]
                    routes:
                      - {path: /, respond: {status: 200, body: "a\\n"}}
                  - names: [b.test]
                    routes:
                      - {path: /, respond: {status: 200, body: "b\\n"}}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"),
                H2Client.testFile("b-test-chain.pem"), H2Client.testFile("b-test.key"));
        server = TestServer.start(yaml);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void alpnH2ReachesTheGateOverHttp2() throws Exception {
        try (H2Client c = H2Client.connectTls(server.port("tls"), "a.test")) {
            assertThat(c.alpn()).isEqualTo("h2");
            H2Client.Response ok = c.get("GET", "a.test", "/");
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("a\n");
            assertThat(ok.header("date")).endsWith(" GMT");
            assertThat(c.get("GET", "www.a.test", "/admin").status()).isEqualTo(403);
            assertThat(c.get("GET", "nope.example", "/").status()).isEqualTo(421);
            X509Certificate peer = (X509Certificate) c.channel().pipeline().get(SslHandler.class).engine().getSession()
                    .getPeerCertificates()[0];
            assertThat(dnsNames(peer)).containsExactly("a.test", "*.a.test");
        }
    }

    @Test
    void alpnH2WithSniBTestGetsTheBCertificateAndAnswer() throws Exception {
        try (H2Client c = H2Client.connectTls(server.port("tls"), "b.test")) {
            assertThat(c.alpn()).isEqualTo("h2");
            assertThat(c.get("GET", "b.test", "/").body()).isEqualTo("b\n");
            X509Certificate peer = (X509Certificate) c.channel().pipeline().get(SslHandler.class).engine().getSession()
                    .getPeerCertificates()[0];
            assertThat(dnsNames(peer)).containsExactly("b.test");
        }
    }

    @ParameterizedTest(name = "ALPN {0}")
    @CsvSource({"http/1.1", "none"})
    void aClientWithoutH2SpeaksHttp11(String alpn) throws Exception {
        try (SSLSocket s = tlsSocket("a.test", alpn.equals("none") ? new String[0] : new String[] {alpn})) {
            s.startHandshake();
            assertThat(s.getApplicationProtocol()).isIn(alpn.equals("none") ? "" : alpn, null);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\na\n");
        }
    }

    @ParameterizedTest(name = "SNI {0}")
    @CsvSource({"a.test, a.test", "www.a.test, a.test", "b.test, b.test", "unknown.example, a.test", "'', a.test"})
    void sniPicksTheCertificateByHost(String sni, String expectedFirstSan) throws Exception {
        try (SSLSocket s = tlsSocket(sni, new String[] {"http/1.1"})) {
            s.startHandshake();
            X509Certificate peer = (X509Certificate) s.getSession().getPeerCertificates()[0];
            assertThat(dnsNames(peer).get(0)).isEqualTo(expectedFirstSan);
        }
    }

    /** A JDK TLS socket to the listener trusting the test CA, with {@code sni} (none when empty) and ALPN. */
    static SSLSocket tlsSocket(String sni, String[] alpn) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(H2Client.testFile("ca.pem"))) {
            Certificate ca = CertificateFactory.getInstance("X.509").generateCertificate(in);
            trust.setCertificateEntry("ca", ca);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", server.port("tls"));
        s.setSoTimeout(5_000);
        SSLParameters p = s.getSSLParameters();
        if (!sni.isEmpty()) {
            p.setServerNames(List.of(new SNIHostName(sni)));
        }
        p.setApplicationProtocols(alpn);
        s.setSSLParameters(p);
        return s;
    }

    static List<String> dnsNames(X509Certificate cert) throws Exception {
        List<String> names = new ArrayList<>();
        Collection<List<?>> sans = cert.getSubjectAlternativeNames();
        for (List<?> san : sans) {
            if ((Integer) san.get(0) == 2) {
                names.add((String) san.get(1));
            }
        }
        return names;
    }
}
