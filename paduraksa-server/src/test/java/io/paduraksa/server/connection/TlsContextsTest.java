package io.paduraksa.server.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.paduraksa.server.connection.TlsContexts.CertificateFiles;
import io.paduraksa.server.connection.TlsContexts.Provider;
import io.paduraksa.server.connection.TlsContexts.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** Real TLS handshakes over loopback: a JDK SSLSocket client against the Netty server's SniHandler. */
class TlsContextsTest {
    private static final CertificateFiles A = files("a-test-chain.pem", "a-test.key");
    private static final CertificateFiles B = files("b-test-chain.pem", "b-test.key");
    private static final CertificateFiles C_RSA = files("c-test-chain.pem", "c-test.key");
    private static EventLoopGroup group;

    @BeforeAll
    static void startLoop() {
        group = LoopbackServer.TRANSPORT.newEventLoopGroup(1);
    }

    @AfterAll
    static void stopLoop() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void autoProviderIsOpenSslWhenTcnativeLoads() throws Exception {
        TlsContexts tls = TlsContexts.load(Settings.of(List.of(A)));
        assertThat(OpenSsl.isAvailable()).as("netty-tcnative-boringssl-static: %s", OpenSsl.unavailabilityCause()).isTrue();
        assertThat(tls.provider()).isEqualTo(SslProvider.OPENSSL);
    }

    @ParameterizedTest(name = "{0} via {1}")
    @CsvSource({
            "a.test,       a.test, OPENSSL",
            "www.a.test,   a.test, OPENSSL",
            "b.test,       b.test, OPENSSL",
            "c.test,       c.test, OPENSSL",
            "unknown.test, a.test, OPENSSL",
            "'',           a.test, OPENSSL",
            "a.test,       a.test, JDK",
            "www.a.test,   a.test, JDK",
            "b.test,       b.test, JDK",
            "c.test,       c.test, JDK",
            "'',           a.test, JDK",
    })
    void sniPicksTheCertificateListingTheNameAndTheFirstOtherwise(String sni, String expectedSan, Provider provider)
            throws Exception {
        assumeProvider(provider);
        TlsContexts tls = TlsContexts.load(settings(List.of(A, B, C_RSA), TlsContexts.DEFAULT_ALPN, null, provider));
        try (TlsServer server = new TlsServer(tls);
             SSLSocket socket = server.connect(clientContext(false), sni, null)) {
            socket.startHandshake();

            X509Certificate peer = (X509Certificate) socket.getSession().getPeerCertificates()[0];
            assertThat(sanNames(peer)).contains(expectedSan);
            assertThat(echo(socket)).isTrue();
        }
    }

