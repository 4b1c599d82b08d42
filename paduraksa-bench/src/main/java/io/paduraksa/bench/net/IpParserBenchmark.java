package io.paduraksa.bench.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.net.IpParser;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/** Client-IP parsing (CF-Connecting-IP values) into two longs. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class IpParserBenchmark {

    @Param({"v4", "v6", "mapped"})
    public String shape;

    /**
     * How the value reaches the parser: {@code ascii} an {@link AsciiString} (HTTP/3 view, tests),
     * {@code view} an {@link AsciiView} over a pooled direct buffer (HTTP/1.1 and HTTP/2 views),
     * {@code string} a {@link String} (config, explain).
     */
    @Param({"ascii", "view", "string"})
    public String kind;

    private final long[] out = new long[2];
    private CharSequence text;
    private ByteBuf buf;

    @Setup
    public void setUp() {
        String value = switch (shape) {
            case "v4" -> "203.0.113.195";
            case "v6" -> "2001:db8:85a3::8a2e:370:7334";
            default -> "::ffff:198.51.100.17";
        };
        text = switch (kind) {
            case "ascii" -> AsciiString.of(value);
            case "view" -> {
                buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
                buf.writeCharSequence("x-" + value + "\r\n", StandardCharsets.US_ASCII);
                yield new AsciiView().point(buf, 2, 2 + value.length());
            }
            default -> value;
        };
    }

    @TearDown
    public void tearDown() {
        if (buf != null) {
            buf.release();
        }
    }

    @Benchmark
    public long parse() {
        IpParser.parse(text, 0, text.length(), out);
        return out[0] ^ out[1];
    }
}
