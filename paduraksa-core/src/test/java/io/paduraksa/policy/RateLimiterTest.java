package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.TestPolicyInput;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RateLimiterTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long V4 = 0xFFFF_0000_0000L;

    /** A clock the test moves; starts near a negative nanoTime value to catch overflow mistakes. */
    static final class FakeClock implements LongSupplier {
        long now = Long.MAX_VALUE - 5 * SECOND;

        @Override
        public long getAsLong() {
            return now;
        }
    }

    private final FakeClock clock = new FakeClock();

    private RateLimiter limiter(long intervalNanos, int burst, int maxKeys, boolean allowWhenFull, long idleAfter) {
        return new RateLimiter("api-limit", new RateLimiter.Settings(intervalNanos, burst, maxKeys, allowWhenFull, idleAfter), clock, 42);
    }

    private static long ip(int lastByte) {
        return 0xC000_0200L | lastByte; // 192.0.2.x
    }

    private static int admitted(RateLimiter l, long fingerprint, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            n += l.tryAcquire(fingerprint) ? 1 : 0;
        }
        return n;
    }

    @Test
    void aBurstIsAdmittedThenTheKeyIsLimited() {
        RateLimiter l = limiter(100 * MS, 20, 1000, false, 600 * SECOND);
        long key = l.fingerprint(V4, ip(1), 0);

        assertThat(admitted(l, key, 20)).isEqualTo(20);
        assertThat(l.tryAcquire(key)).isFalse();
        assertThat(l.tryAcquire(key)).as("a limited request does not consume").isFalse();
    }

    @Test
    void theBucketRefillsAtTheRate() {
        RateLimiter l = limiter(100 * MS, 20, 1000, false, 600 * SECOND);
        long key = l.fingerprint(V4, ip(1), 0);
        admitted(l, key, 25);

        clock.now += 99 * MS;
        assertThat(l.tryAcquire(key)).as("99 ms: not yet").isFalse();
        clock.now += MS;
        assertThat(l.tryAcquire(key)).as("100 ms: one request").isTrue();
        assertThat(l.tryAcquire(key)).isFalse();
        clock.now += 10 * SECOND;
        assertThat(admitted(l, key, 30)).as("refilled to the burst, never more").isEqualTo(20);
    }

    @Test
    void keysAreSeparate() {
        RateLimiter l = limiter(SECOND, 2, 1000, false, 600 * SECOND);
        long a = l.fingerprint(V4, ip(1), 0);
        long b = l.fingerprint(V4, ip(2), 0);
        long aOnHost1 = l.fingerprint(V4, ip(1), 1);
        long v6 = l.fingerprint(0x2001_0db8_0000_0000L, ip(1), 0);

        assertThat(admitted(l, a, 5)).isEqualTo(2);
        assertThat(admitted(l, b, 5)).isEqualTo(2);
        assertThat(admitted(l, aOnHost1, 5)).isEqualTo(2);
        assertThat(admitted(l, v6, 5)).isEqualTo(2);
        assertThat(l.keyCount()).isEqualTo(4);
    }

    @Test
    void headerValuesAreKeysAndAMissingHeaderIsOneKeyOfItsOwn() {
        RateLimiter l = limiter(SECOND, 1, 1000, false, 600 * SECOND);
        long missing = l.fingerprint(null);

        assertThat(l.fingerprint("key-a")).isEqualTo(l.fingerprint(new StringBuilder("key-a")));
        assertThat(l.fingerprint("key-a")).isNotEqualTo(l.fingerprint("KEY-A")).isNotEqualTo(l.fingerprint("key-b"));
        assertThat(missing).isNotEqualTo(l.fingerprint("")).isNotEqualTo(l.fingerprint("key-a"));
        assertThat(l.tryAcquire(missing)).isTrue();
        assertThat(l.tryAcquire(l.fingerprint(null))).as("every client without the header shares it").isFalse();
        assertThat(l.tryAcquire(l.fingerprint(""))).as("an empty value is a value").isTrue();
    }

    @ParameterizedTest(name = "allow when full: {0}")
    @ValueSource(booleans = {false, true})
    void aFullTableWithNothingToEvictAppliesWhenFullAndCounts(boolean allowWhenFull) {
        RateLimiter l = limiter(3600 * SECOND, 1, 2, allowWhenFull, 600 * SECOND);
        assertThat(l.tryAcquire(l.fingerprint(V4, ip(1), 0))).isTrue();
        assertThat(l.tryAcquire(l.fingerprint(V4, ip(2), 0))).isTrue();

        boolean third = l.tryAcquire(l.fingerprint(V4, ip(3), 0));
        boolean fourth = l.tryAcquire(l.fingerprint(V4, ip(4), 0));

        assertThat(third).isEqualTo(allowWhenFull);
        assertThat(fourth).isEqualTo(allowWhenFull);
        assertThat(l.fullCount()).isEqualTo(2);
        assertThat(l.keyCount()).isEqualTo(2);
        assertThat(l.tryAcquire(l.fingerprint(V4, ip(1), 0))).as("tracked keys stay limited").isFalse();
    }

    @Test
    void theOldestIdleKeyIsEvicted() {
        RateLimiter l = limiter(3600 * SECOND, 1, 2, false, 600 * SECOND);
        long first = l.fingerprint(V4, ip(1), 0);
        long second = l.fingerprint(V4, ip(2), 0);
        long third = l.fingerprint(V4, ip(3), 0);
        l.tryAcquire(first);
        clock.now += 60 * SECOND;
        l.tryAcquire(second);

        clock.now += 545 * SECOND;
        assertThat(l.tryAcquire(third)).as("605 s: first is idle, second is not").isTrue();
        assertThat(l.fullCount()).isZero();
        assertThat(l.tryAcquire(second)).as("second kept its state").isFalse();
        assertThat(l.tryAcquire(first)).as("first was forgotten, and nothing is idle now").isFalse();
        assertThat(l.fullCount()).isEqualTo(1);
    }

    @Test
    void aRefilledKeyIsEvictedBeforeItIsIdle() {
        RateLimiter l = limiter(100 * MS, 1, 1, false, 600 * SECOND);
        l.tryAcquire(l.fingerprint(V4, ip(1), 0));
        assertThat(l.tryAcquire(l.fingerprint(V4, ip(2), 0))).as("ip 1 still owes time").isFalse();

        clock.now += 100 * MS;
        assertThat(l.tryAcquire(l.fingerprint(V4, ip(2), 0))).as("ip 1 refilled: forgetting it changes nothing").isTrue();
    }

    @Test
    void theTableHasRoomForTwiceMaxKeysInWholeBuckets() {
        assertThat(limiter(SECOND, 1, 100_000, false, SECOND).capacity()).isEqualTo(262_144);
        assertThat(limiter(SECOND, 1, 1, false, SECOND).capacity()).isEqualTo(RateLimiter.BUCKET_SLOTS);
        RateLimiter l = limiter(3600 * SECOND, 1, 10_000, false, 600 * SECOND);
        for (int i = 0; i < 10_000; i++) {
            assertThat(l.tryAcquire(l.fingerprint(V4, i, 0))).isTrue();
        }
        assertThat(l.fullCount()).as("10,000 keys fit without a bucket overflowing").isZero();
        assertThat(l.keyCount()).isEqualTo(10_000);
    }

    @Test
    void concurrentLoopsNeverAdmitMoreThanBurstPlusRateTimesElapsed() throws InterruptedException {
        long interval = MS; // 1000/s
        int burst = 50;
        RateLimiter l = new RateLimiter("hammer", new RateLimiter.Settings(interval, burst, 100, false, SECOND), System::nanoTime, 7);
        long key = l.fingerprint(V4, ip(9), 0);
        AtomicLong admitted = new AtomicLong();
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    long until = System.nanoTime() + 200 * MS;
                    long mine = 0;
                    while (System.nanoTime() < until) {
                        mine += l.tryAcquire(key) ? 1 : 0;
                    }
                    admitted.addAndGet(mine);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        long begin = System.nanoTime();
        start.countDown();
        done.await();
        long elapsed = System.nanoTime() - begin;

        long bound = burst + elapsed / interval + 1;
        assertThat(admitted.get()).isLessThanOrEqualTo(bound).isGreaterThan(burst);
    }

    @Test
    void thePolicyAnswersWithItsDecisionOnceTheKeyIsLimited() {
        RateLimiter l = limiter(SECOND, 1, 100, false, SECOND);
        PolicyDecision limited = PolicyDecision.DROP;
        RateLimitPolicy byRoute = new RateLimitPolicy("api-limit", l, RateLimitPolicy.Key.CLIENT_IP_AND_ROUTE, null, limited);
        TestPolicyInput request = new TestPolicyInput().clientIp(V4, ip(5)).hostAndRoute(0, 1);

        assertThat(byRoute.evaluate(request)).isSameAs(PolicyDecision.CONTINUE);
        assertThat(byRoute.evaluate(request)).isSameAs(limited);
        assertThat(byRoute.evaluate(request.hostAndRoute(0, 2))).as("another route").isSameAs(PolicyDecision.CONTINUE);
        assertThat(byRoute.evaluate(request.hostAndRoute(1, 1))).as("another host").isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void aHeaderKeyReadsTheHeaderByAnyCaseOfItsName() {
        RateLimiter l = limiter(SECOND, 1, 100, false, SECOND);
        RateLimitPolicy byKey = new RateLimitPolicy("per-key", l, RateLimitPolicy.Key.HEADER, "X-Api-Key", PolicyDecision.DROP);
        TestPolicyInput a = new TestPolicyInput().header("x-api-key", "alpha");
        TestPolicyInput b = new TestPolicyInput().header("X-API-KEY", "beta");
        TestPolicyInput none = new TestPolicyInput();

        assertThat(byKey.evaluate(a).isContinue()).isTrue();
        assertThat(byKey.evaluate(a).isContinue()).isFalse();
        assertThat(byKey.evaluate(b).isContinue()).isTrue();
        assertThat(byKey.evaluate(none).isContinue()).isTrue();
        assertThat(byKey.evaluate(none).isContinue()).isFalse();
    }
}
