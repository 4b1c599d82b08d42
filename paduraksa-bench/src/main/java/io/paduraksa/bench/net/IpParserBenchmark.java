package io.paduraksa.bench.net;

import io.netty.util.AsciiString;
import io.paduraksa.net.IpParser;
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

    private final long[] out = new long[2];
    private AsciiString text;

    @Setup
    public void setUp() {
        text = AsciiString.of(switch (shape) {
            case "v4" -> "203.0.113.195";
            case "v6" -> "2001:db8:85a3::8a2e:370:7334";
            default -> "::ffff:198.51.100.17";
        });
    }

    @Benchmark
    public long parse() {
        IpParser.parse(text, 0, text.length(), out);
        return out[0] ^ out[1];
    }
}
