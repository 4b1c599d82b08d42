package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The local half of distributed mode: counting admits, draining them, taking the shared debt, the modes. */
class DistributedRateLimiterTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long V4 = 0xFFFF_0000_0000L;
    private static final DistributedLimit SHARED = new DistributedLimit("redis://127.0.0.1:6379/0", 100 * MS, 0.5, false, "paduraksa:rl:");

    private final RateLimiterTest.FakeClock clock = new RateLimiterTest.FakeClock();

    private RateLimiter limiter(long interval, int burst, DistributedLimit d) {
        RateLimiter.Settings s = new RateLimiter.Settings(interval, burst, 1000, false, 600 * SECOND, d);
        return new RateLimiter("api-limit", s, clock, d == null ? 42 : d.seed("api-limit"));
    }

    private static int admitted(RateLimiter l, long fingerprint, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            n += l.tryAcquire(fingerprint) ? 1 : 0;
        }
        return n;
    }

    @Test
    void admitsAreDrainedOnceWithTheirFingerprints() {
        RateLimiter l = limiter(10 * MS, 100, SHARED);
        long a = l.fingerprint(V4, 0xC000_0201L, 0);
        long b = l.fingerprint(V4, 0xC000_0202L, 0);
        admitted(l, a, 7);
        admitted(l, b, 3);

        long[] drained = l.drainAdmitted();
        assertThat(drained).hasSize(4);
        assertThat(countOf(drained, a)).isEqualTo(7);
        assertThat(countOf(drained, b)).isEqualTo(3);
        assertThat(l.drainAdmitted()).as("nothing new since").isEmpty();
    }

    @Test
    void limitedRequestsAreNotCounted() {
        RateLimiter l = limiter(SECOND, 5, SHARED);
        long a = l.fingerprint(V4, 0xC000_0201L, 0);
        assertThat(admitted(l, a, 50)).isEqualTo(5);
        assertThat(countOf(l.drainAdmitted(), a)).isEqualTo(5);
    }

    @Test
    void theSharedDebtCountsAsSpentHere() {
        RateLimiter l = limiter(100 * MS, 10, SHARED);
        long a = l.fingerprint(V4, 0xC000_0201L, 0);
        assertThat(admitted(l, a, 2)).isEqualTo(2);
        l.drainAdmitted();
        // Other boxes spent 7 more: the store's TAT is 9 intervals ahead of now.
        l.applyDebt(a, 9 * 100 * MS);
        assertThat(admitted(l, a, 5)).isEqualTo(1);
    }

    @Test
    void admitsAfterTheDrainAreAddedOnTopOfTheDebt() {
        RateLimiter l = limiter(100 * MS, 10, SHARED);
        long a = l.fingerprint(V4, 0xC000_0201L, 0);
        admitted(l, a, 2);
        l.drainAdmitted();
        admitted(l, a, 3); // not in the store yet
        l.applyDebt(a, 6 * 100 * MS); // 2 of ours + 4 of the others
        assertThat(admitted(l, a, 5)).isEqualTo(1);
    }

    @Test
    void aSmallerDebtNeverMovesTheLocalStateBack() {
        RateLimiter l = limiter(100 * MS, 10, SHARED);
        long a = l.fingerprint(V4, 0xC000_0201L, 0);
        admitted(l, a, 8);
        l.drainAdmitted();
        l.applyDebt(a, 0);
        assertThat(admitted(l, a, 5)).isEqualTo(2);
    }

    @Test
    void localModeLimitsAtTheShareOfTheRate() {
        RateLimiter l = limiter(100 * MS, 10, SHARED);
        l.mode(RateLimiter.Mode.LOCAL);
        long a = l.fingerprint(V4, 0xC000_0201L, 0);
        assertThat(admitted(l, a, 20)).as("half the burst").isEqualTo(5);
        clock.now += SECOND;
        assertThat(admitted(l, a, 20)).as("half the rate").isEqualTo(5);
        assertThat(l.drainAdmitted()).as("an outage's admits are never sent").isEmpty();
    }

    @Test
    void closedModeRefusesEveryRequestAndCountsThem() {
        RateLimiter l = limiter(100 * MS, 10, SHARED);
        l.mode(RateLimiter.Mode.CLOSED);
        long a = l.fingerprint(V4, 0xC000_0201L, 0);
        assertThat(admitted(l, a, 3)).isZero();
        assertThat(l.closedCount()).isEqualTo(3);
        l.mode(RateLimiter.Mode.SHARED);
        assertThat(admitted(l, a, 3)).isEqualTo(3);
    }

    @Test
    void everyBoxDerivesTheSameFingerprints() {
        RateLimiter one = new RateLimiter("api-limit", new RateLimiter.Settings(MS, 10, 100, false, SECOND, SHARED));
        RateLimiter two = new RateLimiter("api-limit", new RateLimiter.Settings(MS, 10, 100, false, SECOND, SHARED));
        RateLimiter other = new RateLimiter("other-limit", new RateLimiter.Settings(MS, 10, 100, false, SECOND, SHARED));
        assertThat(one.fingerprint(V4, 0xC000_0201L, 0)).isEqualTo(two.fingerprint(V4, 0xC000_0201L, 0))
                .isNotEqualTo(other.fingerprint(V4, 0xC000_0201L, 0));
        assertThat(SHARED.storeKey("api-limit", 0xABL)).isEqualTo("paduraksa:rl:api-limit:00000000000000ab");
    }

    @Test
    void aLocalLimiterHasNothingToDrain() {
        RateLimiter l = limiter(MS, 10, null);
        l.tryAcquire(l.fingerprint(V4, 0xC000_0201L, 0));
        assertThat(l.isDistributed()).isFalse();
        assertThat(l.drainAdmitted()).isEmpty();
    }

    @Test
    void thePasswordIsNeverPrinted() {
        DistributedLimit d = new DistributedLimit("redis://:s3cret@192.0.2.7:6379/0", MS, 1, true, "p:");
        assertThat(d.toString()).doesNotContain("s3cret").contains("redis://***@192.0.2.7:6379/0");
        assertThatThrownBy(() -> new DistributedLimit("redis://192.0.2.7", MS, 0, true, "p:")).isInstanceOf(IllegalArgumentException.class);
    }

    private static long countOf(long[] drained, long fingerprint) {
        for (int i = 0; i < drained.length; i += 2) {
            if (drained[i] == fingerprint) {
                return drained[i + 1];
            }
        }
        return 0;
    }
}
