package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.http2.Http2RequestBlock;
import io.paduraksa.proxy.http2.Http2RequestBlocks;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/1.1 client's fields HPACK-encoded into an HTTP/2 upstream's field block
 * ({@link Http1Exchange#offerRequestFields} into {@link Http2RequestBlock}): 0 B per request, so 0 B
 * per field. With Netty's HPACK encoder behind a header map it cost 1,416 B per request for these
 * eight fields (two AsciiStrings and arrays for a name, one for a value, Netty's header entry), and
 * 0 B only through a per-loop cache of immutable texts. Requests rotate four user agents and sixteen paths;
 * every call must have put the seven surviving client fields into the block (Connection, the field
 * it names, TE and the identity fields dropped), and the client must have got each answer.
 */
@Tag("allocation")
class Http1ToHttp2FieldsAllocationTest {
    private static final int VARIANTS = 16;
    private static final int CLIENT_FIELDS = 7;
    private static final String YAML = """
            clusters:
              app: {destinations: [{url: "http://192.0.2.10:9001"}], protocol: h2c}
            hosts:
              - names: [a.test]
                routes: [{path: /, forward: app}]
            """;
    /** The header block the stand-in forwarder copies into, as an HTTP/2 upstream connection holds one. */
    static final Http2RequestBlock BLOCK = new Http2RequestBlock();
    static long copies;
    static long fieldsCopied;
    /** When set, the next copy's fields are kept here as text (outside the measured calls only). */
    static List<String> recorded;

    /** The forwarder's part: the client's fields into the block (cleared after, as the upstream stream does), then a 204. */
    private static void forward(RequestState state, ForwardExchange exchange) {
        BLOCK.start();
        exchange.offerRequestFields(BLOCK, state.snapshot().forwarding());
        copies++;
        fieldsCopied += BLOCK.size();
        if (recorded != null) {
            recorded.addAll(Http2RequestBlocks.decode(BLOCK.block()));
        }
        if (BLOCK.size() != CLIENT_FIELDS) {
            throw new AssertionError("copied " + BLOCK.size() + " fields");
        }
        ForwardedChannel.answerNoContent(state, exchange);
    }

    private State state;

    @AfterEach
    void close() {
        if (state != null) {
            state.close();
        }
    }

    @Test
    void copyingAnHttp1HeadIntoAnHttp2BlockAllocatesNothing() {
        state = new State();
        List<String> fields = state.copyOnce();
        assertThat(fields).containsExactly("user-agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0.0.0",
                "accept: text/html,application/xhtml+xml", "accept-language: en-GB,en;q=0.9", "accept-encoding: gzip, br",
                "cache-control: no-cache", "x-custom: Kept As Sent", "cookie: session=abc123");
        copies = 0;
        fieldsCopied = 0;
        state.answered = 0;
        AllocationAssert.Result r = AllocationAssert.assertZero("HTTP/1.1 fields into an HTTP/2 block", state, State::step);
        System.out.println(r + "; " + fieldsCopied + " fields copied in " + copies + " requests");
        assertThat(copies).isEqualTo(state.calls).isPositive();
        assertThat(fieldsCopied).isEqualTo(copies * CLIENT_FIELDS);
        assertThat(state.answered).isEqualTo(state.calls);
    }

    static final class State {
        final Snapshot snapshot = CompiledFixtures.compile("h1-to-h2.yaml", YAML);
        final byte[][] requests = new byte[VARIANTS][];
        final ForwardedChannel channel;
        long calls;
        long answered;
        int next;

        State() {
            for (int i = 0; i < VARIANTS; i++) {
                requests[i] = ("GET /page/" + i + " HTTP/1.1\r\nHost: a.test\r\n"
                        + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/13" + (i & 3) + ".0.0.0\r\n"
                        + "Accept: text/html,application/xhtml+xml\r\nAccept-Language: en-GB,en;q=0.9\r\n"
                        + "Accept-Encoding: gzip, br\r\nConnection: keep-alive, X-Hop\r\nX-Hop: dropped\r\n"
                        + "Cache-Control: no-cache\r\nX-Real-IP: 198.51.100.1\r\nX-Custom: Kept As Sent\r\n"
                        + "Cookie: session=abc123\r\nTE: trailers\r\n\r\n").getBytes(ISO_8859_1);
            }
            channel = new ForwardedChannel(snapshot, "198.51.100.9", false, Http1ToHttp2FieldsAllocationTest::forward);
        }

        /** One request through the real HTTP/1.1 handler; the stand-in forwarder copies its fields. */
        static void step(State s) {
            s.calls++;
            s.answered += s.channel.exchange(s.requests[s.next++ & (VARIANTS - 1)]);
        }

        /** The fields of request 0 as the block held them (read before the forwarder clears it). */
        List<String> copyOnce() {
            recorded = new ArrayList<>();
            try {
                channel.exchange(requests[0]);
                return recorded;
            } finally {
                recorded = null;
            }
        }

        void close() {
            channel.close();
            snapshot.release();
        }
    }
}
