package io.paduraksa.server.connection;

import io.paduraksa.net.IpParser;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.server.connection.TlsContexts.CertificateFiles;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole connection stage in the order the server wires it: accept filter, PROXY protocol, ClientInfo,
 * TLS with SNI and ALPN; a PROXY header in clear text, then a TLS handshake on the same connection.
 */
class ConnectionPipelineTest {
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
    void proxyHeaderThenTlsGivesTheHeaderAddressAndTheSniCertificate() throws Exception {
        TlsContexts tls = TlsContexts.load(TlsContexts.Settings.of(List.of(
                new CertificateFiles(TlsContextsTest.resource("a-test-chain.pem"), TlsContextsTest.resource("a-test.key")),
                new CertificateFiles(TlsContextsTest.resource("b-test-chain.pem"), TlsContextsTest.resource("b-test.key")))));
        AddressMatcher loadBalancers = AddressMatcher.ALL;
        AddressMatcher trustedProxies = (high, low) -> high == 0 && low == 0x0000_FFFF_CB00_7109L; // 203.0.113.9
        try (LoopbackServer server = LoopbackServer.start(group, p -> p.addLast(
                new AcceptFilterHandler(loadBalancers),
                new ProxyProtocolHandler(loadBalancers),
                new ClientInfoHandler(trustedProxies, CountryLookup.NONE, false),
                tls.newHandler()));
             Socket plain = server.connect()) {
            plain.getOutputStream().write("PROXY TCP4 203.0.113.9 198.51.100.1 51000 443\r\n".getBytes(StandardCharsets.US_ASCII));
            SSLSocket socket = (SSLSocket) trustingTestCa().getSocketFactory()
                    .createSocket(plain, "b.test", plain.getPort(), true);
            SSLParameters params = socket.getSSLParameters();
            params.setServerNames(List.of(new SNIHostName("b.test")));
            params.setApplicationProtocols(new String[] {"h2", "http/1.1"});
            socket.setSSLParameters(params);
            socket.startHandshake();
            socket.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));

            assertThat(LoopbackServer.readEcho(socket, 4)).isEqualTo("ping");
            assertThat(socket.getApplicationProtocol()).isEqualTo("h2");
            assertThat(socket.getSession().getPeerPrincipal().getName()).isEqualTo("CN=b.test");
            ClientInfo info = server.clients.poll(5, TimeUnit.SECONDS);
            assertThat(IpParser.format(info.ipHigh(), info.ipLow())).isEqualTo("203.0.113.9");
            assertThat(info.isTrustedProxy()).isTrue();
            assertThat(server.pipelines.take()).containsExactly("SslHandler", "Recorder");
            socket.close();
        }
    }

    private static SSLContext trustingTestCa() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", PemFiles.certificates(TlsContextsTest.resource("ca.pem"), 0).get(0));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
