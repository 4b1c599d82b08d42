package io.paduraksa.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("allocation")
class AllocationAssertTest {

    /**
     * Warm-up for the tests whose one-offs sit at exact calls: long enough that the JIT has compiled the
     * measuring loop before the settling rounds (with 1,000 calls, a compilation's own 80-1,088 B
     * showed in a counted loop on CI and moved the test's one-offs into the wrong loop).
     */
    private static final int WARM = 200_000;

    static final class Counter {
        long value;
        Object sink;
        int calls;
    }

    @Test
    void arithmeticIsZero() {
        Counter c = new Counter();
        AllocationAssert.Result r = AllocationAssert.assertZero("increment", c, s -> s.value += 3);
        assertThat(r.totalBytes()).isZero();
        assertThat(r.firstNonZeroIteration()).isEqualTo(-1);
    }

    @Test
    void catchesAnArrayPerCall() {
        Counter c = new Counter();
        assertThatThrownBy(() -> AllocationAssert.assertZero("new byte[1000]", c, s -> s.sink = new byte[1000], 1_000, 1_000))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("new byte[1000]")
                .hasMessageContaining("no settling round was clean")
                .hasMessageMatching("(?s).*settling rounds: \\[(\\d{7} B, ){" + (AllocationAssert.SETTLE_ROUNDS - 1) + "}\\d{7} B\\].*");
    }

    @Test
    void measuresTheSizeOfWhatIsAllocated() {
        Counter c = new Counter();
        AllocationAssert.Result r = AllocationAssert.measure("new byte[1000]", c, s -> s.sink = new byte[1000], 1_000, 1_000);
        // 1000 bytes plus the array header (12-16 B), rounded to 8.
        assertThat(r.maxSingleCall()).isBetween(1_000L, 1_024L);
        assertThat(r.totalBytes()).isEqualTo(r.maxSingleCall() * 1_000);
    }

    @Test
    void catchesBoxingAndStrings() {
        Counter c = new Counter();
        AllocationAssert.Result boxed = AllocationAssert.measure("boxing", c, s -> s.sink = Long.valueOf(1_000_000L + (s.value++)), 1_000, 1_000);
        assertThat(boxed.totalBytes()).isPositive();
        AllocationAssert.Result text = AllocationAssert.measure("String.valueOf", c, s -> s.sink = String.valueOf(s.value++), 1_000, 1_000);
        assertThat(text.totalBytes()).isPositive();
    }

    @Test
    void catchesAOneOffAllocationAndNamesItsIteration() {
        Counter c = new Counter();
        AllocationAssert.Result r = AllocationAssert.measure("lazy at call 5", c, s -> {
            if (s.calls++ == 105) {
                s.sink = new ArrayList<String>(List.of("x"));
            }
        }, 100, 1_000);
        assertThat(r.firstNonZeroIteration()).isEqualTo(5);
        assertThat(r.totalBytes()).isEqualTo(r.maxSingleCall());
    }

    @Test
    void aOneOffThatDoesNotRepeatPassesButAPeriodicAllocationFails() {
        Counter once = new Counter();
        AllocationAssert.Result r = AllocationAssert.assertZero("one-off in the first settling round", once, s -> {
            if (s.calls++ == WARM + 5) {
                s.sink = new byte[64];
            }
        }, WARM, 1_000);
        assertThat(r.settling()).matches("\\d+ B, 0 B");
        assertThat(r.iterations()).isEqualTo(1_000 * AllocationAssert.COUNTED_FACTOR);
        assertThat(once.calls).isEqualTo(WARM + 2 * 1_000 + 1_000 * AllocationAssert.COUNTED_FACTOR);
        Counter periodic = new Counter();
        assertThatThrownBy(() -> AllocationAssert.assertZero("every 500th call", periodic, s -> {
            if (s.calls++ % 500 == 0) {
                s.sink = new byte[64];
            }
        }, 1_000, 1_000)).hasMessageContaining("no settling round was clean");
    }