    @ParameterizedTest(name = "client offers {0}, server {1}: {2}")
    @CsvSource({
            "h2 http/1.1, h2 http/1.1, h2",
            "http/1.1 h2, h2 http/1.1, h2",
            "http/1.1,    h2 http/1.1, http/1.1",
            "'',          h2 http/1.1, ''",
            "h2 http/1.1, http/1.1,    http/1.1",
    })
    void alpnNegotiatesH2WhenBothOfferItAndHttp11Otherwise(String offered, String served, String expected)
            throws Exception {
        for (Provider provider : new Provider[] {Provider.OPENSSL, Provider.JDK}) {
            if (provider == Provider.OPENSSL && !OpenSsl.isAvailable()) {
                continue;
            }
            TlsContexts tls = TlsContexts.load(settings(List.of(A), words(served), null, provider));
            try (TlsServer server = new TlsServer(tls);
                 SSLSocket socket = server.connect(clientContext(false), "a.test", words(offered))) {
                socket.startHandshake();

                assertThat(socket.getApplicationProtocol()).as("%s", provider).isEqualTo(expected);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Provider.class, names = {"OPENSSL", "JDK"})
    void requiredClientCertificateTurnsAwayClientsWithoutOne(Provider provider) throws Exception {
        assumeProvider(provider);
        TlsContexts tls = TlsContexts.load(settings(List.of(A), TlsContexts.DEFAULT_ALPN, resource("ca.pem"), provider));
        try (TlsServer server = new TlsServer(tls)) {
            try (SSLSocket withCert = server.connect(clientContext(true), "a.test", null)) {
                assertThat(echo(withCert)).isTrue();
            }
            try (SSLSocket withoutCert = server.connect(clientContext(false), "a.test", null)) {
                assertThat(echo(withoutCert)).isFalse();
            }
        }
    }

    @Test
    void reloadReadsTheFilesAgainAndAFailedReloadLeavesTheOldContextsAlone(@TempDir Path dir) throws Exception {
        Path cert = dir.resolve("site.pem");
        Path key = dir.resolve("site.key");
        Files.copy(A.cert(), cert);
        Files.copy(A.key(), key);
        TlsContexts first = TlsContexts.load(Settings.of(List.of(new CertificateFiles(cert, key))));
        assertThat(first.certificateByName()).containsOnlyKeys("a.test", "*.a.test");

        Files.copy(B.cert(), cert, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(B.key(), key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        TlsContexts second = first.reload();
        assertThat(second.certificateByName()).containsOnlyKeys("b.test");

        Files.writeString(cert, "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n");
        assertThatThrownBy(second::reload).isInstanceOf(TlsException.class).hasMessageStartingWith(cert + ": ");
        try (TlsServer server = new TlsServer(second);
             SSLSocket socket = server.connect(clientContext(false), "b.test", null)) {
            assertThat(echo(socket)).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "not PEM at all       | cert | hello                                                      | not a PEM certificate chain",
            "empty certificate    | cert | ''                                                         | no PEM certificate in the file",
            "empty key            | key  | ''                                                         | no PEM private key in the file",
            "PKCS#1 key           | key  | -----BEGIN EC PRIVATE KEY-----\\nAAAA\\n-----END EC PRIVATE KEY----- | PKCS#1/SEC1 private key (expected PKCS#8",
            "encrypted key        | key  | -----BEGIN ENCRYPTED PRIVATE KEY-----\\nAAAA\\n-----END ENCRYPTED PRIVATE KEY----- | encrypted private keys are not supported",
            "garbled key          | key  | -----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY----- | not a readable EC private key",
    })
    void brokenPemFilesFailWithTheFileNamed(String what, String which, String content, String problem,
                                            @TempDir Path dir) throws Exception {
        Path cert = dir.resolve("site.pem");
        Path key = dir.resolve("site.key");
        Files.copy(A.cert(), cert);
        Files.copy(A.key(), key);
        Path broken = which.equals("cert") ? cert : key;
        Files.writeString(broken, content.replace("\\n", "\n"));

        assertThatThrownBy(() -> TlsContexts.load(Settings.of(List.of(new CertificateFiles(cert, key)))))
                .isInstanceOf(TlsException.class)
                .hasMessageStartingWith(broken + ": " + problem)
                .satisfies(e -> assertThat(((TlsException) e).file()).isEqualTo(broken))
                .satisfies(e -> assertThat(((TlsException) e).certificateIndex()).isZero());
    }

    @Test
    void missingFileIsNamed(@TempDir Path dir) {
        Path missing = dir.resolve("missing.pem");
        assertThatThrownBy(() -> TlsContexts.load(Settings.of(List.of(A, new CertificateFiles(missing, A.key())))))
                .isInstanceOf(TlsException.class)
                .hasMessageStartingWith(missing + ": cannot read")
                .satisfies(e -> assertThat(((TlsException) e).certificateIndex()).isEqualTo(1));
    }

    @Test
    void keyOfAnotherCertificateIsRefused() {
        CertificateFiles swapped = new CertificateFiles(A.cert(), B.key());
        assertThatThrownBy(() -> TlsContexts.load(Settings.of(List.of(swapped))))
                .isInstanceOf(TlsException.class)
                .hasMessage(B.key() + ": the private key does not belong to the certificate in " + A.cert());
    }

    @Test
    void laterCertificateWithoutDnsNamesIsRefused() {
        CertificateFiles noNames = files("client-chain.pem", "client.key");
        assertThatThrownBy(() -> TlsContexts.load(Settings.of(List.of(A, noNames))))
                .isInstanceOf(TlsException.class)
                .hasMessageStartingWith(noNames.cert() + ": no DNS name in subjectAltName");
    }

    @Test
    void brokenClientCaIsNamed(@TempDir Path dir) throws Exception {
        Path ca = dir.resolve("ca.pem");
        Files.writeString(ca, "nothing here");
        assertThatThrownBy(() -> TlsContexts.load(settings(List.of(A), TlsContexts.DEFAULT_ALPN, ca, Provider.AUTO)))
                .isInstanceOf(TlsException.class)
                .hasMessageStartingWith(ca + ": ")
                .satisfies(e -> assertThat(((TlsException) e).certificateIndex()).isEqualTo(TlsException.CLIENT_CA));
    }

    @Test
    void firstCertificateListingANameServesIt() throws Exception {
        TlsContexts tls = TlsContexts.load(Settings.of(List.of(A, B, A)));
        assertThat(tls.certificateByName()).containsEntry("a.test", 0).containsEntry("*.a.test", 0).containsEntry("b.test", 1);
        assertThat(tls.contextFor("x.a.test")).isSameAs(tls.defaultContext());
        assertThat(tls.contextFor("b.test")).isNotSameAs(tls.defaultContext());
        assertThat(tls.contextFor(null)).isSameAs(tls.defaultContext());
    }

    // ---- fixtures

    private static void assumeProvider(Provider provider) {
        if (provider == Provider.OPENSSL) {
            io.paduraksa.testing.Tools.requireNative("OpenSSL (netty-tcnative)", OpenSsl.unavailabilityCause());
        }
    }

    private static Settings settings(List<CertificateFiles> certs, List<String> alpn, Path clientCa, Provider provider) {
        return new Settings(certs, alpn, clientCa, provider, TlsContexts.DEFAULT_HANDSHAKE_TIMEOUT_MILLIS);
    }

    private static List<String> words(String s) {
        return s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
    }

    static Path resource(String name) {
        try {
            return Path.of(TlsContextsTest.class.getResource("/tls/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CertificateFiles files(String cert, String key) {
        return new CertificateFiles(resource(cert), resource(key));
    }

    private static List<String> sanNames(X509Certificate cert) throws Exception {
        List<String> names = new ArrayList<>();
        Collection<List<?>> sans = cert.getSubjectAlternativeNames();
        for (List<?> san : sans) {
            names.add(String.valueOf(san.get(1)));
        }
        return names;
    }

    /** A JDK client that trusts the test CA, presenting the test client certificate when asked to. */
    private static SSLContext clientContext(boolean withClientCert) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", PemFiles.certificates(resource("ca.pem"), 0).get(0));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (withClientCert) {
            List<X509Certificate> chain = PemFiles.certificates(resource("client-chain.pem"), 0);
            PrivateKey key = PemFiles.privateKey(resource("client.key"), 0, "EC");
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", key, "x".toCharArray(), chain.toArray(new X509Certificate[0]));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, "x".toCharArray());
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    /** Writes "ping" and expects it back: false when the server refused the connection instead. */
    private static boolean echo(SSLSocket socket) {
        try {
            socket.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] got = new byte[4];
            int n = 0;
            while (n < 4) {
                int r = in.read(got, n, 4 - n);
                if (r < 0) {
                    return false;
                }
                n += r;
            }
            return new String(got, StandardCharsets.US_ASCII).equals("ping");
        } catch (IOException refused) {
            return false;
        }
    }

    /** A Netty TLS server on 127.0.0.1 port 0: SniHandler from the contexts, then an echo. */
    private static final class TlsServer implements AutoCloseable {
        private final Channel channel;

        TlsServer(TlsContexts tls) throws InterruptedException {
            channel = new ServerBootstrap().group(group).channel(LoopbackServer.TRANSPORT.serverChannelClass())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(tls.newHandler(), new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ctx.writeAndFlush(msg);
                                }

                                @Override
                                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                    ctx.close(); // failed handshakes end here
                                }
                            });
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
        }

        SSLSocket connect(SSLContext context, String sni, List<String> alpn) throws IOException {
            int port = ((InetSocketAddress) channel.localAddress()).getPort();
            SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
            socket.setSoTimeout(5_000);
            SSLParameters params = socket.getSSLParameters();
            params.setServerNames(sni.isEmpty() ? List.of() : List.of(new SNIHostName(sni)));
            if (alpn != null) {
                params.setApplicationProtocols(alpn.toArray(new String[0]));
            }
            socket.setSSLParameters(params);
            return socket;
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
        }
    }
}
