package io.paduraksa.bench.gate;

import io.paduraksa.bench.EventLoopThreads;
import io.paduraksa.gate.GateOutcome;
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
 * The whole synchronous gate on the 520-host snapshot with 3 policies per host, in the scenarios of
 * {@link GateLoop}. It runs on a {@code FastThreadLocalThread} ({@link EventLoopThreads}), as on an
 * event loop, since the user-agent policy keeps its verdicts and its last clean value per thread (which
 * scenario reaches which path: {@link GateLoop}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Djmh.executor=CUSTOM", "-Djmh.executor.class=io.paduraksa.bench.EventLoopThreads"})
@State(Scope.Thread)
public class GateBenchmark {

    @Param({"answer200", "redirect301", "deny403", "forward", "forwardViaCfHeader", "forwardNewAgent", "forwardAgentsInTurn",
        "forwardNewRequest"})
    public String scenario;

    private GateLoop loop;

    @Setup
    public void setUp() {
        loop = new GateLoop(scenario);
    }

    @TearDown
    public void tearDown() {
        loop.close();
    }

    @Benchmark
    public GateOutcome run() {
        return loop.once();
    }
}
