package io.paduraksa.gate;

import io.netty.util.Recycler;

/**
 * A Netty {@link Recycler} for per-request objects (one per live stream or call) that
 * keeps every object it ever makes, up to {@link #MAX_PER_THREAD} per thread.
 *
 * <p>Why not Netty's default: it keeps only one new object in eight ({@code io.netty.recycler.ratio}),
 * so whenever a thread holds more live objects than ever before, seven in eight of the extra ones it
 * makes are garbage and the pool grows by one per eight allocations. Live per-request objects peak
 * a little higher now and then as traffic shifts (an exchange lives until its upstream answer is
 * written), and each new peak cost about 40 KB of garbage per step on h2c forwarding
 * ({@code GateAllocationIT}: 55,312-255,344 B over 10,000 forwarded requests, JFR: new
 * {@code Http2Exchange}s with their {@code RequestState}). Keeping every object makes the pool
 * grow to the peak once.
 */
public abstract class RequestRecycler<T> extends Recycler<T> {
    /** The most objects kept per thread: bounds what a past burst can hold on to. */
    public static final int MAX_PER_THREAD = 4_096;

    protected RequestRecycler() {
        super(MAX_PER_THREAD, 0, 32);
    }
}
