package io.paduraksa.proxy;

/**
 * The calls waiting for a connection of a saturated pool, oldest first, each with the time it was
 * queued: a call waits at most the connect timeout ({@link #expire}), then gets
 * {@link UpstreamCall#queueTimedOut}. A ring of two arrays that doubles when full, so once grown
 * queuing allocates nothing. Touched by its pool's event loop only.
 */
public final class WaitingCalls {
    private UpstreamCall[] calls = new UpstreamCall[8];
    private long[] since = new long[8];
    private int first;
    private int size;

    /** Queues {@code call} last, waiting since {@code nanos} (System.nanoTime). */
    public void add(UpstreamCall call, long nanos) {
        if (size == calls.length) {
            grow();
        }
        int i = (first + size) & (calls.length - 1);
        calls[i] = call;
        since[i] = nanos;
        size++;
    }

    /** Takes the oldest call, or null. */
    public UpstreamCall poll() {
        if (size == 0) {
            return null;
        }
        UpstreamCall c = calls[first];
        calls[first] = null;
        first = (first + 1) & (calls.length - 1);
        size--;
        return c;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public int size() {
        return size;
    }

    /** Hands {@link UpstreamCall#queueTimedOut} to every call that has waited longer than {@code timeoutNanos} at {@code now}. */
    public void expire(long now, long timeoutNanos) {
        while (size > 0 && now - since[first] > timeoutNanos) {
            poll().queueTimedOut();
        }
    }

    private void grow() {
        int n = calls.length;
        UpstreamCall[] c = new UpstreamCall[n * 2];
        long[] s = new long[n * 2];
        for (int i = 0; i < size; i++) {
            c[i] = calls[(first + i) & (n - 1)];
            s[i] = since[(first + i) & (n - 1)];
        }
        calls = c;
        since = s;
        first = 0;
    }
}
