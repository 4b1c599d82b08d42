package io.paduraksa.proxy;

import io.netty.channel.EventLoop;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * The connections of one destination on one event loop: {@code proxy.http1.Http1UpstreamPool} for
 * HTTP/1.1, {@code proxy.http2.Http2UpstreamPool} for h2 and h2c. Touched only by its loop.
 */
public interface ConnectionPool {

    /**
     * Opens the pool of one destination on one loop (the first request there). The server passes
     * the protocol packages' pools to the forwarder, so that this package stands above them and
     * imports none of them.
     */
    @FunctionalInterface
    interface Factory {
        ConnectionPool open(Endpoint endpoint, EventLoop loop);
    }

    /**
     * A pool's limits and timeouts, from its cluster's {@code pool} and {@code timeouts} settings:
     * {@code maxRequestsPerConnection} 0 means unlimited; {@code connectNanos} bounds connecting and a
     * call's wait for a busy pool; {@code idleNanos} a silent upstream in the middle of a response;
     * {@code poolIdleNanos} an unused connection.
     */
    record Limits(int maxConnections, int maxRequestsPerConnection, long connectNanos, long idleNanos, long poolIdleNanos) {
        static Limits of(UpstreamCluster cluster) {
            UpstreamCluster.Pool pool = cluster.pool();
            return new Limits(pool.maxConnections(), pool.maxRequestsPerConnection(), cluster.timeouts().connect().toNanos(),
                    cluster.timeouts().idle().toNanos(), pool.idleTimeout().toNanos());
        }
    }

    /**
     * Hands {@code call} an {@link UpstreamStream} now or later ({@link UpstreamCall#connected}), or
     * reports that connecting failed ({@link UpstreamCall#connectFailed}) or that no connection came
     * free within the connect timeout ({@link UpstreamCall#queueTimedOut}); exactly one of the three.
     */
    void acquire(UpstreamCall call);

    /** Stops pooling: idle connections close now, busy ones when their requests end. Any thread. */
    void close();

    /** Open connections (metrics, read racily). */
    int openConnections();

    /** Open connections without a request in flight (metrics, read racily). */
    int idleConnections();
}
