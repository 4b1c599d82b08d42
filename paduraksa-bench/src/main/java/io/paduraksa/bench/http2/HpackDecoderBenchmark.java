package io.paduraksa.bench.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.paduraksa.http2.HpackDecoder;
import io.paduraksa.http2.HpackEncoder;
import io.paduraksa.http2.HpackFieldSink;
import io.paduraksa.http2.Http2FieldValidator;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding a browser's request field block on a warm connection, ours ({@link HpackDecoder} with
 * RFC 9113 validation, fields as positions) against Netty's {@code HpackDecoder} (through
 * {@code DefaultHttp2HeadersDecoder}, validating, as the server uses it today). The connection's
 * first block inserted Chrome's 13 repeating fields (Huffman, incremental indexing); the measured
 * blocks refer to them by dynamic index and send the path (4 rotating) and the cookie as Huffman
 * literals without indexing, so decoding them leaves the table as it was.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class HpackDecoderBenchmark {
    private static final String[] PATHS = {"/", "/index.html", "/static/app.js?v=12", "/api/v1/items/42"};
    private static final String[][] REPEATED = {
            {":authority", "www.example"},
            {"sec-ch-ua", "\"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\""},
            {"sec-ch-ua-mobile", "?0"},
            {"sec-ch-ua-platform", "\"Linux\""},
            {"upgrade-insecure-requests", "1"},
            {"user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"},
            {"accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"},
            {"sec-fetch-site", "same-origin"},
            {"sec-fetch-mode", "navigate"},
            {"sec-fetch-dest", "document"},
            {"referer", "https://www.example/"},
            {"accept-encoding", "gzip, deflate, br, zstd"},
            {"accept-language", "en-US,en;q=0.9"}};
    private static final String COOKIE = "session=0123456789abcdef0123456789abcdef; theme=dark; _ga=GA1.1.123456789.1700000000";

    /** Counts what it is given, as a consumer reading positions would. */
    private static final class Sink implements HpackFieldSink {
        long lengths;

        @Override
        public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
                int staticIndex) {
            lengths += nameLength + valueLength;
        }
    }

    private final ByteBuf[] blocks = new ByteBuf[PATHS.length];
    private HpackDecoder ours;
    private DefaultHttp2HeadersDecoder netty;
    private final Sink sink = new Sink();
    private int next;

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    private static ByteBuf firstBlock() {
        ByteBuf out = Unpooled.buffer();
        out.writeByte(0x82).writeByte(0x87).writeByte(0x84);
        for (String[] f : REPEATED) {
            HpackEncoder.integer(out, 0x40, 6, 0);
            ByteBuf name = ascii(f[0]);
            ByteBuf value = ascii(f[1]);
            HpackEncoder.string(out, name, 0, name.readableBytes(), true);
            HpackEncoder.string(out, value, 0, value.readableBytes(), true);
        }
        return out;
    }

    private static ByteBuf laterBlock(String path) {
        ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(512);
        out.writeByte(0x82).writeByte(0x87);
        ByteBuf p = ascii(path);
        HpackEncoder.literalWithStaticName(out, 4, p, 0, p.readableBytes(), true);
        for (int i = 0; i < REPEATED.length; i++) {
            HpackEncoder.indexed(out, 62 + REPEATED.length - 1 - i);
        }
        ByteBuf cookie = ascii(COOKIE);
        HpackEncoder.literalWithStaticName(out, 32, cookie, 0, cookie.readableBytes(), true);
        return out;
    }

    @Setup(Level.Trial)
    public void setUp() throws Http2Exception {
        ours = new HpackDecoder(4096, 16384, false);
        netty = new DefaultHttp2HeadersDecoder(true, 16384);
        ByteBuf first = firstBlock();
        if (ours.decode(first, 0, first.readableBytes(), Http2FieldValidator.REQUEST, sink) != null) {
            throw new IllegalStateException("first block rejected");
        }
        netty.decodeHeaders(1, first.duplicate());
        for (int i = 0; i < PATHS.length; i++) {
            blocks[i] = laterBlock(PATHS[i]);
            if (ours.decode(blocks[i], 0, blocks[i].readableBytes(), Http2FieldValidator.REQUEST, sink) != null
                    || netty.decodeHeaders(1, blocks[i].duplicate()).size() != 17) {
                throw new IllegalStateException("block rejected");
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (ByteBuf b : blocks) {
            b.release();
        }
    }

    @Benchmark
    public long ours() {
        ByteBuf b = blocks[next++ & 3];
        ours.decode(b, 0, b.readableBytes(), Http2FieldValidator.REQUEST, sink);
        return sink.lengths;
    }

    /** The HPACK layer alone (no RFC 9113 checks): the share of the validation. */
    @Benchmark
    public long oursWithoutValidation() {
        ByteBuf b = blocks[next++ & 3];
        ours.decode(b, 0, b.readableBytes(), Http2FieldValidator.NONE, sink);
        return sink.lengths;
    }

    @Benchmark
    public Object netty() throws Http2Exception {
        ByteBuf b = blocks[next++ & 3];
        try {
            return netty.decodeHeaders(1, b); // the block itself, not a duplicate (an object we would charge to Netty)
        } finally {
            b.readerIndex(0);
        }
    }
}
