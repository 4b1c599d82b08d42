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

/**
 * Host lookup on the 520-entry table, raw header bytes in place (AsciiString, as HTTP/2 hands them
 * over). {@code catch-all} looks up the unknown name in the same table plus the catch-all entry, so
 * the miss walks the whole name once (validating it and probing the wildcards per label).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class HostTableBenchmark {

    @Param({"exact", "upper", "port", "idn", "wildcard", "deep", "unknown", "catch-all"})
    public String shape;

    private Snapshot snapshot;
    private HostTable<CompiledHost> table;
    private AsciiString host;

    @Setup
    public void setUp() {
        snapshot = CompiledFixtures.synthetic();
        table = shape.equals("catch-all") ? withCatchAll(snapshot) : snapshot.hosts();
        host = AsciiString.of(switch (shape) {
            case "exact" -> "h123.test";
            case "upper" -> "H123.TEST";
            case "port" -> "h123.test:8443";
            case "idn" -> IDN.toASCII("bücher495.test");
            case "wildcard" -> "a.w3.test";
            case "deep" -> "a.b.c.d.w3.test";
            default -> "nope.example.org";
        });
    }

    /** The snapshot's names, each for its host, plus {@code *} for the first host. */
    private static HostTable<CompiledHost> withCatchAll(Snapshot snapshot) {
        HostTable.Builder<CompiledHost> b = HostTable.builder();
        for (CompiledHost h : snapshot.hostList()) {
            for (String name : h.names()) {
                b.add(name, h);
            }
        }
        return b.add("*", snapshot.hostList().get(0)).build();
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
