package io.paduraksa.bench.host;

import io.netty.util.AsciiString;
import io.paduraksa.host.HostTable;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.CompiledFixtures;
import java.net.IDN;
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

/** Host lookup on the 520-entry table, raw header bytes in place (AsciiString, as HTTP/2 hands them over). */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class HostTableBenchmark {

    @Param({"exact", "upper", "port", "idn", "wildcard", "unknown"})
    public String shape;

    private Snapshot snapshot;
    private HostTable<CompiledHost> table;
    private AsciiString host;

    @Setup
    public void setUp() {
        snapshot = CompiledFixtures.synthetic();
        table = snapshot.hosts();
        host = AsciiString.of(switch (shape) {
            case "exact" -> "h123.test";
            case "upper" -> "H123.TEST";
            case "port" -> "h123.test:8443";
            case "idn" -> IDN.toASCII("bücher495.test");
            case "wildcard" -> "a.w3.test";
            default -> "nope.example.org";
        });
    }

    @TearDown
    public void tearDown() {
        snapshot.release();
    }

    @Benchmark
    public CompiledHost find() {
        return table.find(host);
    }
}
