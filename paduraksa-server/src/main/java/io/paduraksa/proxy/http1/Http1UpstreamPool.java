package io.paduraksa.proxy.http1;

import io.paduraksa.proxy.Endpoint;
import io.paduraksa.proxy.UpstreamCall;
import io.paduraksa.proxy.PerLoopPool;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The HTTP/1.1 connections of one destination on one event loop (per-loop pools, as nginx and
 * Envoy workers keep them): only that loop touches it, so it takes no locks. Idle connections are
 * reused last-in first-out (the warmest first); at most {@code pool.max_connections} are open; calls
 * beyond that wait in order for a released connection. A connection returns to the pool only when
 * its response ended cleanly and completely (the decoder says it is reusable). The sweep
 * ({@link PerLoopPool}) fires the response-headers, idle and pool-idle timeouts.
 */
public final class Http1UpstreamPool extends PerLoopPool {
    private final Bootstrap bootstrap;
    private final ArrayDeque<Http1UpstreamHandler> idle = new ArrayDeque<>();
    private final ArrayList<Http1UpstreamHandler> all = new ArrayList<>();
    private int connecting;

    public Http1UpstreamPool(Endpoint endpoint, EventLoop loop) {
        super(endpoint, loop);
        this.bootstrap = endpoint.bootstrap(loop).handler(new Initializer());
        startSweeping();
    }

    /** Hands {@code call} a connection now (reused), after connecting, or when one is released. */
    @Override
    public void acquire(UpstreamCall call) {
        Http1UpstreamHandler h;
        while ((h = idle.pollLast()) != null) {
            if (h.isUsable()) {
                call.connected(h, true);
                return;
            }
            h.close();
        }
        if (closed || all.size() + connecting < limits.maxConnections()) {
            connect(call);
        } else {
            waiting.add(call, System.nanoTime());
        }
    }

    private void connect(UpstreamCall call) {
        connecting++;
        ChannelFuture f = bootstrap.connect(endpoint.address());
        f.addListener(new Connected(this, call));
    }

    /** The call ended with {@code h}: reuse it (a waiting call first) or close it. */
    void release(Http1UpstreamHandler h, boolean reusable) {
        int max = limits.maxRequestsPerConnection();
        if (!reusable || closed || !h.channel().isActive() || (max > 0 && h.requests() >= max)) {
            h.close();
            return;
        }
        UpstreamCall next = waiting.poll();
        if (next != null) {
            next.connected(h, true);
            return;
        }
        idle.addLast(h);
    }

    /** A connection closed (any reason): forget it and start a waiting call, if any, on a new one. */
    void closed(Http1UpstreamHandler h) {
        all.remove(h);
        idle.remove(h);
        UpstreamCall next = waiting.poll();
        if (next != null) {
            connect(next);
        }
    }

    @Override
    protected void closeConnections() {
        Http1UpstreamHandler h;
        while ((h = idle.pollFirst()) != null) {
            h.close();
        }
    }

    @Override
    public int openConnections() {
        return all.size();
    }

    @Override
    public int idleConnections() {
        return idle.size();
    }

    @Override
    protected void sweepConnections(long now) {
        for (int i = all.size() - 1; i >= 0; i--) {
            if (i < all.size()) {
                all.get(i).sweep(now, limits.idleNanos(), limits.poolIdleNanos());
            }
        }
    }

    private void connectDone(ChannelFuture f, UpstreamCall call) {
        connecting--;
        if (!f.isSuccess()) {
            call.connectFailed();
            return;
        }
        Channel ch = f.channel();
        Http1UpstreamHandler h = ch.pipeline().get(Http1UpstreamHandler.class);
        all.add(h);
        call.connected(h, false); // also when the pool closed meanwhile: the connection closes on release
    }

    /** Rare path (one per new connection): relays the connect result to the pool. */
    private static final class Connected implements ChannelFutureListener {
        private final Http1UpstreamPool pool;
        private final UpstreamCall call;

        Connected(Http1UpstreamPool pool, UpstreamCall call) {
            this.pool = pool;
            this.call = call;
        }

        @Override
        public void operationComplete(ChannelFuture future) {
            pool.connectDone(future, call);
        }
    }

    private final class Initializer extends ChannelInitializer<Channel> {
        @Override
        protected void initChannel(Channel ch) {
            SslHandler ssl = endpoint.newSslHandler(ch.alloc());
            if (ssl != null) {
                ch.pipeline().addLast(ssl);
            }
            ch.pipeline().addLast(new Http1ResponseDecoder()); // 64 KiB head, 100 fields
            ch.pipeline().addLast(new Http1UpstreamHandler(Http1UpstreamPool.this,
                    ch.pipeline().get(Http1ResponseDecoder.class)));
        }
    }
}
