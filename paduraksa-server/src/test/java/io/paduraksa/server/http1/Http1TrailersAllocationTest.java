package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A forwarded response's trailers written to an HTTP/1.1 client (gRPC's status travels there): the
 * upstream's head without a length goes out chunked, one body chunk, then the last chunk with the
 * trailer fields a client may receive (RFC 9110 6.5.1 drops the framing one): 0 B per response on
 * the real HTTP/1.1 handler. Every call must write the same bytes as the checked first one.
 */
@Tag("allocation")
class Http1TrailersAllocationTest {
    private static final String YAML = """
            clusters:
              app: {destinations: [{url: "http://192.0.2.10:9001"}]}
            hosts:
              - names: [a.test]
                routes: [{path: /, forward: app}]
            """;
    private static final byte[] REQUEST = "POST /pkg.Service/Call HTTP/1.1\r\nHost: a.test\r\nTE: trailers\r\n\r\n"
            .getBytes(ISO_8859_1);
    static final ByteBuf BODY = PooledByteBufAllocator.DEFAULT.directBuffer(16).writeBytes("hello".getBytes(ISO_8859_1));

    /** A 200 from the upstream with a body of unknown length: the client gets it chunked. */
    private static final ResponseHead GRPC_HEAD = new ResponseHead() {
        private final AsciiString contentType = AsciiString.cached("content-type");
        private final AsciiString grpc = AsciiString.cached("application/grpc");

        @Override
        public int status() {
            return 200;
        }

        @Override
        public int headerCount() {
            return 1;
        }

        @Override
        public CharSequence headerName(int index) {
            return contentType;
        }

        @Override
        public CharSequence headerValue(int index) {
            return grpc;
        }

        @Override
        public long contentLength() {
            return -1;
        }

        @Override
        public boolean hasBody() {
            return true;
        }

        @Override
        public boolean isConnectionOption(CharSequence headerName) {
            return false;
        }
    };

    /** gRPC's trailer fields, and one a client must not get. */
    static final class Trailers implements ResponseTrailers {
        private static final AsciiString[] NAMES = {AsciiString.cached("grpc-status"), AsciiString.cached("grpc-message"),
            AsciiString.cached("content-length")};
        private static final AsciiString[] VALUES = {AsciiString.cached("0"), AsciiString.cached("ok"), AsciiString.cached("5")};
        long released;

        @Override
        public int count() {
            return NAMES.length;
        }

        @Override
        public CharSequence name(int index) {
            return NAMES[index];
        }

        @Override
        public CharSequence value(int index) {
            return VALUES[index];
        }

        @Override
        public void release() {
            released++;
        }
    }

    static final Trailers TRAILERS = new Trailers();

    /** The forwarder's part after the upstream answered: head, one chunk, the end with trailers. */
    private static void forward(RequestState state, ForwardExchange exchange) {
        exchange.responseHead(GRPC_HEAD, state.snapshot().defaultResponseHeaders(), null);
        exchange.responseBody(BODY.retainedDuplicate());
        exchange.responseEnd(TRAILERS);
    }

    private Snapshot snapshot;
    private ForwardedChannel channel;
    private long calls;
    private long sameBytes;
    private long expectedBytes;

    @AfterEach
    void close() {
        if (channel != null) {
            channel.close();
        }
        if (snapshot != null) {
            snapshot.release();
        }
    }

    @Test
    void trailersWrittenToAnHttp1ClientAllocateNothing() {
        snapshot = CompiledFixtures.compile("trailers.yaml", YAML);
        channel = new ForwardedChannel(snapshot, "198.51.100.9", false, Http1TrailersAllocationTest::forward);
        String answer = channel.exchangeText(REQUEST);
        assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nTransfer-Encoding: chunked\r\n")
                .endsWith("\r\n5\r\nhello\r\n0\r\ngrpc-status: 0\r\ngrpc-message: ok\r\n\r\n")
                .doesNotContain("content-length: 5");
        expectedBytes = answer.length();
        // Five pooled buffers per response: a longer warm-up than the default lets Netty's pools fill up.
        AllocationAssert.Result r = AllocationAssert.assertZero("trailers to an HTTP/1.1 client", this,
                Http1TrailersAllocationTest::step, 200_000, AllocationAssert.DEFAULT_ITERATIONS);
        System.out.println(r + "; " + calls + " responses of " + expectedBytes + " B");
        assertThat(sameBytes).as("every response as long as the checked one").isEqualTo(calls).isPositive();
        assertThat(TRAILERS.released).isZero(); // the forwarder releases them, not the client side
    }

    private static void step(Http1TrailersAllocationTest t) {
        t.channel.exchange(REQUEST);
        t.calls++;
        if (t.channel.lastBytes == t.expectedBytes) {
            t.sameBytes++;
        }
    }
}
