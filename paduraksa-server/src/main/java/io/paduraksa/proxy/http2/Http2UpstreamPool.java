package io.paduraksa.proxy.http2;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.paduraksa.proxy.Endpoint;
import io.paduraksa.proxy.UpstreamCall;
import io.paduraksa.proxy.PerLoopPool;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/2 connections of one destination on one event loop (only that loop touches it, so no
 * locks). A call gets a stream on the first usable connection that has room under the upstream's
 * SETTINGS_MAX_CONCURRENT_STREAMS; when none has, it waits and one more connection is opened (one
 * at a time, at most {@code pool.max_connections} in all). Connections count as usable once the
 * upstream's SETTINGS arrived (and ALPN chose h2 over TLS). If connecting fails while no connection
 * is usable or on its way, the waiting calls fail (they retry elsewhere or answer 502). The sweep
 * ({@link PerLoopPool}) fires the response-headers and idle timeouts of streams, the connect
 * deadline (TCP, TLS and SETTINGS together) and the pool idle timeout.
 */
public final class Http2UpstreamPool extends PerLoopPool {
    private static final Logger LOG = LoggerFactory.getLogger(Http2UpstreamPool.class);

    private final Bootstrap bootstrap;
    private final ArrayList<Http2UpstreamHandler> connections = new ArrayList<>(4);
    private int connecting;

    public Http2UpstreamPool(Endpoint endpoint, EventLoop loop) {
        super(endpoint, loop);
        this.bootstrap = endpoint.bootstrap(loop);
        startSweeping();
    }

    String describe() {
        return endpoint.describe();
    }

    long gracefulShutdownMillis() {
        return Math.max(1000, TimeUnit.NANOSECONDS.toMillis(limits.idleNanos()));
    }

    @Override
    public void acquire(UpstreamCall call) {
        Http2UpstreamHandler c = usable();
        if (c != null && waiting.isEmpty()) {
            give(c, call);
            return;
        }
        waiting.add(call, System.nanoTime());
        drain();
    }

    private Http2UpstreamHandler usable() {
        int max = limits.maxRequestsPerConnection();
        for (int i = 0; i < connections.size(); i++) {
            Http2UpstreamHandler c = connections.get(i);
            if (c.canOpenStream(max)) {
                return c;
            }
        }
        return null;
    }

    private static void give(Http2UpstreamHandler c, UpstreamCall call) {
        call.connected(c.newStream(), c.opened() > 0);
    }

    /** Hands waiting calls to connections with room; opens one more connection when some are left. */
    private void drain() {
        Http2UpstreamHandler c;
        while (!waiting.isEmpty() && (c = usable()) != null) {
            give(c, waiting.poll());
        }
        if (!waiting.isEmpty() && connecting == 0 && connections.size() < limits.maxConnections()) {
            connect();
        }
    }

    private void connect() {
        Http2UpstreamHandler h = Http2UpstreamHandler.create(this);
        connections.add(h);
        connecting++;
        Connecting c = new Connecting(h);
        bootstrap.clone().handler(c).connect(endpoint.address()).addListener(c);
    }

    void connectionReady(Http2UpstreamHandler h) {
        connecting--;
        if (closed) {
            h.drain();
        }
        drain();
    }

    void streamEnded(Http2UpstreamHandler h) {
        if ((closed || h.isDraining()) && h.isIdle()) {
            h.drain();
        }
        drain();
    }

    /** A connection closed, or never connected: forget it; fail the waiting calls when nothing else can serve them. */
    void connectionClosed(Http2UpstreamHandler h) {
        if (h.removed) {
            return;
        }
        h.removed = true;
        connections.remove(h);
        if (!h.isReady()) {
            connecting--;
            if (connecting == 0 && usable() == null) {
                failWaiting();
                return;
            }
        }
        drain();
    }

    private void failWaiting() {
        int n = waiting.size();
        for (int i = 0; i < n; i++) {
            UpstreamCall call = waiting.poll();
            if (call == null) {
                return;
            }
            call.connectFailed(); // may retry on this pool again: it connects anew, as a new request would
        }
    }

    @Override
    protected void closeConnections() {
        for (Http2UpstreamHandler h : connections.toArray(new Http2UpstreamHandler[0])) {
            if (h.isReady()) {
                h.drain();
            }
        }
    }

    @Override
    public int openConnections() {
        return connections.size();
    }

    @Override
    public int idleConnections() {
        int idle = 0;
        for (int i = 0; i < connections.size(); i++) {
            if (connections.get(i).isReady() && connections.get(i).isIdle()) {
                idle++;
            }
        }
        return idle;
    }

    @Override
    protected void sweepConnections(long now) {
        for (int i = connections.size() - 1; i >= 0; i--) {
            if (i < connections.size()) {
                connections.get(i).sweep(now, limits.connectNanos(), limits.idleNanos(), limits.poolIdleNanos());
            }
        }
    }

    /** Rare path, one per new connection: sets up its pipeline, and reports a refused or timed-out connect. */
    private final class Connecting extends ChannelInitializer<Channel> implements ChannelFutureListener {
        private final Http2UpstreamHandler handler;

        Connecting(Http2UpstreamHandler handler) {
            this.handler = handler;
        }

        @Override
        protected void initChannel(Channel ch) {
            SslHandler ssl = endpoint.newSslHandler(ch.alloc());
            if (ssl != null) {
                ch.pipeline().addLast(ssl);
            }
            ch.pipeline().addLast(handler);
        }

        @Override
        public void operationComplete(ChannelFuture future) {
            if (!future.isSuccess()) {
                LOG.debug("upstream {}: connect failed: {}", describe(), future.cause().toString());
                connectionClosed(handler);
            }
        }
    }
}
