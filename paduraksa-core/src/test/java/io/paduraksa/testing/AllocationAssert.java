package io.paduraksa.testing;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.lang.management.ManagementFactory;

/**
 * Exact per-thread allocation measurement for hot-path code.
 *
 * <p>The step runs on a {@link FastThreadLocalThread} (Netty pools such as {@code Recycler} only
 * pool there, as on an event loop), is warmed up, and then every measured call is bracketed with
 * {@link com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes()}, which is exact (not
 * sampled) and itself allocation-free. A failure names the total, bytes per call, the largest
 * single call and the first offending iteration, so a one-off lazy initialisation is easy to
 * tell from a per-call allocation.
 *
 * <p>The step gets its state as an argument: pass a non-capturing lambda or method reference, so
 * the test neither measures nor hides a capture.
 */
public final class AllocationAssert {
    public static final int DEFAULT_WARMUP = 100_000;
    public static final int DEFAULT_ITERATIONS = 20_000;
    /** Measurements {@link #assertZero} takes before it fails. */
    public static final int ATTEMPTS = 3;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationAssert() {
    }

    /** The code under measurement; {@code state} carries everything it needs. */
    @FunctionalInterface
    public interface Step<S> {
        void run(S state) throws Exception;
    }

    /** What a measurement saw. {@code firstNonZeroIteration} is -1 when every call was 0 B. */
    public record Result(String what, int iterations, long totalBytes, long maxSingleCall, int firstNonZeroIteration) {
        public double bytesPerCall() {
            return iterations == 0 ? 0 : (double) totalBytes / iterations;
        }

        @Override
        public String toString() {
            return what + ": " + totalBytes + " B over " + iterations + " calls (" + String.format("%.2f", bytesPerCall())
                    + " B/call, largest call " + maxSingleCall + " B, first non-zero iteration " + firstNonZeroIteration + ")";
        }
    }

    /** Fails unless every one of {@link #DEFAULT_ITERATIONS} calls after {@link #DEFAULT_WARMUP} warm-up calls allocates 0 B. */
    public static <S> Result assertZero(String what, S state, Step<S> step) {
        return assertZero(what, state, step, DEFAULT_WARMUP, DEFAULT_ITERATIONS);
    }

    /**
     * Fails unless a measurement of {@code iterations} calls allocates 0 B. A steady-state
     * allocation shows in every measurement; a one-off from the JIT (a deoptimisation that
     * re-materialises scalar-replaced objects, or a late compilation on a loaded machine) does not.
     * So a failed measurement is repeated, on the same warm state, up to {@value #ATTEMPTS} times in
     * all, and the test fails only when every attempt allocated; the message lists each attempt.
     */
    public static <S> Result assertZero(String what, S state, Step<S> step, int warmup, int iterations) {
        StringBuilder attempts = new StringBuilder();
        Result r = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            r = measure(what, state, step, attempt == 1 ? warmup : warmup / 4, iterations);
            if (r.totalBytes() == 0) {
                return r;
            }
            attempts.append("\n  attempt ").append(attempt).append(": ").append(r);
        }
        throw new AssertionError("expected 0 bytes allocated per call, but every attempt allocated:" + attempts);
    }

    /** Measures without judging (for tests that show the helper catches allocations). */
    public static <S> Result measure(String what, S state, Step<S> step, int warmup, int iterations) {
        if (!THREADS.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot measure per-thread allocation");
        }
        THREADS.setThreadAllocatedMemoryEnabled(true);
        Result[] out = new Result[1];
        Throwable[] failure = new Throwable[1];
        Thread t = new FastThreadLocalThread(() -> {
            try {
                out[0] = run(what, state, step, warmup, iterations);
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "allocation-assert");
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while measuring " + what, e);
        }
        if (failure[0] instanceof Error err) {
            throw err;
        }
        if (failure[0] != null) {
            throw new AssertionError(what + " threw while being measured", failure[0]);
        }
        return out[0];
    }

    /**
     * Warm-up and measurement are one loop with the same bracketing calls in every iteration, so
     * the measured iterations run code the JIT has already compiled (OSR included): measuring in a
     * second loop showed rare one-off ~1.2 KB calls on JDK 25 that came from compiling the
     * measuring loop itself, not from the step.
     */
    private static <S> Result run(String what, S state, Step<S> step, int warmup, int iterations) throws Exception {
        long total = 0;
        long max = 0;
        int first = -1;
        int end = warmup + iterations;
        for (int i = 0; i < end; i++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            step.run(state);
            long delta = THREADS.getCurrentThreadAllocatedBytes() - before;
            if (delta != 0 && i >= warmup) {
                total += delta;
                max = Math.max(max, delta);
                if (first < 0) {
                    first = i - warmup;
                }
            }
        }
        return new Result(what, iterations, total, max, first);
    }
}
