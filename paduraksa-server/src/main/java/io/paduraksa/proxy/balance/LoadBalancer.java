package io.paduraksa.proxy.balance;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks a destination of one cluster per request (and per retry). One instance per cluster per
 * config load, shared by every event loop.
 *
 * <p>{@link #choose} runs per request on an event loop: lock-free (one shared counter bumped with
 * {@link VarHandle#getAndAdd}, {@link ThreadLocalRandom}, volatile reads of each destination's
 * state) and allocation-free ({@code LoadBalancerAllocationTest}). With every destination
 * available it costs one pick; otherwise the first pick that lands on an unavailable destination
 * falls back to a weighted-random pick among the available ones, two passes over the array, so the
 * missing destination's share spreads over the others in proportion to their weights instead of
 * landing on its neighbour.
 *
 * <p>A destination that failed recently (a refused or reset connection,
 * {@link DestinationState#isFailedRecently}) is skipped like an unavailable one as long as another
 * destination is available; only then is it chosen. {@link #chooseRetry} never returns a
 * destination the request already tried, so a retry always lands somewhere else (or does not
 * happen); whether to retry at all is for {@link RetryBudget} and the forwarder to decide.
 */
public final class LoadBalancer {
    /** Longest round-robin sequence; heavier weight sets are scaled down to about this length. */
    static final int MAX_SEQUENCE = 4096;
    private static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(LoadBalancer.class, "next", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Strategy strategy;
    private final DestinationState[] destinations;
    private final int[] weights;
    /** {@code cumulative[i]} = sum of {@code weights[0..i]}, for weighted-random picks by binary search. */
    private final long[] cumulative;
    private final long totalWeight;
    /** Smooth weighted round-robin order of destination indices; also the tie-break rotation of least-requests. */
    private final int[] sequence;
    /** Shared position in {@link #sequence}; wraps harmlessly after 2^31 picks. */
    @SuppressWarnings("unused")
    private volatile int next;

    public LoadBalancer(Strategy strategy, DestinationState[] destinations) {
        this.strategy = strategy;
        this.destinations = destinations.clone();
        int n = destinations.length;
        this.weights = new int[n];
        this.cumulative = new long[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            if (destinations[i].index() != i) {
                throw new IllegalArgumentException("destinations[" + i + "] has index " + destinations[i].index()
                        + " (expected " + i + ": choose() returns array positions)");
            }
            weights[i] = destinations[i].weight();
            total += weights[i];
            cumulative[i] = total;
        }
        this.totalWeight = total;
        this.sequence = smoothSequence(weights);
        if (n > 0) {
            // Start each reload at a random point so that many proxies restarted together do not
            // all send their first requests to destination 0.
            this.next = ThreadLocalRandom.current().nextInt(sequence.length);
        }
    }

    public int size() {
        return destinations.length;
    }

    public DestinationState destination(int index) {
        return destinations[index];
    }

    /**
     * Index of the chosen destination, or -1 when none is available (the forwarder answers 503).
     * {@code exclude}: an index to avoid unless it is the only one available; -1 for none.
     * Destinations that failed recently ({@link DestinationState#isFailedRecently}) are skipped
     * while another one is available.
     */
    public int choose(long nowNanos, int exclude) {
        long mask = bit(exclude);
        int d = chooseOther(nowNanos, mask, exclude, true);
        if (d < 0) {
            d = chooseOther(nowNanos, mask, exclude, false);
        }
        if (d < 0 && exclude >= 0 && exclude < destinations.length && destinations[exclude].isAvailable(nowNanos)) {
            return exclude;
        }
        return d;
    }

    /**
     * The destination for a retry, or -1 when every available destination was tried already: never
     * one in {@code tried} (bit {@code i} for destination {@code i} below 64) nor {@code last} (the
     * one that just failed, whatever its index). Recently failed destinations are skipped while
     * another one is left. Round robin and random pick by weight among the rest without moving the
     * shared round-robin position, so that a retry does not shift the next request's turn.
     */
    public int chooseRetry(long nowNanos, long tried, int last) {
        int d = chooseForRetry(nowNanos, tried, last, true);
        return d >= 0 ? d : chooseForRetry(nowNanos, tried, last, false);
    }

    /** The bit of {@code index} in a {@code tried} mask of {@link #chooseRetry}; 0 for -1 and indices past 63. */
    public static long bit(int index) {
        return index >= 0 && index < Long.SIZE ? 1L << index : 0;
    }

    private int chooseForRetry(long nowNanos, long tried, int last, boolean skipRecent) {
        if (destinations.length == 0) {
            return -1;
        }
        return switch (strategy) {
            case ROUND_ROBIN, RANDOM -> weightedAmongEligible(nowNanos, tried, last, skipRecent, -1);
            case LEAST_REQUESTS -> leastRequests(nowNanos, tried, last, skipRecent);
            case POWER_OF_TWO_CHOICES -> powerOfTwoChoices(nowNanos, tried, last, skipRecent);
            case FIRST_AVAILABLE -> firstAvailable(nowNanos, tried, last, skipRecent);
        };
    }

    private int chooseOther(long nowNanos, long mask, int exclude, boolean skipRecent) {
        if (destinations.length == 0) {
            return -1;
        }
        return switch (strategy) {
            case ROUND_ROBIN -> roundRobin(nowNanos, mask, exclude, skipRecent);
            case LEAST_REQUESTS -> leastRequests(nowNanos, mask, exclude, skipRecent);
            case POWER_OF_TWO_CHOICES -> powerOfTwoChoices(nowNanos, mask, exclude, skipRecent);
            case RANDOM -> random(nowNanos, mask, exclude, skipRecent);
            case FIRST_AVAILABLE -> firstAvailable(nowNanos, mask, exclude, skipRecent);
        };
    }

    private int roundRobin(long nowNanos, long mask, int exclude, boolean skipRecent) {
        int d = sequence[nextPosition()];
        return isEligible(d, nowNanos, mask, exclude, skipRecent) ? d : weightedAmongEligible(nowNanos, mask, exclude, skipRecent, -1);
    }

    /**
     * Full scan for the fewest requests in flight per weight. The scan starts at the round-robin
     * sequence's next destination (or a weighted-random available one when that is unavailable) and
     * a later one must be strictly lighter to win, so ties (an idle cluster above all) follow the
     * weights.
     */
    private int leastRequests(long nowNanos, long mask, int exclude, boolean skipRecent) {
        DestinationState[] ds = destinations;
        int n = ds.length;
        int start = sequence[nextPosition()];
        if (!isEligible(start, nowNanos, mask, exclude, skipRecent)) {
            // As in round robin: spread the missing destination's turns by weight, not onto its neighbour.
            start = weightedAmongEligible(nowNanos, mask, exclude, skipRecent, -1);
            if (start < 0) {
                return -1;
            }
        }
        int best = -1;
        long bestLoad = 0;
        long bestWeight = 1;
        for (int k = 0; k < n; k++) {
            int i = start + k < n ? start + k : start + k - n;
            if (!isEligible(i, nowNanos, mask, exclude, skipRecent)) {
                continue;
            }
            long load = ds[i].inFlight();
            long w = weights[i];
            if (best < 0 || load * bestWeight < bestLoad * w) {
                best = i;
                bestLoad = load;
                bestWeight = w;
            }
        }
        return best;
    }

    private int powerOfTwoChoices(long nowNanos, long mask, int exclude, boolean skipRecent) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int a = weightedPick(random.nextLong(totalWeight));
        if (!isEligible(a, nowNanos, mask, exclude, skipRecent)) {
            a = weightedAmongEligible(nowNanos, mask, exclude, skipRecent, -1);
            if (a < 0) {
                return -1;
            }
        }
        if (destinations.length == 1) {
            return a;
        }
        // A second pick over the weights with a's share cut out, so it is distinct from a.
        long r = random.nextLong(totalWeight - weights[a]);
        long before = cumulative[a] - weights[a];
        int b = weightedPick(r >= before ? r + weights[a] : r);
        if (!isEligible(b, nowNanos, mask, exclude, skipRecent)) {
            b = weightedAmongEligible(nowNanos, mask, exclude, skipRecent, a);
            if (b < 0) {
                return a;
            }
        }
        return lighter(a, b);
    }

    private int lighter(int a, int b) {
        long loadA = destinations[a].inFlight();
        long loadB = destinations[b].inFlight();
        return loadA * weights[b] <= loadB * weights[a] ? a : b;
    }

    private int random(long nowNanos, long mask, int exclude, boolean skipRecent) {
        int d = weightedPick(ThreadLocalRandom.current().nextLong(totalWeight));
        return isEligible(d, nowNanos, mask, exclude, skipRecent) ? d : weightedAmongEligible(nowNanos, mask, exclude, skipRecent, -1);
    }

    private int firstAvailable(long nowNanos, long mask, int exclude, boolean skipRecent) {
        for (int i = 0; i < destinations.length; i++) {
            if (isEligible(i, nowNanos, mask, exclude, skipRecent)) {
                return i;
            }
        }
        return -1;
    }

    private int nextPosition() {
        int length = sequence.length;
        if (length == 1) {
            return 0; // one destination: no turn to take, and no shared counter to bump from every event loop
        }
        int p = (int) NEXT.getAndAdd(this, 1) & Integer.MAX_VALUE;
        return p % length;
    }

    /**
     * Available, not {@code exclude}, not in {@code mask} and, with {@code skipRecent}, not failed
     * recently. A shift by 64 or more wraps in Java, hence the bound on the mask test.
     */
    private boolean isEligible(int i, long nowNanos, long mask, int exclude, boolean skipRecent) {
        if (i == exclude || (i < Long.SIZE && (mask & (1L << i)) != 0)) {
            return false;
        }
        DestinationState d = destinations[i];
        return d.isAvailable(nowNanos) && !(skipRecent && d.isFailedRecently(nowNanos));
    }

    /** The destination whose cumulative weight range holds {@code r} (0 <= r < totalWeight). */
    private int weightedPick(long r) {
        long[] c = cumulative;
        int lo = 0;
        int hi = c.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (c[mid] > r) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * Weighted-random pick among eligible destinations ({@link #isEligible}) other than
     * {@code exclude2}, or -1. Two passes: one to sum the eligible weights, one to pick. A
     * destination that changes state between the passes at worst makes the pick fall on the last
     * eligible one seen.
     */
    private int weightedAmongEligible(long nowNanos, long mask, int exclude, boolean skipRecent, int exclude2) {
        int n = destinations.length;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            if (i != exclude2 && isEligible(i, nowNanos, mask, exclude, skipRecent)) {
                sum += weights[i];
            }
        }
        if (sum == 0) {
            return -1;
        }
        long r = ThreadLocalRandom.current().nextLong(sum);
        int last = -1;
        for (int i = 0; i < n; i++) {
            if (i != exclude2 && isEligible(i, nowNanos, mask, exclude, skipRecent)) {
                r -= weights[i];
                if (r < 0) {
                    return i;
                }
                last = i;
            }
        }
        return last;
    }

    /**
     * nginx's smooth weighted round robin, run once at build time over the weights (divided by
     * their gcd, and scaled to about {@link #MAX_SEQUENCE} when larger): each destination appears
     * weight times, spread out rather than in runs (5,1,1 gives a a b a c a a).
     */
    static int[] smoothSequence(int[] weights) {
        int n = weights.length;
        if (n == 0) {
            return new int[1];
        }
        int[] w = reduced(weights);
        int total = 0;
        for (int x : w) {
            total += x;
        }
        int[] out = new int[total];
        long[] current = new long[n];
        for (int step = 0; step < total; step++) {
            int best = 0;
            for (int i = 0; i < n; i++) {
                current[i] += w[i];
                if (current[i] > current[best]) {
                    best = i;
                }
            }
            current[best] -= total;
            out[step] = best;
        }
        return out;
    }

    private static int[] reduced(int[] weights) {
        int g = 0;
        long sum = 0;
        for (int x : weights) {
            g = gcd(g, x);
            sum += x;
        }
        int[] w = new int[weights.length];
        long scaledSum = sum / g;
        for (int i = 0; i < w.length; i++) {
            long x = weights[i] / g;
            // Past MAX_SEQUENCE, keep proportions to about 1/MAX_SEQUENCE and every destination in.
            w[i] = scaledSum <= MAX_SEQUENCE ? (int) x : (int) Math.max(1, Math.round((double) x * MAX_SEQUENCE / scaledSum));
        }
        return w;
    }

    private static int gcd(int a, int b) {
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
