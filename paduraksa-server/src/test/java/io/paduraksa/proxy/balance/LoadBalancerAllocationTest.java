package io.paduraksa.proxy.balance;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.AllocationAssert;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Per request and per retry the balancer and the destination states allocate nothing: a first pick
 * that skips a recently failed destination, a retry that excludes the tried ones, and the
 * passive-health bookkeeping of a refused connection and of a 5xx counted as a failure, and the
 * retry budget's deposit and withdrawal.
 */
@Tag("allocation")
class LoadBalancerAllocationTest {
    private static final long NOW = 1_000_000_000L;

    static final class State {
        final DestinationState[] states;
        final LoadBalancer balancer;
        final RetryBudget budget = new RetryBudget(0.5, 0);
        long now = NOW;
        long sink;
        int skipped;
        int retries;

        State(Strategy strategy) {
            PassiveHealth passive = new PassiveHealth(1_000_000_000, Duration.ofSeconds(30), Duration.ofSeconds(300), true);
            states = new DestinationState[4];
            for (int i = 0; i < states.length; i++) {
                states[i] = new DestinationState(i, i + 1, passive);
            }
            balancer = new LoadBalancer(strategy, states);
        }

        void run() {
            now++;
            // Destination 0 keeps failing: its connection is refused, it answers 503.
            states[0].onConnectionFailure(now);
            states[0].onResponse(503, now);
            states[0].onConnectionFailure(now);
            int d = balancer.choose(now, -1);
            if (d == 0) {
                skipped = -1_000_000; // never: it failed recently and others are available
            } else {
                skipped++;
            }
            states[d].requestStarted();
            budget.onRequest(now);
            if (budget.tryAcquire(now)) {
                retries++;
            }
            int retry = balancer.chooseRetry(now, LoadBalancer.bit(d) | LoadBalancer.bit(0), d);
            sink += retry;
            states[d].requestEnded();
            states[retry].onResponse(200, now);
        }
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void choosingSkippingAndRetryingAllocateNothing(Strategy strategy) {
        State state = new State(strategy);
        AllocationAssert.assertZero("balancer " + strategy, state, State::run);
        assertThat(state.skipped).as("picks that skipped the recently failed destination").isPositive();
        assertThat(state.sink).isPositive();
        assertThat(state.retries).as("retries the budget allowed").isPositive();
        assertThat(state.states[0].isFailedRecently(state.now)).isTrue();
    }
}
