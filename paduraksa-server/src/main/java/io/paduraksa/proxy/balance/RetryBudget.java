package io.paduraksa.proxy.balance;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Caps retries so that a failing cluster is not hit with a multiple of its normal load (a retry
 * storm). Modelled on Finagle's {@code RetryBudget} (a ratio of recent requests plus a floor of
 * retries per second) and Envoy's retry budget: a retry is allowed while
 * <ul>
 * <li>retries in the last {@value #WINDOW_SECONDS} seconds are below {@code ratio} times the
 * requests in those seconds, or</li>
 * <li>retries in the current second are below {@code minPerSecond}, so that a quiet cluster can
 * still retry the odd failure.</li>
 * </ul>
 * Over any window the retries therefore stay at or below {@code ratio * requests + minPerSecond *
 * seconds}. The forwarder calls {@link #onRequest} once per client request (not per retry) and
 * {@link #tryAcquire} before each retry. One instance per cluster, shared by every event loop.
 *
 * <p>Both methods run per request on an event loop: lock-free and allocation-free
 * ({@code LoadBalancerAllocationTest}). Counts live in a ring of {@value #WINDOW_SECONDS} one-second
 * buckets; each bucket is one {@code long} holding the second it counts (high 32 bits) and the count
 * (low 32 bits), so moving a bucket to a new second and counting in it is one compare-and-set, and
 * {@link #tryAcquire} takes a retry only if the bucket did not change since it checked the budget.
 */
public final class RetryBudget {
    /** Length of the sliding window, in one-second buckets. */
    public static final int WINDOW_SECONDS = 10;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;
    private static final VarHandle BUCKETS = MethodHandles.arrayElementVarHandle(long[].class);

    private final double ratio;
    private final int minPerSecond;
    private final long[] requests = new long[WINDOW_SECONDS];
    private final long[] retries = new long[WINDOW_SECONDS];

    /**
     * @param ratio        retries allowed per request over the window (0.2 = one retry per five requests)
     * @param minPerSecond retries allowed in every second whatever the traffic
     */
    public RetryBudget(double ratio, int minPerSecond) {
        if (!(ratio >= 0) || Double.isInfinite(ratio)) {
            throw new IllegalArgumentException("ratio must be a finite number >= 0 (got " + ratio + ")");
        }
        if (minPerSecond < 0) {
            throw new IllegalArgumentException("minPerSecond must be >= 0 (got " + minPerSecond + ")");
        }
        this.ratio = ratio;
        this.minPerSecond = minPerSecond;
    }

    /** Counts one client request (a deposit into the budget). */
    public void onRequest(long nowNanos) {
        increment(requests, second(nowNanos));
    }

    /** True, and the retry counted, when the budget allows one more retry now; false otherwise. */
    public boolean tryAcquire(long nowNanos) {
        int second = second(nowNanos);
        int slot = slot(second);
        long[] ret = retries;
        while (true) {
            long bucket = (long) BUCKETS.getVolatile(ret, slot);
            long thisSecond = countIn(bucket, second);
            if (thisSecond >= minPerSecond && sumOthers(ret, second, slot) + thisSecond >= allowedByRatio(second)) {
                return false;
            }
            if (BUCKETS.compareAndSet(ret, slot, bucket, packed(second, thisSecond + 1))) {
                return true;
            }
        }
    }

    /** Requests counted in the window ending at {@code nowNanos}. */
    public long requestsInWindow(long nowNanos) {
        int second = second(nowNanos);
        return sumOthers(requests, second, -1);
    }

    /** Retries taken in the window ending at {@code nowNanos}. */
    public long retriesInWindow(long nowNanos) {
        int second = second(nowNanos);
        return sumOthers(retries, second, -1);
    }

    private long allowedByRatio(int second) {
        return (long) (ratio * sumOthers(requests, second, -1));
    }

    private static void increment(long[] buckets, int second) {
        int slot = slot(second);
        while (true) {
            long bucket = (long) BUCKETS.getVolatile(buckets, slot);
            if (BUCKETS.compareAndSet(buckets, slot, bucket, packed(second, countIn(bucket, second) + 1))) {
                return;
            }
        }
    }

    /** Sum over the buckets that belong to the window ending in {@code second}, except {@code skipSlot}. */
    private static long sumOthers(long[] buckets, int second, int skipSlot) {
        long sum = 0;
        for (int i = 0; i < WINDOW_SECONDS; i++) {
            if (i != skipSlot) {
                sum += countIn((long) BUCKETS.getVolatile(buckets, i), second);
            }
        }
        return sum;
    }

    /** The bucket's count if it belongs to the window ending in {@code second}, else 0 (a stale second). */
    private static long countIn(long bucket, int second) {
        int age = second - (int) (bucket >>> 32);
        return age >= 0 && age < WINDOW_SECONDS ? bucket & COUNT_MASK : 0;
    }

    private static long packed(int second, long count) {
        return ((long) second << 32) | Math.min(count, COUNT_MASK);
    }

    /** Seconds on the {@code System.nanoTime} scale, truncated to 32 bits; compared by difference, so wrapping is harmless. */
    private static int second(long nowNanos) {
        return (int) Math.floorDiv(nowNanos, NANOS_PER_SECOND);
    }

    private static int slot(int second) {
        return Math.floorMod(second, WINDOW_SECONDS);
    }
}
