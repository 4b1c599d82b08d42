package io.paduraksa.server.connection;

import io.paduraksa.net.IpParser;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.paduraksa.gate.ClientInfo;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PROXY protocol over real loopback connections: header, then request bytes, through to ClientInfo. */
class ProxyProtocolHandlerTest {
    private static final long LOOPBACK_LOW = 0x0000_FFFF_7F00_0001L; // ::ffff:127.0.0.1
    private static final String REQUEST = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
    private static EventLoopGroup group;

    @BeforeAll
    static void startLoop() {
        group = LoopbackServer.TRANSPORT.newEventLoopGroup(1);
    }

    @AfterAll
    static void stopLoop() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static LoopbackServer server(AddressMatcher senders, AddressMatcher trustedProxies, long timeoutMillis)
            throws InterruptedException {
        return LoopbackServer.start(group, p -> p.addLast(new ProxyProtocolHandler(senders, timeoutMillis),
                new ClientInfoHandler(trustedProxies, CountryLookup.NONE, false)));
    }

    @Test
    void v1HeaderAndRequestInOneWriteKeepTheRequestBytesAndTakeTheSourceAddress() throws Exception {
        try (LoopbackServer server = server(AddressMatcher.ALL, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, ascii("PROXY TCP4 192.0.2.10 198.51.100.1 56324 443\r\n" + REQUEST));

            assertThat(LoopbackServer.readEcho(socket, REQUEST.length())).isEqualTo(REQUEST);
            ClientInfo info = server.clients.poll(5, TimeUnit.SECONDS);
            assertThat(IpParser.format(info.ipHigh(), info.ipLow())).isEqualTo("192.0.2.10");
            assertThat(info.isTrustedProxy()).isFalse();
            assertThat(info.country()).isEqualTo(ClientInfo.NO_COUNTRY);
            assertThat(server.pipelines.take()).containsExactly("Recorder");
        }
    }

    @Test
    void v2HeaderWithIpv6SourceAndRequestInOneWrite() throws Exception {
        byte[] source = java.net.InetAddress.getByName("2001:db8::7").getAddress();
        byte[] destination = java.net.InetAddress.getByName("2001:db8::1").getAddress();
        try (LoopbackServer server = server(AddressMatcher.ALL, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, concat(v2Header(0x21, 0x21, source, destination), ascii(REQUEST)));

            assertThat(LoopbackServer.readEcho(socket, REQUEST.length())).isEqualTo(REQUEST);
            ClientInfo info = server.clients.poll(5, TimeUnit.SECONDS);
            assertThat(info.ipHigh()).isEqualTo(0x20010db800000000L);
            assertThat(info.ipLow()).isEqualTo(7L);
        }
    }

