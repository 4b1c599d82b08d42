package io.paduraksa.bench.cache;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * Two kinds of request timed against each other: rounds that run one kind, then the other, read
 * one thread's CPU clock and allocated bytes around each, and report the medians and the ratio of
 * the second to the first, so that a loaded machine affects both alike.
 */
final class InterleavedRounds {
    /** Sends {@code requests} requests of one kind. */
    interface Kind {
        void run(int requests) throws Exception;
    }

    private InterleavedRounds() {
    }

    /** Runs {@code rounds} rounds of {@code perRound} requests of each kind, timing {@code thread}; returns the report line. */
    static String measure(long thread, int rounds, int perRound, Kind first, Kind second) throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double[] a = new double[rounds];
        double[] b = new double[rounds];
        double[] ratio = new double[rounds];
        long bytes = 0;
        for (int r = 0; r < rounds; r++) {
            long b0 = threads.getThreadAllocatedBytes(thread);
            long t0 = threads.getThreadCpuTime(thread);
            first.run(perRound);
            long t1 = threads.getThreadCpuTime(thread);
            second.run(perRound);
            long t2 = threads.getThreadCpuTime(thread);
            bytes += threads.getThreadAllocatedBytes(thread) - b0;
            a[r] = (t1 - t0) / (double) perRound;
            b[r] = (t2 - t1) / (double) perRound;
            ratio[r] = b[r] / a[r];
        }
        Arrays.sort(a);
        Arrays.sort(b);
        Arrays.sort(ratio);
        return String.format("median of %d rounds of %,d: gate answer %.0f ns, cache hit %.0f ns; hit/answer %.2f (rounds' ratios"
                + " %.2f to %.2f); %,d B allocated over %,d requests", rounds, perRound, a[rounds / 2], b[rounds / 2],
                ratio[rounds / 2], ratio[0], ratio[rounds - 1], bytes, 2L * rounds * perRound);
    }
}