    /** The helper this one replaced passed this: one of its three short attempts was clean. */
    @Test
    void aRareAllocationFailsInTheCountedLoop() {
        Counter rare = new Counter();
        assertThatThrownBy(() -> AllocationAssert.assertZero("every 3,000th call", rare, s -> {
            if (++s.calls % 3_000 == 0) {
                s.sink = new byte[64];
            }
        }, 1_000, 1_000))
                .hasMessageContaining("every counted loop allocated")
                .hasMessageContaining("settling rounds: [0 B; counted loop 1: ")
                .hasMessageContaining("counted loop 2: ")
                .hasMessageContaining("counted loop 3: ");
    }

    /**
     * The allocator's housekeeping as CI saw it: a one-off in each of two consecutive counted loops passes.
     * The JVM itself sometimes allocates once on this thread (1,136 B at call 560 of the third loop, seen
     * once in CI), which is exactly what the helper forgives in a loop but this test cannot: it needs the
     * third loop clean. So the scenario runs up to three times, each from a fresh counter; the two planned
     * one-offs happen in every run, and a run that fails must have failed on an allocation it did not plan.
     */
    @Test
    void oneOffsInTwoCountedLoopsPassWhenTheThirdIsClean() {
        int counted = 1_000 * AllocationAssert.COUNTED_FACTOR;
        AssertionError last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            Counter twice = new Counter();
            try {
                AllocationAssert.Result r = AllocationAssert.assertZero("one-offs in two counted loops", twice, s -> {
                    int c = ++s.calls;
                    if (c == WARM + 1_000 + 4_800 || c == WARM + 1_000 + counted + 1_200) {
                        s.sink = new byte[64];
                    }
                }, WARM, 1_000);
                assertThat(r.totalBytes()).isZero();
                assertThat(r.settling()).contains("counted loop 1: ").contains("counted loop 2: ")
                        .doesNotContain("counted loop 3");
                return;
            } catch (AssertionError e) {
                assertThat(e.getMessage()).as("only an unplanned allocation in the third loop may fail a run")
                        .contains("counted loop 1: 80 B (largest call 80 B, at call 4799)")
                        .contains("counted loop 2: 80 B (largest call 80 B, at call 1199)")
                        .contains("counted loop 3: ");
                last = e;
            }
        }
        throw last;
    }

    @Test
    void aOneOffInTheCountedLoopIsRecordedButPassesWhenTheNextLoopIsClean() {
        Counter once = new Counter();
        AllocationAssert.Result r = AllocationAssert.assertZero("one-off in the counted loop", once, s -> {
            if (++s.calls == WARM + 1_000 + 2_500) {
                s.sink = new byte[64];
            }
        }, WARM, 1_000);
        assertThat(r.totalBytes()).isZero();
        assertThat(r.settling()).startsWith("0 B; counted loop 1: 80 B (largest call 80 B, at call 2499)");
    }

    @Test
    void runsOnAFastThreadLocalThread() {
        AtomicReference<Thread> seen = new AtomicReference<>();
        AllocationAssert.measure("thread", seen, s -> s.set(Thread.currentThread()), 1, 1);
        assertThat(seen.get()).isInstanceOf(io.netty.util.concurrent.FastThreadLocalThread.class);
    }

    @Test
    void theClosingStepRunsOnTheMeasuringThreadAfterTheLastCall() {
        List<Thread> threads = new ArrayList<>();
        Counter c = new Counter();
        AllocationAssert.assertZero("closing", c, s -> {
            s.value++;
            if (threads.isEmpty()) {
                threads.add(Thread.currentThread());
            }
        }, 1_000, 1_000, s -> {
            threads.add(Thread.currentThread());
            s.calls = (int) s.value;
        });
        assertThat(threads).hasSize(2);
        assertThat(threads.get(1)).isSameAs(threads.get(0));
        assertThat((long) c.calls).isEqualTo(c.value).isPositive();
    }

    @Test
    void exceptionsFromTheStepFailTheTest() {
        assertThatThrownBy(() -> AllocationAssert.measure("throws", new Counter(), s -> {
            throw new IllegalStateException("boom");
        }, 1, 1)).isInstanceOf(AssertionError.class).hasRootCauseMessage("boom");
    }
}
