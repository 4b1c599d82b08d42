package io.paduraksa.proxy;

import io.netty.channel.Channel;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flushes deferred to the end of the event loop's turn: the requests this loop forwards in one batch
 * of ready events go out together, after the batch, instead of one by one while it is read. An
 * upstream that is idle then wakes once for several requests instead of once for each (measured
 * with {@code paduraksa-bench/e2e/syscalls.py}: its wake-ups per request, the figure HAProxy keeps low
 * by sending at the end of its loop turn). The same for the responses an HTTP/2 client connection
 * gets from upstreams in one turn: one send for all of them ({@link #flushLater(Runnable)}) instead of
 * one per response. Nothing is added to a request's latency but the rest of the turn it arrived in.
 * One instance per event loop thread. A channel listed twice in one turn is flushed twice, harmlessly
 * (the second flush writes nothing); an HTTP/1.1 upstream connection sends one request head at a
 * time, so it is listed once; an HTTP/2 connection lists itself once per turn.
 */
public final class LoopFlushes implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopFlushes.class);
    private static final FastThreadLocal<LoopFlushes> LOCAL = new FastThreadLocal<>() {
        @Override
        protected LoopFlushes initialValue() {
            return new LoopFlushes();
        }
    };
    /** Off with {@code -Dpaduraksa.deferUpstreamFlush=false}: each write is flushed at once (for comparison runs). */
    static final boolean ENABLED = !"false".equals(System.getProperty("paduraksa.deferUpstreamFlush"));

    /** Channels to flush and flush actions to run, in the order listed. */
    private Object[] pending = new Object[32];
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
        LOCAL.get().add(ch, ch);
    }

    /**
     * Runs {@code flush} (a constant of its connection, which writes and flushes what the connection
     * has pending) once the current turn of {@code ch}'s event loop has handled its ready events; at
     * once when called from another thread or when deferring is off.
     */
    public static void flushLater(Channel ch, Runnable flush) {
        if (!ENABLED || !ch.eventLoop().inEventLoop()) {
            flush.run();
            return;
        }
        LOCAL.get().add(ch, flush);
    }

    private void add(Channel ch, Object flush) {
        if (count == pending.length) {
            pending = Arrays.copyOf(pending, count * 2); // grows to the most channels one turn writes to, then stays
        }
        pending[count++] = flush;
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
            Object p = pending[i];
            pending[i] = null;
            try {
                if (p instanceof Channel ch) {
                    ch.flush();
                } else {
                    ((Runnable) p).run();
                }
            } catch (RuntimeException e) {
                // one connection's failure must not leave the others listed this turn unflushed
                LOG.warn("deferred flush failed", e);
            }
        }
    }
}
