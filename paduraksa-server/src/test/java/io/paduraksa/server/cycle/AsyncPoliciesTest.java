package io.paduraksa.server.cycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.Channel;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.policy.AsyncPolicy;
import io.paduraksa.policy.ForwardAuthPolicy;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.PolicyInput;
import io.paduraksa.respond.PrecomputedResponse;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AsyncPoliciesTest {

    /** A second kind of asynchronous policy, as a test would add one: no protocol handler knows it. */
    static final class LookupPolicy implements AsyncPolicy {
        @Override
        public String name() {
            return "lookup";
        }

        @Override
        public PolicyDecision evaluate(PolicyInput request) {
            return PolicyDecision.NEEDS_ASYNC;
        }
    }

    @Test
    void theStandardSetStartsForwardAuthAndNothingElse() {
        AsyncPolicies standard = AsyncPolicies.standard();
        ForwardAuthPolicy forwardAuth = new ForwardAuthPolicy("fa", URI.create("http://127.0.0.1:1/auth"), "GET",
                List.of(), List.of(), null, 0, 0, 1_000, PolicyDecision.DROP, null);
        assertThat(standard.has(forwardAuth)).isTrue();
        assertThat(standard.has(new LookupPolicy())).isFalse();
    }

    @Test
    void aRegisteredKindIsStartedThroughItsOwnStarterWithTheExchangeAsToken() {
        List<Object> started = new ArrayList<>();
        AsyncPolicy.Decided done = (token, requestId, decision) -> { };
        AsyncPolicies policies = AsyncPolicies.standard().with(LookupPolicy.class, (client, state, policy, d, token) -> {
            started.add(policy);
            started.add(state);
            started.add(d);
            started.add(token);
        });
        LookupPolicy policy = new LookupPolicy();
        Exchange exchange = new Exchange();
        assertThat(policies.has(policy)).isTrue();
        policies.start(policy, exchange, done);
        assertThat(started).containsExactly(policy, exchange.state, done, exchange);
        assertThat(AsyncPolicies.standard().has(policy)).as("the standard set is unchanged").isFalse();
    }

    /** The protocol side, reduced to what a starter sees (no connection: the test's starter does no I/O). */
    private static final class Exchange implements ProtocolExchange {
        final RequestState state = new RequestState();

        @Override
        public RequestState state() {
            return state;
        }

        @Override
        public Channel channel() {
            return null;
        }

        @Override
        public void logDecision(int decision) {
        }

        @Override
        public void writeAnswer(PrecomputedResponse response) {
        }

        @Override
        public void drop() {
        }

        @Override
        public void forward() {
        }

        @Override
        public void pauseReads() {
        }

        @Override
        public void inspectBody() {
        }

        @Override
        public long bodyHoldLimit() {
            return Long.MAX_VALUE;
        }

        @Override
        public void resumeReads(GateOutcome outcome) {
        }

        @Override
        public boolean awaits(long requestId) {
            return false;
        }

        @Override
        public void resumed(GateOutcome outcome) {
        }
    }
}
