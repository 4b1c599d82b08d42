package io.paduraksa.server.connection;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * What a scanner on a TLS port costs the log: a client that sends garbage, plain HTTP, or gives up
 * half-way through the handshake gets its connection closed, one DEBUG line names its peer and the
 * reason, no WARN (and no stack trace) is logged, and {@code paduraksa_tls_handshake_failures_total}
 * counts it by listener and reason.
 */
class TlsHandshakeFailureIT {
    static TestServer server;
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private Level previousLevel;

    @BeforeAll
    static void start() {
        server = TestServer.start("""
                listeners:
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [http1, h2]
                    tls:
                      certificates:
                        - {cert: "%s", key: "%s"}
                  - {name: admin, address: "127.0.0.1:0", admin: true}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 200, body: "a\\n"}}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key")));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void capture() {
        events.start();
        root().addAppender(events);
        Logger ours = (Logger) LoggerFactory.getLogger(TlsHandshakeFailures.class);
        previousLevel = ours.getLevel();
        ours.setLevel(Level.DEBUG);
    }

    @AfterEach
    void release() {
        root().detachAppender(events);
        ((Logger) LoggerFactory.getLogger(TlsHandshakeFailures.class)).setLevel(previousLevel);
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "plain HTTP, not_tls",
            "garbage, not_tls",
            "broken ClientHello, protocol",
            "ClientHello then close, closed",
            "untrusting client, protocol"})
    void aFailedHandshakeIsOneDebugLineAndACounterNotAStackTrace(String client, String reason) throws Exception {
        long before = failures(reason);
        int port = server.port("tls");
        switch (client) {
            case "plain HTTP" -> sendAndAwaitClose(port, "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            case "garbage" -> sendAndAwaitClose(port, new byte[] {0, 1, 2, 3, (byte) 0xff, (byte) 0xfe, 9, 9, 9, 9, 9, 9});
            // A TLS handshake record whose content is not a ClientHello.
            case "broken ClientHello" -> sendAndAwaitClose(port, "\u0016\u0003\u0001\u0000\u0005garbagegarbage".getBytes(StandardCharsets.ISO_8859_1));
            case "ClientHello then close" -> clientHelloThenClose(port);
            case "untrusting client" -> untrustingClient(port);
            default -> throw new IllegalArgumentException(client);
        }
        Await.until("the failure is counted under " + reason, () -> failures(reason) == before + 1);
        Await.until("the DEBUG line", () -> debugLines().size() == 1);
        String line = debugLines().get(0).getFormattedMessage();
        assertThat(line).contains("listener tls").contains("127.0.0.1:").contains(reason);
        assertThat(warnings()).as("WARN or ERROR events").isEmpty();
        for (ILoggingEvent e : snapshot()) {
            assertThat(e.getThrowableProxy()).as("stack trace logged with '%s'", e.getFormattedMessage()).isNull();
        }
        try (SSLSocket ok = trustingSocket(port)) {
            ok.startHandshake();
            assertThat(ok.getSession().isValid()).as("the listener still serves TLS").isTrue();
        }
    }

    private static void sendAndAwaitClose(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5_000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                // whatever the server answers (a TLS alert at most), then end of stream
            }
        } catch (SocketException reset) {
            // closed with a reset: also the end of the connection
        }
    }

    /** A real ClientHello (from the JDK's engine), then the client goes away before the handshake completes. */
    private static void clientHelloThenClose(int port) throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine("a.test", 443);
        engine.setUseClientMode(true);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] hello = new byte[out.remaining()];
        out.get(hello);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(hello);
            s.getOutputStream().flush();
            s.getInputStream().read(); // the server's first flight has started
        }
    }

    /** The JDK's default trust store does not know the test CA: the client aborts with an alert. */
    private static void untrustingClient(int port) throws IOException {
        try (SSLSocket s = (SSLSocket) SSLSocketFactory.getDefault().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(5_000);
            s.startHandshake();
            throw new AssertionError("handshake succeeded against an unknown CA");
        } catch (SSLException expected) {
            // certificate_unknown sent to the server
        }
    }

    private static SSLSocket trustingSocket(int port) throws Exception {
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(5_000);
        return s;
    }

    private List<ILoggingEvent> snapshot() {
        synchronized (events) {
            return new ArrayList<>(events.list);
        }
    }

    private List<ILoggingEvent> debugLines() {
        List<ILoggingEvent> out = new ArrayList<>();
        for (ILoggingEvent e : snapshot()) {
            if (e.getLevel() == Level.DEBUG && e.getLoggerName().equals(TlsHandshakeFailures.class.getName())) {
                out.add(e);
            }
        }
        return out;
    }

    private List<String> warnings() {
        List<String> out = new ArrayList<>();
        for (ILoggingEvent e : snapshot()) {
            if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
                out.add(e.getLoggerName() + ": " + e.getFormattedMessage());
            }
        }
        return out;
    }

    private static long failures(String reason) {
        Pattern sample = Pattern.compile("^paduraksa_tls_handshake_failures_total\\{listener=\"tls\",reason=\"" + reason + "\"} (\\d+)$",
                Pattern.MULTILINE);
        try (RawHttp c = new RawHttp(server.port("admin"))) {
            String text = c.exchange("GET /metrics HTTP/1.1\r\nHost: admin\r\n\r\n").body();
            Matcher m = sample.matcher(text);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
