package io.paduraksa.proxy.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LoadBalancerTest {
    private static final long NOW = 1_000_000_000L;
    private static final int PICKS = 100_000;

    @Test
    void smoothRoundRobinInterleavesLikeNginx() {
        assertThat(LoadBalancer.smoothSequence(new int[] {5, 1, 1})).containsExactly(0, 0, 1, 0, 2, 0, 0);
        assertThat(LoadBalancer.smoothSequence(new int[] {1, 1, 1})).containsExactly(0, 1, 2);
        // Reduced by the gcd: 20/40 is 1/2.
        assertThat(LoadBalancer.smoothSequence(new int[] {20, 40})).hasSize(3);
    }

    @Test
    void hugeWeightsAreScaledButKeepEveryDestination() {
        int[] seq = LoadBalancer.smoothSequence(new int[] {1, 1_000_000, 999_999});
        assertThat(seq.length).isBetween(LoadBalancer.MAX_SEQUENCE - 2, LoadBalancer.MAX_SEQUENCE + 3);
        assertThat(seq).contains(0, 1, 2);
    }

    /** Idle destinations (every request ends before the next pick): each strategy but first-available follows the weights. */
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = "FIRST_AVAILABLE", mode = EnumSource.Mode.EXCLUDE)
    void weightsAreRespected(Strategy strategy) {
        int[] weights = {1, 2, 3, 4};
        LoadBalancer lb = new LoadBalancer(strategy, states(weights));
        int[] counts = pickMany(lb, -1);
        for (int i = 0; i < weights.length; i++) {
            // Random picks: 1 percentage point is over 6 standard deviations at 100k picks.
            assertThat((double) counts[i] / PICKS).as("share of %d under %s", i, strategy).isCloseTo(weights[i] / 10.0, within(0.01));
        }
    }

    @Test
    void roundRobinIsExactOverWholeCycles() {
        LoadBalancer lb = new LoadBalancer(Strategy.ROUND_ROBIN, states(new int[] {3, 1}));
        int[] counts = new int[2];
        for (int i = 0; i < 400; i++) {
            counts[lb.choose(NOW, -1)]++;
        }
        assertThat(counts).containsExactly(300, 100);
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void unavailableDestinationsAreSkippedAndTheRestKeepTheirProportions(Strategy strategy) {
        DestinationState[] ds = states(new int[] {1, 5, 1, 2});
        ds[1].markActiveHealthy(false);
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        int[] counts = pickMany(lb, -1);
        assertThat(counts[1]).isZero();
        if (strategy == Strategy.FIRST_AVAILABLE) {
            assertThat(counts[0]).isEqualTo(PICKS);
        } else {
            assertThat((double) counts[3] / PICKS).isCloseTo(0.5, within(0.015));
            assertThat((double) counts[0] / PICKS).isCloseTo(0.25, within(0.015));
        }
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void excludedDestinationIsAvoidedWhileAnotherIsAvailable(Strategy strategy) {
        LoadBalancer lb = new LoadBalancer(strategy, states(new int[] {1, 1, 1}));
        int[] counts = pickMany(lb, 0);
        assertThat(counts[0]).isZero();
        assertThat(counts[1] + counts[2]).isEqualTo(PICKS);
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void excludedDestinationIsChosenWhenItIsTheOnlyOneAvailable(Strategy strategy) {
        DestinationState[] ds = states(new int[] {1, 1, 1});
        ds[0].markActiveHealthy(false);
        ds[2].markActiveHealthy(false);
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        assertThat(lb.choose(NOW, 1)).isEqualTo(1);
        LoadBalancer single = new LoadBalancer(strategy, states(new int[] {7}));
        assertThat(single.choose(NOW, 0)).isZero();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void allDownGivesMinusOne(Strategy strategy) {
        DestinationState[] ds = states(new int[] {1, 2, 3});
        for (DestinationState d : ds) {
            d.markActiveHealthy(false);
        }
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        assertThat(lb.choose(NOW, -1)).isEqualTo(-1);
        assertThat(lb.choose(NOW, 2)).isEqualTo(-1);
        assertThat(new LoadBalancer(strategy, new DestinationState[0]).choose(NOW, -1)).isEqualTo(-1);
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void passivelyEjectedDestinationIsSkippedUntilItsTimeIsUp(Strategy strategy) {
        PassiveHealth passive = new PassiveHealth(2, Duration.ofSeconds(10), Duration.ofSeconds(60));
        DestinationState[] ds = {new DestinationState(0, 1, passive), new DestinationState(1, 1, passive)};
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        ds[0].onFailure(NOW);
        ds[0].onFailure(NOW);
        for (int i = 0; i < 1_000; i++) {
            assertThat(lb.choose(NOW + i, -1)).isEqualTo(1);
        }
        ds[1].markActiveHealthy(false);
        assertThat(lb.choose(NOW + Duration.ofSeconds(10).toNanos() - 1, -1)).isEqualTo(-1);
        assertThat(lb.choose(NOW + Duration.ofSeconds(10).toNanos(), -1)).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"LEAST_REQUESTS", "POWER_OF_TWO_CHOICES"})
    void fewerRequestsInFlightWins(Strategy strategy) {
        DestinationState[] ds = states(new int[] {1, 1});
        for (int i = 0; i < 5; i++) {
            ds[0].requestStarted();
        }
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        for (int i = 0; i < 1_000; i++) {
            assertThat(lb.choose(NOW, -1)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"LEAST_REQUESTS", "POWER_OF_TWO_CHOICES"})
    void requestsInFlightAreScaledByWeight(Strategy strategy) {
        // 3 in flight at weight 4 (0.75 each) is lighter than 1 at weight 1.
        DestinationState[] ds = states(new int[] {1, 4});
        ds[0].requestStarted();
        for (int i = 0; i < 3; i++) {
            ds[1].requestStarted();
        }
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        for (int i = 0; i < 1_000; i++) {
            assertThat(lb.choose(NOW, -1)).isEqualTo(1);
        }
    }

    @Test
    void leastRequestsBreaksTiesByRotation() {
        DestinationState[] ds = states(new int[] {1, 1, 1, 1});
        ds[3].requestStarted();
        LoadBalancer lb = new LoadBalancer(Strategy.LEAST_REQUESTS, ds);
        int[] counts = new int[4];
        for (int i = 0; i < 300; i++) {
            counts[lb.choose(NOW, -1)]++;
        }
        // Index 3 is busier; the three idle ones share evenly (the rotation start lands on 3 once
        // per cycle and hands over to 0, so 0 gets that extra turn).
        assertThat(counts[3]).isZero();
        assertThat(counts[1]).isEqualTo(75);
        assertThat(counts[2]).isEqualTo(75);
        assertThat(counts[0]).isEqualTo(150);
    }

    @Test
    void firstAvailableFallsThroughInOrder() {
        DestinationState[] ds = states(new int[] {1, 1, 1});
        LoadBalancer lb = new LoadBalancer(Strategy.FIRST_AVAILABLE, ds);
        assertThat(lb.choose(NOW, -1)).isZero();
        ds[0].markActiveHealthy(false);
        assertThat(lb.choose(NOW, -1)).isEqualTo(1);
        assertThat(lb.choose(NOW, 1)).isEqualTo(2);
        ds[0].markActiveHealthy(true);
        assertThat(lb.choose(NOW, -1)).isZero();
    }

    @Test
    void destinationsMustBeInIndexOrder() {
        DestinationState[] ds = {new DestinationState(1, 1, null), new DestinationState(0, 1, null)};
        assertThatThrownBy(() -> new LoadBalancer(Strategy.RANDOM, ds))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("destinations[0] has index 1 (expected 0");
    }

    @Test
    void weightBelowOneIsRefused() {
        assertThatThrownBy(() -> new DestinationState(0, 0, null)).hasMessageContaining("weight must be at least 1");
    }

    /** Several threads choose, start and end requests while another flips health: nothing throws, and in-flight counts return to 0. */
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void concurrentUseKeepsCountsConsistent(Strategy strategy) throws Exception {
        DestinationState[] ds = states(new int[] {1, 2, 3, 1});
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<int[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    int[] counts = new int[ds.length + 1];
                    int[] held = new int[8];
                    for (int i = 0; i < 50_000; i++) {
                        int slot = i & 7;
                        if (held[slot] > 0) {
                            ds[held[slot] - 1].requestEnded();
                        }
                        int d = lb.choose(System.nanoTime(), i % 5 - 1);
                        counts[d + 1]++;
                        held[slot] = d + 1;
                        if (d >= 0) {
                            ds[d].requestStarted();
                        }
                    }
                    for (int h : held) {
                        if (h > 0) {
                            ds[h - 1].requestEnded();
                        }
                    }
                    return counts;
                }));
            }
            Future<?> flipper = pool.submit(() -> {
                go.await();
                for (int i = 0; running.get(); i++) {
                    ds[i & 3].markActiveHealthy((i & 4) == 0);
                }
                return null;
            });
            go.countDown();
            long total = 0;
            for (Future<int[]> f : results) {
                int[] counts = f.get(30, TimeUnit.SECONDS);
                for (int c : counts) {
                    total += c;
                }
            }
            running.set(false);
            flipper.get(5, TimeUnit.SECONDS);
            assertThat(total).isEqualTo(threads * 50_000L);
            for (DestinationState d : ds) {
                assertThat(d.inFlight()).as("in flight at %d", d.index()).isZero();
            }
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void recentlyFailedDestinationIsSkippedWhileAnotherIsAvailable(Strategy strategy) {
        DestinationState[] ds = states(new int[] {1, 1, 1});
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        ds[0].onConnectionFailure(NOW);
        ds[2].markActiveHealthy(false);
        for (int i = 0; i < 1_000; i++) {
            assertThat(lb.choose(NOW, -1)).isEqualTo(1);
        }
        // Soft: when every available destination failed recently, one of them is still chosen.
        ds[1].onConnectionFailure(NOW);
        int[] counts = new int[3];
        for (int i = 0; i < 1_000; i++) {
            counts[lb.choose(NOW, -1)]++;
        }
        assertThat(counts[2]).isZero();
        assertThat(counts[0] + counts[1]).isEqualTo(1_000);
        // The mark ends after avoidFor (no passive settings: 30 s) or with the next response.
        assertThat(ds[0].isFailedRecently(NOW + Duration.ofSeconds(30).toNanos())).isFalse();
        ds[1].onSuccess();
        assertThat(ds[1].isFailedRecently(NOW)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aRetryNeverGoesToADestinationAlreadyTried(Strategy strategy) {
        DestinationState[] ds = states(new int[] {5, 1, 1});
        LoadBalancer lb = new LoadBalancer(strategy, ds);
        for (int i = 0; i < 1_000; i++) {
            int d = lb.chooseRetry(NOW, LoadBalancer.bit(0), 0);
            assertThat(d).isIn(1, 2);
            assertThat(lb.chooseRetry(NOW, LoadBalancer.bit(0) | LoadBalancer.bit(d), d)).isEqualTo(d == 1 ? 2 : 1);
        }
        assertThat(lb.chooseRetry(NOW, LoadBalancer.bit(0) | LoadBalancer.bit(1) | LoadBalancer.bit(2), 2)).isEqualTo(-1);
        // A tried destination stays out even when it is the only available one: no retry then.
        ds[1].markActiveHealthy(false);
        ds[2].markActiveHealthy(false);
        assertThat(lb.chooseRetry(NOW, LoadBalancer.bit(0), 0)).isEqualTo(-1);
        // A recently failed destination is a retry's last resort.
        ds[1].markActiveHealthy(true);
        ds[1].onConnectionFailure(NOW);
        assertThat(lb.chooseRetry(NOW, LoadBalancer.bit(0), 0)).isEqualTo(1);
    }

    @Test
    void retriesPastSixtyFourDestinationsExcludeAtLeastTheLastOne() {
        int[] weights = new int[70];
        java.util.Arrays.fill(weights, 1);
        LoadBalancer lb = new LoadBalancer(Strategy.ROUND_ROBIN, states(weights));
        assertThat(LoadBalancer.bit(68)).isZero();
        for (int i = 0; i < 10_000; i++) {
            assertThat(lb.chooseRetry(NOW, LoadBalancer.bit(3), 68)).isNotIn(3, 68);
        }
    }

    /** The case: a retry used to take the next round-robin turn, so every first attempt met the same destination. */
    @Test
    void aRetryDoesNotMoveTheRoundRobinPosition() {
        LoadBalancer lb = new LoadBalancer(Strategy.ROUND_ROBIN, states(new int[] {1, 1}));
        int first = lb.choose(NOW, -1);
        for (int i = 0; i < 10; i++) {
            assertThat(lb.chooseRetry(NOW, LoadBalancer.bit(first), first)).isEqualTo(1 - first);
            int next = lb.choose(NOW, -1);
            assertThat(next).isEqualTo(1 - first);
            first = next;
        }
    }

    static DestinationState[] states(int[] weights) {
        DestinationState[] ds = new DestinationState[weights.length];
        for (int i = 0; i < weights.length; i++) {
            ds[i] = new DestinationState(i, weights[i], null);
        }
        return ds;
    }

    private static int[] pickMany(LoadBalancer lb, int exclude) {
        int[] counts = new int[lb.size()];
        for (int i = 0; i < PICKS; i++) {
            int d = lb.choose(NOW, exclude);
            counts[d]++;
            lb.destination(d).requestStarted();
            lb.destination(d).requestEnded();
        }
        return counts;
    }
}
