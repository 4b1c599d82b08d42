package io.paduraksa.server.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Polls a condition until it holds or a deadline passes (then fails naming what was awaited): how
 * tests wait for something another thread does, instead of sleeping a fixed time and hoping.
 */
public final class Await {
    private static final Duration DEFAULT = Duration.ofSeconds(5);
    private static final long POLL_MILLIS = 10;

    private Await() {
    }

    /** Waits up to 5 s for {@code condition}. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, condition, DEFAULT);
    }

    public static void until(String what, BooleanSupplier condition, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + limit.toMillis() + " ms: " + what);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what, e);
            }
        }
    }
}
