package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A forwarded HTTP/1.1 request's client side on an {@link EmbeddedChannel} with the pooled
 * allocator: the client's fields copied for the upstream through the identity rules (from an
 * untrusted peer and from a trusted proxy) and the response head written with the echoed request
 * id: 0 B per request. The forwarder is a stand-in that answers at once with an empty 204 head,
 * so the upstream side is not measured here (GateAllocationIT and the forwarding ITs cover it).
 */
@Tag("allocation")
class Http1ForwardedFieldsAllocationTest {
    private static final int VARIANTS = 16;
    private static final String YAML = """
            client_ip: {trusted_proxies: [203.0.113.0/24]}
            forwarding: {identity_headers_from_trusted_proxies: [True-Client-IP]}
            clusters:
              app: {destinations: [{url: "http://192.0.2.10:9001"}]}
            hosts:
              - names: [a.test]
                routes: [{path: /, forward: app}]
            """;
    private static final String HEADERS = "Host: a.test\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0\r\n"
            + "Accept: text/html\r\n"
            + "X-Real-IP: 198.51.100.1\r\n"
            + "True-Client-IP: 198.51.100.2\r\n"
            + "CF_Connecting_IP: 198.51.100.3\r\n"
            + "Forwarded: for=198.51.100.4\r\n"
            + "X-Custom: kept\r\n"
            + "Cookie: session=abc123\r\n\r\n";
    /** What the stand-in forwarder copied for the upstream last (the client's surviving fields). */
    static final ByteBuf UPSTREAM_FIELDS = Unpooled.buffer(4096);

    /** Copies the offered lines as the HTTP/1.1 upstream's head writer does (their bytes, then CRLF). */
    private static final FieldSink LINES = new FieldSink() {
        @Override
        public void line(ByteBuf head, int nameStart, int nameEnd, int valueStart, int valueEnd) {
            UPSTREAM_FIELDS.writeBytes(head, nameStart, valueEnd - nameStart).writeByte('\r').writeByte('\n');
        }

        @Override
        public void field(CharSequence name, CharSequence value) {
            throw new AssertionError("an HTTP/1.1 client offers lines");
        }

        @Override
        public void name(AsciiString http1Name, AsciiString lowerName) {
            throw new AssertionError("no computed fields here");
        }

        @Override
        public void value(CharSequence text) {
            throw new AssertionError("no computed fields here");
        }

        @Override
        public void value(byte[] bytes, int from, int length) {
            throw new AssertionError("no computed fields here");
        }

        @Override
        public void end() {
            throw new AssertionError("no computed fields here");
        }
    };

    private static void forward(RequestState state, ForwardExchange exchange) {
        UPSTREAM_FIELDS.clear();
        exchange.offerRequestFields(LINES, state.snapshot().forwarding());
        ForwardedChannel.answerNoContent(state, exchange);
    }

    private State state;

    @AfterEach
    void close() {
        if (state != null) {
            state.close();
        }
    }

    @ParameterizedTest(name = "from {0}")
    @ValueSource(strings = {"198.51.100.9", "203.0.113.9"})
    void identityRulesAndTheEchoedIdAllocateNothing(String peer) {
        state = new State(peer);
        boolean trusted = peer.startsWith("203.");
        String answer = state.answerOnce();
        assertThat(answer).startsWith("HTTP/1.1 204 ").containsPattern("\r\nX-Request-Id: [0-9a-f]{16}\r\n");
        String upstream = UPSTREAM_FIELDS.toString(ISO_8859_1);
        assertThat(upstream).contains("X-Custom: kept\r\n").doesNotContain("X-Real-IP", "CF_Connecting_IP", "Forwarded");
        if (trusted) {
            assertThat(upstream).contains("True-Client-IP: 198.51.100.2\r\n");
        } else {
            assertThat(upstream).doesNotContain("True-Client-IP");
        }
        System.out.println(AllocationAssert.assertZero("forwarded, peer " + peer, state, State::step));
        assertThat(state.answered).isPositive();
    }

    static final class State {
        final Snapshot snapshot = CompiledFixtures.compile("forwarded.yaml", YAML);
        final byte[][] requests = new byte[VARIANTS][];
        final ForwardedChannel channel;
        long answered;
        int next;

        State(String peer) {
            for (int i = 0; i < VARIANTS; i++) {
                requests[i] = ("GET /page/" + i + "?q=" + i + " HTTP/1.1\r\n" + HEADERS).getBytes(ISO_8859_1);
            }
            channel = new ForwardedChannel(snapshot, peer, peer.startsWith("203."), Http1ForwardedFieldsAllocationTest::forward);
        }

        static void step(State s) {
            s.answered += s.channel.exchange(s.requests[s.next++ & (VARIANTS - 1)]);
        }

        String answerOnce() {
            return channel.exchangeText(requests[0]);
        }

        void close() {
            channel.close();
            snapshot.release();
        }
    }
}
