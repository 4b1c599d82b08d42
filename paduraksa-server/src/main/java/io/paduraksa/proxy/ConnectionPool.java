package io.paduraksa.proxy;

/**
 * The connections of one destination on one event loop: {@link UpstreamPool} for HTTP/1.1,
 * {@link io.paduraksa.proxy.http2.Http2UpstreamPool} for h2 and h2c. Touched only by its loop.
 */
public interface ConnectionPool {

    /**
     * Hands {@code call} an {@link UpstreamStream} now or later ({@link ForwardCall#connected}), or
     * reports that connecting failed ({@link ForwardCall#connectFailed}); exactly one of the two.
     */
    void acquire(ForwardCall call);

    /** Stops pooling: idle connections close now, busy ones when their requests end. Any thread. */
    void close();

    /** Open connections (metrics, read racily). */
    int openConnections();

    /** Open connections without a request in flight (metrics, read racily). */
    int idleConnections();
}
