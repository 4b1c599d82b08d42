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
    /** Settling rounds ({@code iterations} calls each) {@link #assertZero} allows before the counted loop. */
    public static final int SETTLE_ROUNDS = 3;
    /** The counted loop is this many times {@code iterations} calls, and must allocate 0 B in total. */
    public static final int COUNTED_FACTOR = 5;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationAssert() {
    }

    /** The code under measurement; {@code state} carries everything it needs. */
    @FunctionalInterface
    public interface Step<S> {
        void run(S state) throws Exception;
    }

    /**
     * What a measurement saw. {@code firstNonZeroIteration} is -1 when every call was 0 B;
     * {@code settling} lists the bytes of each settling round {@link #assertZero} ran before its
     * counted loop (empty for {@link #measure}).
     */
    public record Result(String what, int iterations, long totalBytes, long maxSingleCall, int firstNonZeroIteration,
            String settling) {
        public double bytesPerCall() {
            return iterations == 0 ? 0 : (double) totalBytes / iterations;
        }

        @Override
        public String toString() {
            return what + ": " + totalBytes + " B over " + iterations + " calls (" + String.format("%.2f", bytesPerCall())
                    + " B/call, largest call " + maxSingleCall + " B, first non-zero iteration " + firstNonZeroIteration + ")"
                    + (settling.isEmpty() ? "" : "; settling rounds: [" + settling + "]");
        }
    }

    /** {@link #assertZero(String, Object, Step, int, int)} with {@link #DEFAULT_WARMUP} and {@link #DEFAULT_ITERATIONS}. */
    public static <S> Result assertZero(String what, S state, Step<S> step) {
        return assertZero(what, state, step, DEFAULT_WARMUP, DEFAULT_ITERATIONS);
    }

    /**
     * Fails unless, after warm-up, {@code COUNTED_FACTOR * iterations} consecutive calls allocate
     * 0 B in total. Before that count, up to {@value #SETTLE_ROUNDS} settling rounds of
     * {@code iterations} measured calls run until one is 0 B: a one-off from the JIT (a
     * deoptimisation that re-materialises scalar-replaced objects, or a late compilation on a
     * loaded machine) lands there, and each round's bytes are in the result and the failure. A
     * steady-state allocation makes every settling round allocate and fails; a rare one (once in
     * many thousand calls) shows in the long counted loop, which has no retry.
     */
    public static <S> Result assertZero(String what, S state, Step<S> step, int warmup, int iterations) {
        Result r = onThread(what, () -> settleAndCount(what, state, step, warmup, iterations));
        if (r.totalBytes() != 0 || r.iterations() == 0) {
            throw new AssertionError("expected 0 bytes allocated per call, but "
                    + (r.iterations() == 0 ? "no settling round was clean: " : "the counted loop allocated: ") + r);
        }
        return r;
    }

    /** Measures without judging (for tests that show the helper catches allocations). */
    public static <S> Result measure(String what, S state, Step<S> step, int warmup, int iterations) {
        return onThread(what, () -> run(what, state, step, warmup, iterations));
    }

    private interface Measurement {
        Result run() throws Exception;
    }

    private static Result onThread(String what, Measurement m) {
        if (!THREADS.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot measure per-thread allocation");
        }
        THREADS.setThreadAllocatedMemoryEnabled(true);
        Result[] out = new Result[1];
        Throwable[] failure = new Throwable[1];
        Thread t = new FastThreadLocalThread(() -> {
            try {
                out[0] = m.run();
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
     * One loop for warm-up, settling rounds and the counted calls, with the same bracketing in
     * every iteration (see {@link #run}); returns the counted calls, or a result of 0 iterations
     * when no settling round was clean.
     */
    private static <S> Result settleAndCount(String what, S state, Step<S> step, int warmup, int iterations) throws Exception {
        StringBuilder settling = new StringBuilder();
        long round = 0;
        int roundsDone = 0;
        int roundEnd = warmup + iterations;
        int counting = -1;
        long total = 0;
        long max = 0;
        int first = -1;
        int counted = iterations * COUNTED_FACTOR;
        for (int i = 0; ; i++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            step.run(state);
            long delta = THREADS.getCurrentThreadAllocatedBytes() - before;
            if (counting >= 0) {
                if (delta != 0) {
                    total += delta;
                    max = Math.max(max, delta);
                    if (first < 0) {
                        first = i - counting;
                    }
                }
                if (i - counting + 1 == counted) {
                    return new Result(what, counted, total, max, first, settling.toString());
                }
            } else if (i >= warmup) {
                round += delta;
                if (i + 1 == roundEnd) {
                    settling.append(roundsDone == 0 ? "" : ", ").append(round).append(" B");
                    roundsDone++;
                    if (round == 0) {
                        counting = i + 1;
                    } else if (roundsDone == SETTLE_ROUNDS) {
                        return new Result(what, 0, round, 0, -1, settling.toString());
                    }
                    round = 0;
                    roundEnd += iterations;
                }
            }
        }
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
        return new Result(what, iterations, total, max, first, "");
    }
}
