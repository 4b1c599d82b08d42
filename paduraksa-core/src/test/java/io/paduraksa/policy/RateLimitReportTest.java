package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.TestPolicyInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The numbers behind the {@code RateLimit-*} fields: {@link RateLimiter#acquire}, {@code remaining}, {@code resetSeconds}. */
class RateLimitReportTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long V4 = 0xFFFF_0000_0000L;

    private final RateLimiterTest.FakeClock clock = new RateLimiterTest.FakeClock();

    private RateLimiter limiter(long intervalNanos, int burst) {
        return new RateLimiter("api-limit", new RateLimiter.Settings(intervalNanos, burst, 1000, false, 600 * SECOND), clock, 42);
    }

    /** What a policy with headers reported last. */
    static final class Reported extends TestPolicyInput {
        int calls;
        int limit;
        int remaining;
        int reset;

        @Override
        public void rateLimit(int limit, int remaining, int resetSeconds) {
            calls++;
            this.limit = limit;
            this.remaining = remaining;
            this.reset = resetSeconds;
        }
    }

    @Test
    void remainingCountsDownThroughTheBurstAndResetGrowsByTheInterval() {
        // 2/s, burst 4: each request adds 500 ms of debt.
        RateLimiter l = limiter(500 * MS, 4);
        long key = l.fingerprint(V4, 0xC000_0201L, 0);
        int[] remaining = new int[5];
        int[] reset = new int[5];
        for (int i = 0; i < 5; i++) {
            long outcome = l.acquire(key);
            assertThat(outcome >= 0).as("request %d admitted", i).isEqualTo(i < 4);
            remaining[i] = l.remaining(outcome);
            reset[i] = RateLimiter.resetSeconds(outcome);
        }
        assertThat(remaining).containsExactly(3, 2, 1, 0, 0);
        assertThat(reset).as("debt 0.5 s, 1 s, 1.5 s, 2 s, then 2 s unchanged, rounded up").containsExactly(1, 1, 2, 2, 2);
    }

    @Test
    void timeRefillsRemainingAndShrinksReset() {
        RateLimiter l = limiter(500 * MS, 4);
        long key = l.fingerprint(V4, 0xC000_0201L, 0);
        for (int i = 0; i < 4; i++) {
            l.acquire(key);
        }
        clock.now += 1200 * MS; // debt 2 s -> 0.8 s, then this request adds 0.5 s
        long outcome = l.acquire(key);
        assertThat(outcome).isEqualTo(1300 * MS);
        assertThat(l.remaining(outcome)).as("floor((2 s - 1.3 s) / 0.5 s)").isEqualTo(1);
        assertThat(RateLimiter.resetSeconds(outcome)).isEqualTo(2);

        clock.now += 10 * SECOND; // far past: the bucket is full again
        outcome = l.acquire(key);
        assertThat(l.remaining(outcome)).isEqualTo(3);
        assertThat(RateLimiter.resetSeconds(outcome)).isEqualTo(1);
    }

    @ParameterizedTest(name = "debt {0} ns -> reset {1} s")
    @CsvSource({"0, 0", "1, 1", "999999999, 1", "1000000000, 1", "1000000001, 2", "60000000000, 60"})
    void resetIsWholeSecondsRoundedUpForAdmittedAndLimitedOutcomes(long debt, int seconds) {
        assertThat(RateLimiter.resetSeconds(debt)).isEqualTo(seconds);
        assertThat(RateLimiter.resetSeconds(-debt - 1)).isEqualTo(seconds);
    }

    @ParameterizedTest(name = "burst 10, debt {0} ms -> remaining {1}")
    @CsvSource({"0, 10", "99, 9", "100, 9", "101, 8", "1000, 0", "5000, 0"})
    void remainingIsTheWholeIntervalsLeftClampedToZeroAndBurst(long debtMs, int remaining) {
        RateLimiter l = limiter(100 * MS, 10);
        assertThat(l.remaining(debtMs * MS)).isEqualTo(remaining);
        assertThat(l.remaining(-debtMs * MS - 1)).isEqualTo(remaining);
    }

    @Test
    void aClosedLimiterReportsNothingLeftAndAWholeBurstToReset() {
        RateLimiter l = new RateLimiter("api-limit", new RateLimiter.Settings(SECOND, 5, 1000, false, 600 * SECOND,
                new DistributedLimit("redis://127.0.0.1:6379/0", 100 * MS, 1, false, "paduraksa:rl:")), clock, 42);
        l.mode(RateLimiter.Mode.CLOSED);
        long outcome = l.acquire(l.fingerprint(V4, 0xC000_0201L, 0));
        assertThat(outcome).isNegative();
        assertThat(l.remaining(outcome)).isZero();
        assertThat(RateLimiter.resetSeconds(outcome)).isEqualTo(5);
    }

    @Test
    void aPolicyWithHeadersReportsBurstRemainingAndResetAlsoWhenItLimits() {
        RateLimiter l = limiter(SECOND, 2);
        RateLimitPolicy policy = new RateLimitPolicy("api-limit", l, RateLimitPolicy.Key.CLIENT_IP, null, PolicyDecision.DROP, true);
        Reported r = new Reported();
        r.clientIp(V4, 0xC000_0201L);

        assertThat(policy.evaluate(r).isContinue()).isTrue();
        assertThat(new int[] {r.limit, r.remaining, r.reset}).containsExactly(2, 1, 1);
        assertThat(policy.evaluate(r).isContinue()).isTrue();
        assertThat(new int[] {r.limit, r.remaining, r.reset}).containsExactly(2, 0, 2);
        assertThat(policy.evaluate(r)).isSameAs(PolicyDecision.DROP);
        assertThat(new int[] {r.limit, r.remaining, r.reset}).containsExactly(2, 0, 2);
        assertThat(r.calls).isEqualTo(3);
    }

    @Test
    void aPolicyWithoutHeadersReportsNothing() {
        RateLimitPolicy policy = new RateLimitPolicy("api-limit", limiter(SECOND, 2), RateLimitPolicy.Key.CLIENT_IP, null, PolicyDecision.DROP);
        Reported r = new Reported();
        r.clientIp(V4, 0xC000_0201L);
        policy.evaluate(r);
        assertThat(r.calls).isZero();
        assertThat(policy.hasHeaders()).isFalse();
    }
}
