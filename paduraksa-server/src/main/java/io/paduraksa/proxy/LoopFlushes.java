package io.paduraksa.proxy;

import io.netty.channel.Channel;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.Arrays;

/**
 * Upstream flushes deferred to the end of the event loop's turn: the requests this loop forwards in
 * one batch of ready events go out together, after the batch, instead of one by one while it is read.
 * An upstream that is idle then wakes once for several requests instead of once for each (measured
 * with {@code paduraksa-bench/e2e/syscalls.py}: its wake-ups per request, the figure HAProxy keeps low
 * by sending at the end of its loop turn). Nothing is added to a request's latency but the rest of the
 * turn it arrived in. One instance per event loop thread. A channel listed twice in one turn is
 * flushed twice, harmlessly (the second flush writes nothing); an HTTP/1.1 upstream connection sends
 * one request head at a time, so it is listed once.
 */
public final class LoopFlushes implements Runnable {
    private static final FastThreadLocal<LoopFlushes> LOCAL = new FastThreadLocal<>() {
        @Override
        protected LoopFlushes initialValue() {
            return new LoopFlushes();
        }
    };
    /** Off with {@code -Dpaduraksa.deferUpstreamFlush=false}: each write is flushed at once (for comparison runs). */
    static final boolean ENABLED = !"false".equals(System.getProperty("paduraksa.deferUpstreamFlush"));

    private Channel[] pending = new Channel[32];
    private int count;
    private boolean scheduled;

    private LoopFlushes() {
    }

    /** Flushes {@code ch} once the current turn of its event loop (the calling thread) has handled its ready events. */
    public static void flushLater(Channel ch) {
        if (!ENABLED || !ch.eventLoop().inEventLoop()) {
            ch.flush();
            return;
        }
        LOCAL.get().add(ch);
    }

    private void add(Channel ch) {
        if (count == pending.length) {
            pending = Arrays.copyOf(pending, count * 2); // grows to the most channels one turn writes to, then stays
        }
        pending[count++] = ch;
        if (!scheduled) {
            scheduled = true;
            ch.eventLoop().execute(this); // runs after this turn's I/O, in the same turn
        }
    }

    @Override
    public void run() {
        scheduled = false;
        int n = count;
        count = 0;
        for (int i = 0; i < n; i++) {
            Channel ch = pending[i];
            pending[i] = null;
            ch.flush();
        }
    }
}
