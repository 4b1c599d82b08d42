package io.paduraksa.proxy.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.testing.AllocationAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The upstream response decoder, as the forwarder runs it (pooled inbound buffers, the one recycled
 * head, body slices, trailers): 0 B per response once warm. Every call must produce one head of
 * the expected status, the whole body and one end (and the trailers, where the response has them),
 * counted by a consumer that releases what it gets, so the test cannot pass on a path that did
 * nothing.
 */
@Tag("allocation")
class Http1ResponseDecoderAllocationTest {
    private static final String HEAD = "HTTP/1.1 200 OK\r\nDate: Tue, 01 Dec 2026 07:00:00 GMT\r\nServer: origin\r\n"
            + "Content-Type: application/json\r\nCache-Control: no-cache\r\nVary: Accept-Encoding\r\n";
    private static final String BODY = "{\"items\":[1,2,3,4,5,6,7,8,9,10],\"next\":\"/api/v1/items?page=3\"}";

    private State state;

    @AfterEach
    void close() {
        if (state != null) {
            state.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "fixed length|200|0",
        "chunked in three chunks|200|0",
        "chunked with trailers (gRPC-like)|200|2",
        "204 without a body|204|0",
    })
    void decodesResponsesWithoutAllocating(String what, int status, int trailerFields) throws Exception {
        String response = switch (what) {
            case "fixed length" -> HEAD + "Content-Length: " + BODY.length() + "\r\n\r\n" + BODY;
            case "chunked in three chunks" -> HEAD + "Transfer-Encoding: chunked\r\n\r\n" + chunked(BODY) + "0\r\n\r\n";
            case "chunked with trailers (gRPC-like)" -> HEAD + "Transfer-Encoding: chunked\r\n\r\n" + chunked(BODY)
                    + "0\r\ngrpc-status: 0\r\ngrpc-message: ok\r\n\r\n";
            default -> "HTTP/1.1 204 No Content\r\nDate: Tue, 01 Dec 2026 07:00:00 GMT\r\nServer: origin\r\n\r\n";
        };
        int bodyBytes = status == 204 ? 0 : BODY.length();
        state = new State(response.getBytes(ISO_8859_1));
        State.step(state);
        assertThat(state.counter.lastStatus).isEqualTo(status);
        AllocationAssert.Result r = AllocationAssert.assertZero(what, state, State::step);
        System.out.println(r);
        long calls = state.calls;
        Counter c = state.counter;
        assertThat(c.heads).as("heads of status %d", status).isEqualTo(calls);
        assertThat(c.statusMatches).isEqualTo(calls);
        assertThat(c.ends).as("ends").isEqualTo(calls);
        assertThat(c.bodyBytes).as("body bytes").isEqualTo(calls * bodyBytes);
        assertThat(c.trailerFields).as("trailer fields").isEqualTo(calls * trailerFields);
        assertThat(c.other).as("errors or unexpected messages").isZero();
        assertThat(r.iterations()).isPositive();
    }

    private static String chunked(String body) {
        int a = body.length() / 3;
        int b = 2 * body.length() / 3;
        return Integer.toHexString(a) + "\r\n" + body.substring(0, a) + "\r\n"
                + Integer.toHexString(b - a) + ";ext=1\r\n" + body.substring(a, b) + "\r\n"
                + Integer.toHexString(body.length() - b) + "\r\n" + body.substring(b) + "\r\n";
    }

    /** Counts what the decoder emits and releases it, as the upstream handler does; allocation-free. */
    static final class Counter extends ChannelInboundHandlerAdapter {
        int expectedStatus;
        long heads;
        long statusMatches;
        long ends;
        long bodyBytes;
        long trailerFields;
        long other;
        int lastStatus;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Http1ResponseHead head) {
                heads++;
                lastStatus = head.status();
                if (head.status() == expectedStatus) {
                    statusMatches++;
                }
                head.release();
            } else if (msg instanceof Http1ResponseTrailers trailers) {
                trailerFields += trailers.count();
                trailers.release();
            } else if (msg instanceof ByteBuf buf) {
                bodyBytes += buf.readableBytes();
                buf.release();
            } else if (msg == Http1ResponseEnd.INSTANCE) {
                ends++;
            } else {
                other++;
            }
        }
    }

    static final class State {
        final byte[] response;
        final EmbeddedChannel channel = new EmbeddedChannel();
        final Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        final Counter counter = new Counter();
        final ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(1024);
        long calls;

        State(byte[] response) {
            this.response = response;
            channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
            channel.pipeline().addLast(decoder, counter);
            counter.expectedStatus = Integer.parseInt(new String(response, 9, 3, ISO_8859_1));
        }

        /**
         * One expected response, its bytes in one pooled buffer (as a socket read hands them over),
         * decoded. The buffer is reused (retained per read, as Http1GateHandlerAllocationTest does),
         * so that the allocator's own rare work (a thread-cache trim every few thousand buffers, then
         * a new chunk: ~47 KB once, seen here) is not charged to the decoder.
         */
        static void step(State s) throws Exception {
            s.decoder.expectResponse(false, false);
            s.in.clear().writeBytes(s.response);
            s.channel.pipeline().fireChannelRead(s.in.retain());
            s.channel.pipeline().fireChannelReadComplete();
            s.calls++;
        }

        void close() {
            channel.finishAndReleaseAll();
            in.release();
        }
    }
}