    @Test
    void v2LocalCommandKeepsThePeerAddress() throws Exception {
        try (LoopbackServer server = server(AddressMatcher.ALL, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, concat(v2Header(0x20, 0x00, new byte[0], new byte[0]), ascii(REQUEST)));

            assertThat(LoopbackServer.readEcho(socket, REQUEST.length())).isEqualTo(REQUEST);
            assertPeerIsLoopback(server.clients.poll(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void v1UnknownKeepsThePeerAddress() throws Exception {
        try (LoopbackServer server = server(AddressMatcher.ALL, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, ascii("PROXY UNKNOWN\r\n" + REQUEST));

            assertThat(LoopbackServer.readEcho(socket, REQUEST.length())).isEqualTo(REQUEST);
            assertPeerIsLoopback(server.clients.poll(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void headerSplitOverSeveralWritesIsAssembled() throws Exception {
        try (LoopbackServer server = server(AddressMatcher.ALL, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, ascii("PROX"));
            Thread.sleep(50);
            write(socket, ascii("Y TCP4 203.0.113.5 198.51.100.1 4000 "));
            Thread.sleep(50);
            write(socket, ascii("443\r\n" + REQUEST));

            assertThat(LoopbackServer.readEcho(socket, REQUEST.length())).isEqualTo(REQUEST);
            ClientInfo info = server.clients.poll(5, TimeUnit.SECONDS);
            assertThat(IpParser.format(info.ipHigh(), info.ipLow())).isEqualTo("203.0.113.5");
        }
    }

    @Test
    void trustedProxiesAreJudgedOnTheAddressFromTheHeader() throws Exception {
        AddressMatcher cloudflare = (high, low) -> high == 0 && (low & 0xFFFF_FFFF_FFFF_FF00L) == 0x0000_FFFF_C633_6400L;
        try (LoopbackServer server = server(AddressMatcher.ALL, cloudflare, 5_000);
             Socket socket = server.connect()) {
            write(socket, ascii("PROXY TCP4 198.51.100.20 198.51.100.1 56324 443\r\n" + REQUEST));

            assertThat(LoopbackServer.readEcho(socket, REQUEST.length())).isEqualTo(REQUEST);
            assertThat(server.clients.poll(5, TimeUnit.SECONDS).isTrustedProxy()).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "trusted sender without a header  | true  | GET / HTTP/1.1\\r\\nHost: a.test\\r\\n\\r\\n",
            "trusted sender, malformed v1     | true  | PROXY TCP4 not-an-ip 198.51.100.1 1 2\\r\\n",
            "trusted sender, TLS hello        | true  | \\u0016\\u0003\\u0001\\u0002\\u0000\\u0001\\u0000\\u0001\\u00fc\\u0003\\u0003abcdefghijklmnop",
            "forged v1 from an untrusted peer | false | PROXY TCP4 192.0.2.10 198.51.100.1 56324 443\\r\\n",
            "forged v2 from an untrusted peer | false | \\r\\n\\r\\n\\u0000\\r\\nQUIT\\n\\u0021\\u0011\\u0000\\u000c",
    })
    void connectionIsClosedBeforeAnyByteReachesTheProtocol(String what, boolean trusted, String escaped)
            throws Exception {
        try (LoopbackServer server = server(trusted ? AddressMatcher.ALL : AddressMatcher.NONE, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, latin1(unescape(escaped)));

            assertThat(LoopbackServer.closedByServer(socket)).as(what).isTrue();
            assertThat(server.awaitClosed()).isNotNull();
            assertThat(server.reads).as(what).hasValue(0);
        }
    }

    @Test
    void trustedSenderThatSendsNothingIsClosedAfterTheTimeout() throws Exception {
        try (LoopbackServer server = server(AddressMatcher.ALL, AddressMatcher.NONE, 200);
             Socket socket = server.connect()) {
            long start = System.nanoTime();

            assertThat(LoopbackServer.closedByServer(socket)).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(150L, 4_000L);
            assertThat(server.reads).hasValue(0);
        }
    }

    @Test
    void untrustedPeerWithoutHeaderIsServedAsADirectClient() throws Exception {
        try (LoopbackServer server = server(AddressMatcher.NONE, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, ascii(REQUEST));

            assertThat(LoopbackServer.readEcho(socket, REQUEST.length())).isEqualTo(REQUEST);
            assertPeerIsLoopback(server.clients.poll(5, TimeUnit.SECONDS));
            assertThat(server.pipelines.take()).containsExactly("Recorder");
        }
    }

    @Test
    void untrustedPeerWhoseFirstBytesCouldStartASignatureIsHeldUntilTheyCannot() throws Exception {
        String preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"; // h2c prior knowledge shares "PR" with "PROXY"
        try (LoopbackServer server = server(AddressMatcher.NONE, AddressMatcher.NONE, 5_000);
             Socket socket = server.connect()) {
            write(socket, ascii("PR"));
            Thread.sleep(50);
            write(socket, ascii(preface.substring(2)));

            assertThat(LoopbackServer.readEcho(socket, preface.length())).isEqualTo(preface);
            assertPeerIsLoopback(server.clients.poll(5, TimeUnit.SECONDS));
        }
    }

    private static void assertPeerIsLoopback(ClientInfo info) {
        assertThat(info).isNotNull();
        assertThat(info.ipHigh()).isZero();
        assertThat(info.ipLow()).isEqualTo(LOOPBACK_LOW);
    }

    /** PROXY v2: signature, version/command, family/transport, length, addresses, ports 56324 and 443. */
    static byte[] v2Header(int versionCommand, int familyTransport, byte[] source, byte[] destination) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
        out.write(versionCommand);
        out.write(familyTransport);
        int length = source.length == 0 ? 0 : source.length + destination.length + 4;
        out.write(length >>> 8);
        out.write(length & 0xFF);
        if (length > 0) {
            out.writeBytes(source);
            out.writeBytes(destination);
            out.writeBytes(new byte[] {(byte) 0xDC, 0x04, 0x01, (byte) 0xBB});
        }
        return out.toByteArray();
    }

    private static String unescape(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && s.charAt(i + 1) == 'r') {
                sb.append('\r');
                i++;
            } else if (c == '\\' && s.charAt(i + 1) == 'n') {
                sb.append('\n');
                i++;
            } else if (c == '\\' && s.charAt(i + 1) == 'u') {
                sb.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static void write(Socket socket, byte[] bytes) throws Exception {
        OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
