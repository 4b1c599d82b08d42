package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AsciiString;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.testing.AllocationAssert;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Steady state: 0 B per request, both through a real pipeline ({@link EmbeddedChannel}, driven with
 * {@code pipeline().fireChannelRead} because {@code writeInbound(Object...)} allocates its varargs
 * array) and through the channel-free {@link Http1RequestDecoder#decodeOnce} core. The inbound
 * buffer comes from the pooled allocator, as on a server, and is refilled per iteration; the
 * consumer reads the host and a header (as the gate would) and releases everything.
 */
@Tag("allocation")
class Http1RequestDecoderAllocationTest {
    private static final int VARIANTS = 64;
    /**
     * Longer than AllocationAssert's default: on this shared 2-core machine a one-off 100-1,200 B
     * call showed up at about 118k calls in some runs (also with -XX:-DoEscapeAnalysis, so not a
     * scalar-replaced object coming back), always during JIT warm-up; in long runs after it, every
     * call over 400k was 0 B.
     */
    private static final int WARMUP = 300_000;
    private static final int ITERATIONS = AllocationAssert.DEFAULT_ITERATIONS;
    private static final String CHROME_HEADERS = "Host: www.example\r\n"
            + "Connection: keep-alive\r\n"
            + "sec-ch-ua: \"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\"\r\n"
            + "sec-ch-ua-mobile: ?0\r\n"
            + "sec-ch-ua-platform: \"Linux\"\r\n"
            + "Upgrade-Insecure-Requests: 1\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n"
            + "Sec-Fetch-Site: same-origin\r\n"
            + "Sec-Fetch-Mode: navigate\r\n"
            + "Sec-Fetch-Dest: document\r\n"
            + "Referer: https://www.example/\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
            + "Accept-Language: en-US,en;q=0.9\r\n"
            + "Cookie: session=0123456789abcdef0123456789abcdef; theme=dark; _ga=GA1.1.123456789.1700000000\r\n";

    private State state;

    @AfterEach
    void release() {
        if (state != null) {
            state.close();
        }
    }

    @Test
    void minimalGetDirect() {
        state = new State(requests(i -> "GET /p/" + i + "?q=" + (i * 7) + " HTTP/1.1\r\nHost: a.test\r\n\r\n"), false);
        report(AllocationAssert.assertZero("minimal GET, decodeOnce", state, State::stepDirect, WARMUP, ITERATIONS));
    }

    @Test
    void browserLikeGetDirect() {
        state = new State(requests(i -> "GET /shop/item-" + i + "?ref=home&page=" + i + " HTTP/1.1\r\n" + CHROME_HEADERS + "\r\n"), false);
        report(AllocationAssert.assertZero("browser-like GET, decodeOnce", state, State::stepDirect, WARMUP, ITERATIONS));
    }

    @Test
    void minimalGetThroughPipeline() {
        state = new State(requests(i -> "GET /p/" + i + "?q=" + (i * 7) + " HTTP/1.1\r\nHost: a.test\r\n\r\n"), true);
        report(AllocationAssert.assertZero("minimal GET, EmbeddedChannel", state, State::stepPipeline, WARMUP, ITERATIONS));
    }

    @Test
    void browserLikeGetThroughPipeline() {
        state = new State(requests(i -> "GET /shop/item-" + i + "?ref=home&page=" + i + " HTTP/1.1\r\n" + CHROME_HEADERS + "\r\n"), true);
        report(AllocationAssert.assertZero("browser-like GET, EmbeddedChannel", state, State::stepPipeline, WARMUP, ITERATIONS));
    }

    @Test
    void pipelinedBodiesThroughPipeline() {
        state = new State(requests(i -> "POST /api/" + i + " HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\nhello"
                + "PUT /up/" + i + " HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: " + i + "\r\n\r\n"
                + "GET /p/" + i + " HTTP/1.1\r\n" + CHROME_HEADERS + "\r\n"), true);
        report(AllocationAssert.assertZero("pipelined POST + chunked PUT + GET, EmbeddedChannel", state, State::stepPipeline, WARMUP, ITERATIONS));
        assertThat(state.consumer.bodyBytes).isPositive();
    }

    private static void report(AllocationAssert.Result result) {
        System.out.println(result);
    }

    private interface RequestText {
        String of(int i);
    }

    private static byte[][] requests(RequestText text) {
        byte[][] out = new byte[VARIANTS][];
        for (int i = 0; i < VARIANTS; i++) {
            out[i] = text.of(i).getBytes(ISO_8859_1);
        }
        return out;
    }

    /** Reads what a gate reads, then releases: no Strings. */
    static final class Consumer extends ChannelInboundHandlerAdapter {
        private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
        long heads;
        long checksum;
        long bodyBytes;
        long ends;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            accept(msg);
        }

        void accept(Object msg) {
            if (msg instanceof Http1RequestHead head) {
                heads++;
                AsciiView host = head.host();
                checksum += host.length() == 0 ? 0 : host.charAt(0);
                checksum += head.target().charAt(head.target().length() - 1);
                checksum += head.findHeader(USER_AGENT);
                head.release();
            } else if (msg instanceof ByteBuf buf) {
                bodyBytes += buf.readableBytes();
                buf.release();
            } else if (msg == Http1RequestEnd.INSTANCE) {
                ends++;
            } else {
                throw new AssertionError("unexpected " + msg);
            }
        }
    }

    static final class State {
        final byte[][] requests;
        final ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(16 * 1024);
        final Consumer consumer = new Consumer();
        final Http1RequestDecoder decoder = new Http1RequestDecoder();
        final List<Object> out = new ArrayList<>();
        final EmbeddedChannel channel;
        int next;

        State(byte[][] requests, boolean pipeline) {
            this.requests = requests;
            this.channel = pipeline ? new EmbeddedChannel(decoder, consumer) : null;
        }

        private ByteBuf refill() {
            byte[] request = requests[next++ & (VARIANTS - 1)];
            in.clear().writeBytes(request);
            return in;
        }

        /** The pipeline path: the decoder releases the buffer it took, so it gets one extra reference. */
        static void stepPipeline(State s) {
            s.channel.pipeline().fireChannelRead(s.refill().retain());
            if (s.in.refCnt() != 1) {
                throw new AssertionError("decoder kept the inbound buffer: refCnt " + s.in.refCnt());
            }
        }

        static void stepDirect(State s) {
            ByteBuf in = s.refill();
            List<Object> out = s.out;
            while (in.isReadable()) {
                int before = in.readableBytes();
                s.decoder.decodeOnce(in, out);
                for (int i = 0; i < out.size(); i++) {
                    s.consumer.accept(out.get(i));
                }
                boolean progress = !out.isEmpty() || before != in.readableBytes();
                out.clear();
                if (!progress) {
                    throw new AssertionError("decoder stalled with " + in.readableBytes() + " bytes");
                }
            }
        }

        void close() {
            if (channel != null) {
                channel.finishAndReleaseAll();
            }
            in.release();
        }
    }
}
