package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Activity}: idle time counted from the last stamp, a touch stamped by the next sweep, never earlier. */
class ActivityTest {

    @Test
    void idleFromTheLastStampAndATouchCountsFromTheSweepThatSeesIt() {
        Activity a = new Activity();
        a.at(1_000);
        assertThat(a.idleAt(1_000)).isZero();
        assertThat(a.idleAt(1_400)).isEqualTo(400);
        a.touch(); // some time after 1,400: the sweep at 1,500 is the first to know
        assertThat(a.idleAt(1_500)).isZero();
        assertThat(a.idleAt(1_600)).isEqualTo(100);
        assertThat(a.idleAt(1_700)).isEqualTo(200); // untouched: keeps counting
        a.at(1_650); // a request began at a time read by its caller
        assertThat(a.idleAt(1_700)).isEqualTo(50);
    }

    @Test
    void aTouchAfterAStampIsNeverCountedAsEarlierIdleness() {
        Activity a = new Activity();
        a.at(0);
        a.touch();
        assertThat(a.idleAt(10_000)).as("touched since the stamp: not idle at the sweep").isZero();
    }
}
