package io.paduraksa.proxy;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * What the per-loop pools of both protocols share ({@code proxy.http1.Http1UpstreamPool},
 * {@code proxy.http2.Http2UpstreamPool}): the endpoint and its {@link ConnectionPool.Limits}, the one
 * event loop that touches the pool (so it takes no locks), the calls waiting while every connection
 * is busy, closing on that loop from any thread, and a sweep every {@link #SWEEP_MILLIS} that fires
 * the connections' timeouts and a waiting call's queue timeout (the connect timeout), so a request
 * schedules no timer of its own.
 */
public abstract class PerLoopPool implements ConnectionPool {
    public static final long SWEEP_MILLIS = 100;

    protected final Endpoint endpoint;
    protected final EventLoop loop;
    protected final ConnectionPool.Limits limits;
    /** Calls waiting for a connection (or, on HTTP/2, for a stream) to come free. */
    protected final WaitingCalls waiting = new WaitingCalls();
    /** Set by {@link #close}: no new connection is kept. */
    protected boolean closed;
    private ScheduledFuture<?> sweep;

    protected PerLoopPool(Endpoint endpoint, EventLoop loop) {
        this.endpoint = endpoint;
        this.loop = loop;
        this.limits = endpoint.limits();
    }

    /** Starts the sweep; the last thing a subclass's constructor does, so the sweep never sees it half-built. */
    protected final void startSweeping() {
        sweep = loop.scheduleAtFixedRate(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Stops pooling: idle connections close now, busy ones when their requests end. Any thread; runs on the pool's loop. */
    @Override
    public final void close() {
        if (loop.inEventLoop()) {
            closeOnLoop();
        } else {
            loop.execute(this::closeOnLoop);
        }
    }

    private void closeOnLoop() {
        closed = true;
        if (sweep != null) {
            sweep.cancel(false);
        }
        closeConnections();
    }

    /** Closing: close what is idle now, let busy connections end with their requests. */
    protected abstract void closeConnections();

    /** The sweep: each connection's deadlines at {@code now} (a connection may close and leave the list meanwhile). */
    protected abstract void sweepConnections(long now);

    private void sweep() {
        long now = System.nanoTime();
        sweepConnections(now);
        // Calls queued behind a saturated pool (every connection busy, e.g. long downloads or
        // WebSockets) must not wait forever: after the connect timeout they get 503.
        waiting.expire(now, limits.connectNanos());
    }
}
