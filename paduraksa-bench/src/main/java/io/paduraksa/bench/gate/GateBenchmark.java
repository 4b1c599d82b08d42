package io.paduraksa.bench.gate;

import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import io.paduraksa.gate.StaticRequestView;
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

/** The whole synchronous gate on the 520-host snapshot with 3 policies per host. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class GateBenchmark {

    @Param({"answer200", "redirect301", "deny403", "forward", "forwardViaCfHeader"})
    public String scenario;

    private Snapshot snapshot;
    private Gate gate;
    private StaticRequestView view;
    private final RequestState state = new RequestState();

    @Setup
    public void setUp() {
        snapshot = CompiledFixtures.synthetic();
        gate = new Gate(new SnapshotStore(snapshot));
        boolean viaHeader = scenario.equals("forwardViaCfHeader");
        view = new StaticRequestView()
                .client(viaHeader ? BenchFixtures.client("198.51.100.20", true) : BenchFixtures.client("203.0.113.9", false))
                .authority("h321.test:443")
                .target(switch (scenario) {
                    case "answer200" -> "/static";
                    case "redirect301" -> "/old";
                    case "deny403" -> "/admin/users";
                    default -> "/products/shoes/item-4711?color=red";
                })
                .header("accept", "text/html,application/xhtml+xml")
                .header("user-agent", BenchFixtures.CHROME_UA)
                .header("cf-connecting-ip", "2001:db8:1234::42");
    }

    @TearDown
    public void tearDown() {
        snapshot.release();
    }

    @Benchmark
    public GateOutcome run() {
        return gate.run(view, state);
    }
}
