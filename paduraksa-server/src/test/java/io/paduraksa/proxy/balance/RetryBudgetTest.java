package io.paduraksa.proxy.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryBudgetTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = -3 * SECOND + 123; // nanoTime may be negative

    @Test
    void quietClusterMayRetryMinPerSecond() {
        RetryBudget budget = new RetryBudget(0.2, 3);
        assertThat(acquire(budget, T0, 10)).isEqualTo(3);
        assertThat(acquire(budget, T0 + SECOND, 10)).isEqualTo(3);
    }

    @Test
    void ratioOfRecentRequestsMayRetry() {
        RetryBudget budget = new RetryBudget(0.2, 0);
        request(budget, T0, 100);
        assertThat(acquire(budget, T0, 100)).isEqualTo(20);
        request(budget, T0 + 5 * SECOND, 50);
        assertThat(acquire(budget, T0 + 5 * SECOND, 100)).isEqualTo(10);
    }

    @Test
    void requestsOlderThanTheWindowNoLongerCount() {
        RetryBudget budget = new RetryBudget(0.5, 0);
        request(budget, T0, 100);
        assertThat(budget.requestsInWindow(T0 + 9 * SECOND)).isEqualTo(100);
        assertThat(budget.requestsInWindow(T0 + 10 * SECOND)).isZero();
        assertThat(acquire(budget, T0 + 10 * SECOND, 100)).isZero();
    }

    @Test
    void zeroRatioAndZeroMinNeverRetries() {
        RetryBudget budget = new RetryBudget(0, 0);
        request(budget, T0, 1_000);
        assertThat(budget.tryAcquire(T0)).isFalse();
    }

    /**
     * 100 % failure storm over 40 s: every request fails and retries up to 3 times. Over every
     * window the retries stay at or under ratio * requests + minPerSecond * window.
     */
    @ParameterizedTest
    @CsvSource({"0.2, 10, 1000", "0.2, 0, 1000", "0.5, 5, 20", "0, 3, 500"})
    void failureStormIsCapped(double ratio, int min, int requestsPerSecond) {
        RetryBudget budget = new RetryBudget(ratio, min);
        long retriesTotal = 0;
        for (int s = 0; s < 40; s++) {
            long now = T0 + s * SECOND;
            for (int r = 0; r < requestsPerSecond; r++) {
                budget.onRequest(now + r);
                for (int attempt = 0; attempt < 3 && budget.tryAcquire(now + r); attempt++) {
                    retriesTotal++;
                }
            }
            long requests = budget.requestsInWindow(now);
            long retries = budget.retriesInWindow(now);
            assertThat(retries).as("retries in the window ending at second %d", s)
                    .isLessThanOrEqualTo((long) (ratio * requests) + (long) min * RetryBudget.WINDOW_SECONDS);
        }
        assertThat(retriesTotal).isLessThanOrEqualTo((long) (ratio * 40 * requestsPerSecond) + min * 40L);
        // And the budget is not stingier than promised: a full window at 1,000/s gets its ratio.
        if (requestsPerSecond == 1000 && ratio > 0) {
            assertThat(retriesTotal).isGreaterThanOrEqualTo((long) (ratio * 30 * requestsPerSecond));
        }
    }

    @Test
    void concurrentRetriesNeverExceedTheBudget() throws Exception {
        RetryBudget budget = new RetryBudget(0.1, 5);
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    int taken = 0;
                    for (int i = 0; i < 20_000; i++) {
                        budget.onRequest(T0);
                        if (budget.tryAcquire(T0)) {
                            taken++;
                        }
                    }
                    return taken;
                }));
            }
            go.countDown();
            long taken = 0;
            for (Future<Integer> f : results) {
                taken += f.get(30, TimeUnit.SECONDS);
            }
            assertThat(budget.requestsInWindow(T0)).isEqualTo(threads * 20_000L);
            assertThat(taken).isEqualTo(budget.retriesInWindow(T0));
            assertThat(taken).isLessThanOrEqualTo((long) (0.1 * threads * 20_000) + 5).isGreaterThan(7_000);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new RetryBudget(Double.NaN, 1)).hasMessageContaining("ratio must be a finite number >= 0");
        assertThatThrownBy(() -> new RetryBudget(-0.1, 1)).hasMessageContaining("ratio");
        assertThatThrownBy(() -> new RetryBudget(0.2, -1)).hasMessageContaining("minPerSecond must be >= 0");
    }

    private static void request(RetryBudget budget, long now, int n) {
        for (int i = 0; i < n; i++) {
            budget.onRequest(now);
        }
    }

    private static int acquire(RetryBudget budget, long now, int attempts) {
        int taken = 0;
        for (int i = 0; i < attempts; i++) {
            if (budget.tryAcquire(now)) {
                taken++;
            }
        }
        return taken;
    }
}
