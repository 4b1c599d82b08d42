package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestStateRateLimitTest {

    @Test
    void thePolicyWithTheLeastRemainingIsReported() {
        RequestState state = new RequestState(64);
        assertThat(state.hasRateLimit()).isFalse();

        state.rateLimit(20, 7, 1);
        state.rateLimit(5, 2, 3);
        state.rateLimit(100, 50, 0);

        assertThat(state.hasRateLimit()).isTrue();
        assertThat(new int[] {state.rateLimitLimit(), state.rateLimitRemaining(), state.rateLimitReset()}).containsExactly(5, 2, 3);
    }

    @Test
    void theNextRequestStartsWithoutFields() {
        RequestState state = new RequestState(64);
        state.rateLimit(5, 0, 3);
        state.reset(null, null, 1);
        assertThat(state.hasRateLimit()).isFalse();
        state.rateLimit(5, 4, 1);
        assertThat(state.rateLimitRemaining()).as("not compared with the last request's 0").isEqualTo(4);
    }
}
