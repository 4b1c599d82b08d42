package io.paduraksa.proxy;

/**
 * When an upstream connection or stream was last active, to the precision of the pool's sweep
 * ({@link PerLoopPool#SWEEP_MILLIS}): reads and writes only {@link #touch} it, without reading the
 * clock, and the sweep, which has the time anyway, stamps it the first time it sees it touched. An
 * idle timeout so fires at most one sweep later than the exact time, never earlier, and a request
 * spends no clock read on it. Event-loop confined, like its owner.
 */
public final class Activity {
    private long last;
    private boolean touched;

    /** Active at {@code now}, a time the caller read anyway (the connection opened, a request began). */
    public void at(long now) {
        last = now;
        touched = false;
    }

    /** Active now; the next sweep stamps the time. */
    public void touch() {
        touched = true;
    }

    /** How long it has been idle at {@code now} (the sweep's time); 0 when touched since the last sweep. */
    public long idleAt(long now) {
        if (touched) {
            touched = false;
            last = now;
        }
        return now - last;
    }
}
