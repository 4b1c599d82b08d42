package io.paduraksa.snapshot;

/**
 * Holds the snapshot requests read. {@link #current()} is the gate's one volatile read per
 * request; only reload (and start-up) calls {@link #publish}. Requests in flight keep the snapshot
 * they read, so the caller of {@code publish} releases the previous snapshot only after a grace
 * period.
 */
public final class SnapshotStore {
    private volatile Snapshot current;

    public SnapshotStore(Snapshot initial) {
        if (initial == null) {
            throw new IllegalArgumentException("initial snapshot");
        }
        this.current = initial;
    }

    public Snapshot current() {
        return current;
    }

    /** Makes {@code next} current with one volatile write and returns the snapshot it replaced. */
    public Snapshot publish(Snapshot next) {
        if (next == null) {
            throw new IllegalArgumentException("next snapshot");
        }
        Snapshot previous = current;
        current = next;
        return previous;
    }
}
