package io.paduraksa.testing;

/**
 * Gets {@link AllocationAssert}'s measuring loop compiled before a test measures anything.
 *
 * <p>Why: {@code AllocationAssert} warms the step in one loop and measures it in a second one. On
 * JDK 25 the second loop is entered interpreted and switched to on-stack-replacement (OSR) code a
 * few hundred iterations in, and that switch was charged 896-1,168 B once to the measured thread
 * (seen in about half the runs of {@code IpParserAllocationTest}; never with
 * {@code -XX:-UseOnStackReplacement} or {@code -XX:TieredStopAtLevel=1}). Calling the harness
 * often enough that its method is compiled as a whole removes the OSR switch, and calling it with
 * three step types makes the step call site megamorphic, so a later test's step does not
 * deoptimise it. A fix inside {@code AllocationAssert} (one loop for warm-up and measurement)
 * would make this class unnecessary.
 */
public final class AllocationWarmup {
    private static boolean done;

    private AllocationWarmup() {
    }

    /** Runs once per JVM; cheap afterwards. Call it from a {@code @BeforeAll}. */
    public static synchronized void compileHarness() {
        if (done) {
            return;
        }
        long[] state = new long[1];
        for (int i = 0; i < 1_000; i++) {
            AllocationAssert.measure("harness warm-up a", state, s -> s[0]++, 10, 10);
            AllocationAssert.measure("harness warm-up b", state, s -> s[0]--, 10, 10);
            AllocationAssert.measure("harness warm-up c", state, s -> s[0] ^= 1, 10, 10);
        }
        done = true;
    }
}
