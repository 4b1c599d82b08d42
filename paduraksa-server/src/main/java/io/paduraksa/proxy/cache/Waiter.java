package io.paduraksa.proxy.cache;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.snapshot.RouteCache;
import java.util.concurrent.TimeUnit;

/**
 * A miss that waits for another request's fetch of the same key ({@link CacheFill#join}). When the
 * fetch ends (or gives its waiters up), or after {@code cache.coalesce_timeout} on its own, it
 * runs on its client's event loop and looks the store up again, this time without waiting: a hit
 * is answered, a miss goes to the upstream. It does nothing when its request is gone meanwhile
 * (the client left, or the HTTP/2 stream's state was recycled for another request).
 */
final class Waiter implements Runnable {
    private final CachingForwarder forwarder;
    private final RequestState state;
    private final ForwardExchange exchange;
    private final RouteCache settings;
    private final long requestId;
    private final EventLoop loop;
    private final ScheduledFuture<?> timeout;
    private boolean done;

    Waiter(CachingForwarder forwarder, RequestState state, ForwardExchange exchange, RouteCache settings, long timeoutNanos) {
        this.forwarder = forwarder;
        this.state = state;
        this.exchange = exchange;
        this.settings = settings;
        this.requestId = state.requestId();
        this.loop = exchange.eventLoop();
        this.timeout = loop.schedule(this, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** The fetch ended: look again on this request's loop (any thread). */
    void wake() {
        loop.execute(this);
    }

    /** Woken or timed out, whichever came first; on the request's event loop. */
    @Override
    public void run() {
        if (done) {
            return;
        }
        done = true;
        timeout.cancel(false);
        if (state.requestId() != requestId || !exchange.isOpen()) {
            return;
        }
        forwarder.lookup(state, exchange, settings, false);
    }
}
