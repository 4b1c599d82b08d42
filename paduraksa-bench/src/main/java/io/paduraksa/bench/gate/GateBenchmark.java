package io.paduraksa.bench.gate;

import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.bench.EventLoopThreads;
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

/**
 * The whole synchronous gate on the 520-host snapshot with 3 policies per host. It runs on a
 * {@code FastThreadLocalThread} ({@link EventLoopThreads}), as on an event loop, since the
 * user-agent policy keeps its verdicts per thread. Every scenario but {@code forwardNewAgent} repeats
 * one request, so its User-Agent is answered from that memo after the first call, as a browser's is;
 * {@code forwardNewAgent} sends one of {@value #AGENTS} agents in turn (more than the memo holds), so
 * every call scans.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Djmh.executor=CUSTOM", "-Djmh.executor.class=io.paduraksa.bench.EventLoopThreads"})
@State(Scope.Thread)
public class GateBenchmark {
    static final int AGENTS = 4_096;

    @Param({"answer200", "redirect301", "deny403", "forward", "forwardViaCfHeader", "forwardNewAgent"})
    public String scenario;

    private Snapshot snapshot;
    private Gate gate;
    private StaticRequestView[] views;
    private int next;
    private final RequestState state = new RequestState();

    @Setup
    public void setUp() {
        snapshot = CompiledFixtures.synthetic();
        gate = new Gate(new SnapshotStore(snapshot));
        boolean viaHeader = scenario.equals("forwardViaCfHeader");
        views = new StaticRequestView[scenario.equals("forwardNewAgent") ? AGENTS : 1];
        for (int i = 0; i < views.length; i++) {
            String agent = views.length == 1 ? BenchFixtures.CHROME_UA
                    : BenchFixtures.CHROME_UA.replace("Chrome/131.0.0.0", "Chrome/131.0." + i / 64 + "." + i % 64);
            views[i] = new StaticRequestView()
                    .client(viaHeader ? BenchFixtures.client("198.51.100.20", true) : BenchFixtures.client("203.0.113.9", false))
                    .authority("h321.test:443")
                    .target(switch (scenario) {
                        case "answer200" -> "/static";
                        case "redirect301" -> "/old";
                        case "deny403" -> "/admin/users";
                        default -> "/products/shoes/item-4711?color=red";
                    })
                    .header("accept", "text/html,application/xhtml+xml")
                    .header("user-agent", agent)
                    .header("cf-connecting-ip", "2001:db8:1234::42");
        }
    }

    @TearDown
    public void tearDown() {
        snapshot.release();
    }

    @Benchmark
    public GateOutcome run() {
        StaticRequestView[] all = views;
        return gate.run(all[next++ & all.length - 1], state);
    }
}
