package io.paduraksa.bench.policy;

import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.RequestState;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RequestPolicy;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Each built-in policy of the synthetic snapshot, and the 3-policy chain, on a request that passes
 * all of them (the common case: every policy runs to the end).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PolicyBenchmark {
    private Snapshot snapshot;
    private RequestPolicy ip;
    private RequestPolicy userAgent;
    private RequestPolicy path;
    private RequestPolicy[] chain;
    private RequestState state;

    @Setup
    public void setUp() {
        snapshot = CompiledFixtures.synthetic();
        ip = snapshot.policies().get("deny-list");
        userAgent = snapshot.policies().get("bad-bots");
        path = snapshot.policies().get("no-admin");
        chain = new RequestPolicy[] {ip, userAgent, path};
        // Run the gate once so that the state holds a client IP, a normalised path and a view.
        StaticRequestView view = new StaticRequestView().client(BenchFixtures.client("203.0.113.9", false))
                .authority("h42.test").target("/products/shoes/item-4711?color=red")
                .header("accept", "text/html").header("user-agent", BenchFixtures.CHROME_UA);
        state = new RequestState();
        new Gate(new SnapshotStore(snapshot)).run(view, state);
    }

    @TearDown
    public void tearDown() {
        snapshot.release();
    }

    @Benchmark
    public PolicyDecision ipDenyList2000() {
        return ip.evaluate(state);
    }

    @Benchmark
    public PolicyDecision userAgent30Needles() {
        return userAgent.evaluate(state);
    }

    @Benchmark
    public PolicyDecision pathPrefix() {
        return path.evaluate(state);
    }

    @Benchmark
    public PolicyDecision chainOfThree() {
        RequestPolicy[] policies = chain;
        PolicyDecision d = PolicyDecision.CONTINUE;
        for (int i = 0; i < policies.length && d.isContinue(); i++) {
            d = policies[i].evaluate(state);
        }
        return d;
    }
}
