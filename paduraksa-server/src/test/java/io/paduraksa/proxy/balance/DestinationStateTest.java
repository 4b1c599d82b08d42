package io.paduraksa.proxy.balance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DestinationStateTest {
    private static final long T0 = -5_000_000_000L; // nanoTime may be negative
    private static final long SECOND = 1_000_000_000L;
    private static final PassiveHealth PASSIVE = new PassiveHealth(3, Duration.ofSeconds(10), Duration.ofSeconds(60));

    @Test
    void startsAvailableAndActivelyHealthy() {
        DestinationState d = new DestinationState(0, 1, PASSIVE);
        assertThat(d.isAvailable(T0)).isTrue();
        assertThat(d.isActiveHealthy()).isTrue();
        assertThat(d.inFlight()).isZero();
    }

    @Test
    void activeVerdictDecidesAvailability() {
        DestinationState d = new DestinationState(0, 1, null);
        d.markActiveHealthy(false);
        assertThat(d.isAvailable(T0)).isFalse();
        d.markActiveHealthy(true);
        assertThat(d.isAvailable(T0)).isTrue();
    }

    @Test
    void ejectsAfterConsecutiveFailuresAndNotBefore() {
        DestinationState d = new DestinationState(0, 1, PASSIVE);
        assertThat(d.onFailure(T0)).isFalse();
        assertThat(d.onFailure(T0)).isFalse();
        assertThat(d.isAvailable(T0)).isTrue();
        assertThat(d.onFailure(T0)).isTrue();
        assertThat(d.isAvailable(T0)).isFalse();
        assertThat(d.isAvailable(T0 + 10 * SECOND - 1)).isFalse();
        assertThat(d.isAvailable(T0 + 10 * SECOND)).isTrue();
    }

    @Test
    void successEndsTheFailureStreak() {
        DestinationState d = new DestinationState(0, 1, PASSIVE);
        d.onFailure(T0);
        d.onFailure(T0);
        d.onSuccess();
        d.onFailure(T0);
        d.onFailure(T0);
        assertThat(d.isAvailable(T0)).isTrue();
    }

    @Test
    void failuresWhileEjectedDoNotExtendTheEjection() {
        DestinationState d = new DestinationState(0, 1, PASSIVE);
        fail(d, T0, 3);
        for (int i = 0; i < 10; i++) {
            assertThat(d.onFailure(T0 + SECOND)).isFalse();
        }
        assertThat(d.isAvailable(T0 + 10 * SECOND)).isTrue();
        assertThat(d.ejections()).isEqualTo(1);
    }

    @Test
    void repeatOffendersAreEjectedTwiceAsLongUpToTheMaximum() {
        DestinationState d = new DestinationState(0, 1, PASSIVE);
        long t = T0;
        long[] expected = {10, 20, 40, 60, 60};
        for (long seconds : expected) {
            fail(d, t, 3);
            assertThat(d.isAvailable(t + seconds * SECOND - 1)).as("ejected for %d s", seconds).isFalse();
            assertThat(d.isAvailable(t + seconds * SECOND)).isTrue();
            t += seconds * SECOND;
        }
    }

    @Test
    void staysHealthyForTheMaximumAndIsForgiven() {
        DestinationState d = new DestinationState(0, 1, PASSIVE);
        fail(d, T0, 3);
        fail(d, T0 + 10 * SECOND, 3); // 20 s, ends at T0 + 30 s
        long later = T0 + 30 * SECOND + 60 * SECOND;
        fail(d, later, 3);
        assertThat(d.isAvailable(later + 10 * SECOND)).isTrue();
        assertThat(d.ejections()).isEqualTo(1);
    }

    @Test
    void withoutPassiveHealthFailuresNeverEject() {
        DestinationState d = new DestinationState(0, 1, null);
        fail(d, T0, 1_000);
        assertThat(d.isAvailable(T0)).isTrue();
    }

    /** Many event loops failing at once: the threshold is crossed, and the destination ejected, exactly once. */
    @Test
    void concurrentFailuresEjectOnce() throws Exception {
        int threads = 4;
        int perThread = 2_500;
        DestinationState d = new DestinationState(0, 1, new PassiveHealth(threads * perThread, Duration.ofSeconds(1), Duration.ofSeconds(1)));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    int ejected = 0;
                    for (int i = 0; i < perThread; i++) {
                        d.requestStarted();
                        if (d.onFailure(T0)) {
                            ejected++;
                        }
                        d.requestEnded();
                    }
                    return ejected;
                }));
            }
            go.countDown();
            int ejected = 0;
            for (Future<Integer> f : results) {
                ejected += f.get(30, TimeUnit.SECONDS);
            }
            assertThat(ejected).isEqualTo(1);
            assertThat(d.isAvailable(T0)).isFalse();
            assertThat(d.inFlight()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    private static void fail(DestinationState d, long now, int times) {
        for (int i = 0; i < times; i++) {
            d.onFailure(now);
        }
    }

    @Test
    void aConnectionFailureIsARecentFailureAtOnceAndAPassiveFailure() {
        DestinationState d = new DestinationState(0, 1, PASSIVE);
        assertThat(d.isFailedRecently(T0)).isFalse();
        assertThat(d.onConnectionFailure(T0)).isFalse(); // 1 of 3 failures in a row
        assertThat(d.isFailedRecently(T0)).isTrue();
        assertThat(d.isAvailable(T0)).isTrue(); // a soft mark, not an ejection
        // It lasts eject_for (10 s here) ...
        assertThat(d.isFailedRecently(T0 + 10 * SECOND - 1)).isTrue();
        assertThat(d.isFailedRecently(T0 + 10 * SECOND)).isFalse();
        // ... or until a response.
        d.onConnectionFailure(T0);
        d.onResponse(200, T0);
        assertThat(d.isFailedRecently(T0)).isFalse();
        // Without passive settings it marks, and never ejects.
        DestinationState off = new DestinationState(0, 1, null);
        for (int i = 0; i < 10; i++) {
            off.onConnectionFailure(T0);
        }
        assertThat(off.isFailedRecently(T0)).isTrue();
        assertThat(off.isAvailable(T0)).isTrue();
    }

    @Test
    void fiveHundredsCountAsFailuresOnlyWhenConfigured() {
        DestinationState counting = new DestinationState(0, 1, new PassiveHealth(2, Duration.ofSeconds(10), Duration.ofSeconds(60), true));
        counting.onResponse(503, T0);
        assertThat(counting.isAvailable(T0)).isTrue();
        counting.onResponse(500, T0);
        assertThat(counting.isAvailable(T0)).isFalse();

        DestinationState plain = new DestinationState(0, 1, new PassiveHealth(2, Duration.ofSeconds(10), Duration.ofSeconds(60)));
        for (int i = 0; i < 10; i++) {
            plain.onResponse(503, T0);
        }
        assertThat(plain.isAvailable(T0)).isTrue();
        // A success in between resets the streak when counting.
        DestinationState reset = new DestinationState(0, 1, new PassiveHealth(2, Duration.ofSeconds(10), Duration.ofSeconds(60), true));
        reset.onResponse(502, T0);
        reset.onResponse(404, T0);
        reset.onResponse(502, T0);
        assertThat(reset.isAvailable(T0)).isTrue();
    }

    @Test
    void reloadCarriesEjectionStreakRecentFailureAndActiveVerdict() {
        DestinationState old = new DestinationState(3, 1, PASSIVE);
        old.onFailure(T0);
        old.onFailure(T0);
        old.onFailure(T0); // ejected until T0 + 10 s, first of its streak
        old.onConnectionFailure(T0); // ignored by passive health while ejected, but marks
        old.markActiveHealthy(false);

        DestinationState carried = new DestinationState(0, 2, PASSIVE);
        carried.carryFrom(old, true);
        assertThat(carried.isEjected(T0 + 10 * SECOND - 1)).isTrue();
        assertThat(carried.isEjected(T0 + 10 * SECOND)).isFalse();
        assertThat(carried.ejections()).isEqualTo(1);
        assertThat(carried.isFailedRecently(T0)).isTrue();
        assertThat(carried.isActiveHealthy()).isFalse();

        // Active checks that probe differently now: the verdict starts over; without passive settings no ejection.
        DestinationState fresh = new DestinationState(0, 1, null);
        fresh.carryFrom(old, false);
        assertThat(fresh.isActiveHealthy()).isTrue();
        assertThat(fresh.isEjected(T0)).isFalse();
        assertThat(fresh.isFailedRecently(T0)).isTrue();
    }
}
