package io.paduraksa.bench.gate;

import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;

/**
 * {@link GateBenchmark}'s setup and a counted loop of {@code Gate.run}, for {@link GateJarComparison}:
 * defined anew in each compared jar's class loader, so it runs against that jar's gate. Uses only
 * API that older builds have too.
 */
public final class GateLoop {
    private final Gate gate;
    private final StaticRequestView view;
    private final RequestState state = new RequestState();

    public GateLoop(String scenario) {
        gate = new Gate(new SnapshotStore(CompiledFixtures.synthetic()));
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

    /** Runs the gate {@code n} times; the sum of the outcomes' ordinals, so that no call is dead code. */
    public long run(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            GateOutcome outcome = gate.run(view, state);
            sum += outcome.ordinal();
        }
        return sum;
    }

    /** What the gate decided, to check that every jar decides the same. */
    public String decision() {
        GateOutcome outcome = gate.run(view, state);
        return outcome + " " + state.response() + " " + (state.cluster() == null ? "-" : state.cluster().name());
    }
}
