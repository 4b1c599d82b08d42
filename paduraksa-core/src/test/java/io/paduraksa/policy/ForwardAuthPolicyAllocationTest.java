package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.AllocationAssert;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A forward-auth cache hit (allow with copied headers, and a cached denial) allocates nothing. */
@Tag("allocation")
class ForwardAuthPolicyAllocationTest {

    static final class State {
        final ForwardAuthPolicy policy = ForwardAuthPolicyTest.policy(3_600_000_000_000L);
        final ForwardAuthPolicyTest.Input allowed = new ForwardAuthPolicyTest.Input()
                .header("Cookie", "session=0123456789abcdef0123456789abcdef; theme=dark").header("Authorization", "Bearer abc");
        final ForwardAuthPolicyTest.Input denied = new ForwardAuthPolicyTest.Input().header("Cookie", "session=expired");
        PolicyDecision last;

        State() {
            policy.decide(policy.key(allowed), 200, List.<String[]>of(new String[] {"X-User", "alice"}), new byte[0], allowed);
            policy.decide(policy.key(denied), 401, List.<String[]>of(new String[] {"WWW-Authenticate", "Bearer"}), new byte[0], denied);
        }
    }

    @Test
    void cacheHitsAllocateNothing() {
        State state = new State();
        AllocationAssert.assertZero("forward-auth cache hit", state, ForwardAuthPolicyAllocationTest::evaluate);
        assertThat(state.policy.evaluate(state.allowed)).isSameAs(PolicyDecision.CONTINUE);
        assertThat(state.policy.evaluate(state.denied).response().status()).isEqualTo(401);
    }

    private static void evaluate(State s) {
        s.last = s.policy.evaluate(s.allowed);
        s.last = s.policy.evaluate(s.denied);
    }
}
