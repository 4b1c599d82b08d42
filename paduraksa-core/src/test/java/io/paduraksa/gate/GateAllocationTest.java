package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import java.net.IDN;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link Gate#run} allocates nothing for any outcome, on the 520-host snapshot with 3 policies per host. */
@Tag("allocation")
class GateAllocationTest {
    private static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    private static Snapshot snapshot;

    @BeforeAll
    static void compile() {
        snapshot = CompiledFixtures.synthetic();
    }

    @AfterAll
    static void release() {
        snapshot.release();
    }

    /** One gate and request; counts the calls whose outcome (and answer status) was the expected one. */
    static final class Run {
        final Gate gate;
        final StaticRequestView view;
        final RequestState state = new RequestState();
        final GateOutcome expected;
        final int expectedStatus;
        long calls;
        long asExpected;
        GateOutcome last;

        Run(Gate gate, StaticRequestView view, GateOutcome expected, int expectedStatus) {
            this.gate = gate;
            this.view = view;
            this.expected = expected;
            this.expectedStatus = expectedStatus;
        }

        void once() {
            last = gate.run(view, state);
            calls++;
            if (last == expected && (last != GateOutcome.RESPOND || state.response().status() == expectedStatus)) {
                asExpected++;
            }
        }
    }

    /**
     * Each row names the outcome it must reach on every measured call (and the status of a
     * RESPOND), so a row cannot pass on a cheaper path than it names: the exact hosts are
     * h0.test to h489.test, 490-499 being IDN names (an earlier "forward" row asked for h499.test
     * and measured the 421 of an unknown host).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "answer 200, h1.test, /static, chrome, false, RESPOND, 200",
        "redirect 301, h250.test:443, /old, chrome, false, RESPOND, 301",
        "path policy 403, H7.TEST, /admin/users?x=1, chrome, false, RESPOND, 403",
        "user-agent 403, h7.test, /, sqlmap/1.7, false, RESPOND, 403",
        "forward, h489.test, /api/v1/items?page=2, chrome, false, FORWARD, 0",
        "forward via CF-Connecting-IP, h12.test, /, chrome, true, FORWARD, 0",
        "wildcard, a.w17.test, /static, chrome, false, RESPOND, 200",
        "idn, IDN, /static, chrome, false, RESPOND, 200",
        "unknown host 421, nope.example, /, chrome, false, RESPOND, 421",
        "bad path 400, h1.test, /static/..%2fadmin, chrome, false, RESPOND, 400",
        "dot segments (to /static/), h1.test, /a/./b/../../static/, chrome, false, RESPOND, 200",
        "path parameters 403, h1.test, /x/..;/admin;jsessionid=1/users, chrome, false, RESPOND, 403",
        "path parameters forward, h489.test, /api;v=1/items%3Bx/;jsessionid=2?page=2, chrome, false, FORWARD, 0",
    })
    void gateRunIsZero(String what, String host, String target, String userAgent, boolean viaHeader, GateOutcome outcome,
            int status) {
        String authority = host.equals("IDN") ? IDN.toASCII("bücher492.test") : host;
        StaticRequestView view = new StaticRequestView()
                .client(viaHeader ? GateTest.TRUSTED : GateTest.PEER)
                .authority(authority).target(target)
                .header("accept", "text/html,application/xhtml+xml")
                .header("user-agent", userAgent.equals("chrome") ? CHROME : userAgent)
                .header("cf-connecting-ip", "2001:db8:1234::42");
        Run run = new Run(new Gate(new SnapshotStore(snapshot)), view, outcome, status);
        AllocationAssert.Result r = AllocationAssert.assertZero("Gate.run " + what, run, Run::once);
        assertThat(r.iterations()).isPositive();
        assertThat(run.asExpected).as("calls of %s that ended %s %d (last: %s)", what, outcome, status, run.last).isEqualTo(run.calls);
    }

    /**
     * The catch-all host, deep wildcards and hosts with error pages of their own
     * ({@link CatchAllGateTest#YAML}): the host's page is one array read more, still 0 B.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "catch-all 200, unknown.example:8080, /, RESPOND, 200",
        "catch-all path policy 403, a.b.c.unknown.example, /admin/x, RESPOND, 403",
        "catch-all forward, unknown.example, /app/x?y=1, FORWARD, 0",
        "catch-all IPv6 literal, [2001:db8::5]:443, /, RESPOND, 200",
        "deep wildcard, x.y.v1.api.example.test, /, RESPOND, 200",
        "host page 403 (policy), a.b.example.test, /, RESPOND, 403",
        "host default page 410 (route), v1.api.example.test, /gone, RESPOND, 410",
        "host default page 400 (path), v1.api.example.test, /static/..%2fadmin, RESPOND, 400",
        "malformed host 421, a..b.example.test, /admin, RESPOND, 421",
    })
    void catchAllAndHostPagesAreZero(String what, String host, String target, GateOutcome outcome, int status) {
        Snapshot s = CompiledFixtures.compile("catch-all.yaml", CatchAllGateTest.YAML);
        try {
            StaticRequestView view = new StaticRequestView().client(GateTest.PEER).authority(host).target(target)
                    .header("user-agent", CHROME);
            Run run = new Run(new Gate(new SnapshotStore(s)), view, outcome, status);
            AllocationAssert.Result r = AllocationAssert.assertZero("Gate.run " + what, run, Run::once);
            assertThat(r.iterations()).isPositive();
            assertThat(run.asExpected).as("calls of %s that ended %s %d (last: %s)", what, outcome, status, run.last).isEqualTo(run.calls);
        } finally {
            s.release();
        }
    }
}
