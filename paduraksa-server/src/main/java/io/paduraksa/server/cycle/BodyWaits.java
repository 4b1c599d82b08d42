package io.paduraksa.server.cycle;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.policy.BodyScan;
import io.paduraksa.policy.PolicyDecision;
import java.util.concurrent.TimeUnit;

/**
 * The requests of one event loop whose body a {@link io.paduraksa.policy.BodyPolicy} is reading,
 * with their deadlines. A request's {@link Entry} is recycled here (a free list: one loop, no
 * locks), so a body phase allocates nothing after warm-up; one periodic sweep task per loop,
 * started with the loop's first wait and kept (rescheduling a one-shot task per burst of waits cost
 * a 64 B task each time, seen in {@code AttacksBodyAllocationIT}), ends the waits past their deadline
 * ({@link BodyScan#expired}) and forgets those whose request went away (the client closed or reset
 * the stream). With nothing waiting a sweep is one comparison every {@link #SWEEP_MILLIS}.
 */
final class BodyWaits implements Runnable {
    /** How often the sweep looks at the deadlines: a wait ends at most this much after its timeout. */
    static final long SWEEP_MILLIS = 250;

    private static final FastThreadLocal<BodyWaits> CURRENT = new FastThreadLocal<>() {
        @Override
        protected BodyWaits initialValue() {
            return new BodyWaits();
        }
    };

    /** One request's body phase: its exchange, its id at the start, the policy's scan and the deadline. */
    static final class Entry {
        ProtocolExchange exchange;
        long requestId;
        BodyScan scan;
        long deadline;
        RequestCycle cycle;
        int index = -1;
        Entry nextFree;
    }

    private Entry[] waiting = new Entry[8];
    private int size;
    private Entry free;
    private boolean sweeping;

    /** This event loop's waits (call on the loop). */
    static BodyWaits current() {
        return CURRENT.get();
    }

    Entry start(RequestCycle cycle, ProtocolExchange exchange, BodyScan scan, long timeoutNanos) {
        Entry e = free;
        if (e != null) {
            free = e.nextFree;
            e.nextFree = null;
        } else {
            e = new Entry();
        }
        e.cycle = cycle;
        e.exchange = exchange;
        e.requestId = exchange.state().requestId();
        e.scan = scan;
        e.deadline = System.nanoTime() + timeoutNanos;
        if (size == waiting.length) {
            Entry[] bigger = new Entry[size * 2];
            System.arraycopy(waiting, 0, bigger, 0, size);
            waiting = bigger;
        }
        e.index = size;
        waiting[size++] = e;
        if (!sweeping) {
            sweeping = true;
            EventLoop loop = exchange.channel().eventLoop();
            loop.scheduleAtFixedRate(this, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        }
        return e;
    }

    /** The wait is over (decided, or its request is gone): the scan goes back to its pool, the entry to ours. */
    void finish(Entry e) {
        if (e.index < 0) {
            return;
        }
        int i = e.index;
        Entry last = waiting[--size];
        waiting[i] = last;
        last.index = i;
        waiting[size] = null;
        e.index = -1;
        e.scan.release();
        e.scan = null;
        e.exchange = null;
        e.cycle = null;
        e.nextFree = free;
        free = e;
    }

    /** Number of body phases waiting on this loop (tests). */
    int size() {
        return size;
    }

    /** The sweep: expired waits decide (what arrived was inspected), forgotten ones are dropped. */
    @Override
    public void run() {
        long now = System.nanoTime();
        for (int i = size - 1; i >= 0; i--) {
            Entry e = i < size ? waiting[i] : null;
            if (e == null) {
                continue;
            }
            if (!e.exchange.awaits(e.requestId) || e.exchange.state().bodyWait() != e) {
                finish(e);
            } else if (now - e.deadline >= 0) {
                PolicyDecision d = e.scan.expired();
                e.cycle.bodyDecided(e, d);
            }
        }
    }
}
