package io.paduraksa.server.cycle;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * A test and benchmark hook that sums the event-loop thread's allocated bytes around the gate's
 * synchronous section ({@code Gate.run} and the decision, not the write). Handlers call it only
 * when one is installed; the bracketing call ({@code getCurrentThreadAllocatedBytes}) is itself
 * allocation-free. Counts requests, the bytes, and how many requests allocated anything.
 */
public final class GateMeter {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final LongAdder requests = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder nonZero = new LongAdder();
    private final LongAccumulator maxSingle = new LongAccumulator(Math::max, 0);
    private volatile boolean enabled;

    public GateMeter() {
        THREADS.setThreadAllocatedMemoryEnabled(true);
    }

    /** Starts or stops counting (warm-up runs with counting off). */
    public void enabled(boolean on) {
        this.enabled = on;
    }

    /** Called before the gate; returns the token to pass to {@link #after}. */
    public long before() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    public void after(long before) {
        long delta = THREADS.getCurrentThreadAllocatedBytes() - before;
        if (!enabled) {
            return;
        }
        requests.increment();
        if (delta != 0) {
            bytes.add(delta);
            nonZero.increment();
            maxSingle.accumulate(delta);
        }
    }

    /**
     * Like {@link #after}, for a body phase's step of a request already counted (its body chunks and
     * end): the bytes count, the request does not count again.
     */
    public void addBody(long before) {
        long delta = THREADS.getCurrentThreadAllocatedBytes() - before;
        if (enabled && delta != 0) {
            bytes.add(delta);
            nonZero.increment();
            maxSingle.accumulate(delta);
        }
    }

    public long requests() {
        return requests.sum();
    }

    public long bytes() {
        return bytes.sum();
    }

    public long nonZeroRequests() {
        return nonZero.sum();
    }

    public long maxSingleRequest() {
        return maxSingle.get();
    }

    public void reset() {
        requests.reset();
        bytes.reset();
        nonZero.reset();
        maxSingle.reset();
    }

    @Override
    public String toString() {
        return bytes() + " B over " + requests() + " requests (" + nonZeroRequests() + " non-zero, largest " + maxSingleRequest() + " B)";
    }
}
