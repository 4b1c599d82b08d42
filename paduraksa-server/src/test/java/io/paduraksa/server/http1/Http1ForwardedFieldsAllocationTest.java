package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.RequestState;
import io.paduraksa.net.IpParser;
import io.paduraksa.ops.Metrics;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import java.util.List;
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

    /** An empty 204 from the upstream: no fields, no body. */
    private static final ResponseHead NO_CONTENT = new ResponseHead() {
        @Override
        public int status() {
            return 204;
        }

        @Override
        public int headerCount() {
            return 0;
        }

        @Override
        public CharSequence headerName(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public CharSequence headerValue(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public long contentLength() {
            return -1;
        }

        @Override
        public boolean hasBody() {
            return false;
        }

        @Override
        public boolean isConnectionOption(CharSequence headerName) {
            return false;
        }
    };

    private static void forward(RequestState state, ForwardExchange exchange) {
        UPSTREAM_FIELDS.clear();
        exchange.writeRequestHeaders(UPSTREAM_FIELDS, state.snapshot().forwarding());
        exchange.responseHead(NO_CONTENT, state.snapshot().defaultResponseHeaders(), null);
        exchange.responseEnd(null);
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
        final ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        final EmbeddedChannel channel = new EmbeddedChannel();
        long answered;
        int next;

        State(String peer) {
            for (int i = 0; i < VARIANTS; i++) {
                requests[i] = ("GET /page/" + i + "?q=" + i + " HTTP/1.1\r\n" + HEADERS).getBytes(ISO_8859_1);
            }
            long[] ip = new long[2];
            IpParser.parse(peer, 0, peer.length(), ip);
            boolean trusted = peer.startsWith("203.");
            channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
            channel.attr(ClientInfoHandler.CLIENT_INFO).set(new ClientInfo(ip[0], ip[1], trusted, ClientInfo.NO_COUNTRY));
            SnapshotStore store = new SnapshotStore(snapshot);
            ListenerServices context = new ListenerServices(new Gate(store), Http1ForwardedFieldsAllocationTest::forward,
                    new DateHeader(), null, new Metrics(store, List.of("public"), new boolean[1]), 0);
            Http1Deadlines deadlines = new Http1Deadlines(10_000, 60_000, 0);
            Http1RequestDecoder decoder = new Http1RequestDecoder();
            channel.pipeline().addLast(deadlines, decoder, new Http1GateHandler(context, decoder, deadlines, 8192));
        }

        static void step(State s) {
            s.in.clear().writeBytes(s.requests[s.next++ & (VARIANTS - 1)]);
            s.channel.pipeline().fireChannelRead(s.in.retain());
            s.channel.pipeline().fireChannelReadComplete();
            for (Object out = s.channel.readOutbound(); out != null; out = s.channel.readOutbound()) {
                s.answered++;
                ((ByteBuf) out).release();
            }
        }

        String answerOnce() {
            in.clear().writeBytes(requests[0]);
            channel.pipeline().fireChannelRead(in.retain());
            channel.pipeline().fireChannelReadComplete();
            StringBuilder all = new StringBuilder();
            for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
                all.append(((ByteBuf) out).toString(ISO_8859_1));
                ((ByteBuf) out).release();
            }
            return all.toString();
        }

        void close() {
            channel.finishAndReleaseAll();
            in.release();
            snapshot.release();
        }
    }
}
