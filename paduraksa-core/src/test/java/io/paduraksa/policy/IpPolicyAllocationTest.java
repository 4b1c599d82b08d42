package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.net.IpRangeSet;
import io.paduraksa.testing.AllocationAssert;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class IpPolicyAllocationTest {
    private static IpPolicy policy;

    static final class State {
        final IpPolicy policy;
        final IpPolicyTest.Input input;
        PolicyDecision last;

        State(IpPolicy policy, String client) {
            this.policy = policy;
            this.input = new IpPolicyTest.Input(client);
        }
    }

    @BeforeAll
    static void build() {
        IpRangeSet.Builder deny = IpRangeSet.builder();
        Random random = new Random(7);
        for (int i = 0; i < 1_000; i++) {
            deny.add((random.nextInt(100) + 1) + "." + random.nextInt(256) + "." + random.nextInt(256) + ".0/24");
        }
        deny.add("192.0.2.0/24").add("2001:db8:bad::/48");
        IpRangeSet allow = IpRangeSet.builder().add("198.51.100.0/24").add("192.0.2.0/24").add("2001:db8::/32").build();
        policy = new IpPolicy("office", allow, deny.build(), PolicyDecision.DROP);
        State[] all = {new State(policy, "198.51.100.7"), new State(policy, "192.0.2.7"), new State(policy, "203.0.113.7"),
            new State(policy, "2001:db8::7"), new State(policy, "2001:db8:bad::7")};
        AllocationAssert.measure("all shapes", all, IpPolicyAllocationTest::evaluateAll, 20_000, 1);
    }

    private static void evaluateAll(State[] states) {
        for (State s : states) {
            evaluate(s);
        }
    }

    private static void evaluate(State s) {
        s.last = s.policy.evaluate(s.input);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            allowed            | 198.51.100.7    | CONTINUE
            denied by deny     | 192.0.2.7       | DROP
            outside allow      | 203.0.113.7     | DROP
            IPv6 allowed       | 2001:db8::7     | CONTINUE
            IPv6 denied        | 2001:db8:bad::7 | DROP
            """)
    void evaluateAllocatesNothing(String shape, String client, String expected) {
        State state = new State(policy, client);
        AllocationAssert.assertZero(shape, state, IpPolicyAllocationTest::evaluate);
        assertThat(state.last.action().name()).isEqualTo(expected);
    }
}
