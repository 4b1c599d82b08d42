package io.paduraksa.gate;

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

    static final class Run {
        final Gate gate;
        final StaticRequestView view;
        final RequestState state = new RequestState();
        GateOutcome last;

        Run(Gate gate, StaticRequestView view) {
            this.gate = gate;
            this.view = view;
        }

        void once() {
            last = gate.run(view, state);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "answer 200, h1.test, /static, chrome, false",
        "redirect 301, h250.test:443, /old, chrome, false",
        "path policy 403, H7.TEST, /admin/users?x=1, chrome, false",
        "user-agent 403, h7.test, /, sqlmap/1.7, false",
        "forward, h499.test, /api/v1/items?page=2, chrome, false",
        "forward via CF-Connecting-IP, h12.test, /, chrome, true",
        "wildcard, a.w17.test, /static, chrome, false",
        "idn, IDN, /static, chrome, false",
        "unknown host 421, nope.example, /, chrome, false",
        "bad path 400, h1.test, /static/..%2fadmin, chrome, false",
        "dot segments, h1.test, /a/./b/../static/, chrome, false",
        "path parameters 403, h1.test, /x/..;/admin;jsessionid=1/users, chrome, false",
        "path parameters forward, h499.test, /api;v=1/items%3Bx/;jsessionid=2?page=2, chrome, false",
    })
    void gateRunIsZero(String what, String host, String target, String userAgent, boolean viaHeader) {
        String authority = host.equals("IDN") ? IDN.toASCII("bücher492.test") : host;
        StaticRequestView view = new StaticRequestView()
                .client(viaHeader ? GateTest.TRUSTED : GateTest.PEER)
                .authority(authority).target(target)
                .header("accept", "text/html,application/xhtml+xml")
                .header("user-agent", userAgent.equals("chrome") ? CHROME : userAgent)
                .header("cf-connecting-ip", "2001:db8:1234::42");
        AllocationAssert.assertZero("Gate.run " + what, new Run(new Gate(new SnapshotStore(snapshot)), view), Run::once);
    }
}
