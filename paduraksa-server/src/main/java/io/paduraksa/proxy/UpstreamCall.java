package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;

/**
 * A forwarded request as its pool and its upstream stream see it: everything a
 * {@link ConnectionPool} and an {@link UpstreamStream} (the protocol packages {@code proxy.http1},
 * {@code proxy.http2}) report, and all they may call. {@link ForwardCall} implements it; the protocol
 * packages know nothing else of the call, so it stands above them. Every method runs on the call's
 * event loop, which is the upstream connection's.
 */
public interface UpstreamCall {

    // ---- from the pool: exactly one of these per ConnectionPool#acquire

    /** A stream is ready, on a fresh or a reused ({@code reused}) connection: the call begins it and writes its head. */
    void connected(UpstreamStream stream, boolean reused);

    /** Connecting failed (refused, unreachable, timed out, TLS or ALPN refused). */
    void connectFailed();

    /** Every connection of the pool stayed busy for the connect timeout while this call waited. */
    void queueTimedOut();

    // ---- from the stream, after UpstreamStream#begin

    /** An interim response (1xx other than 101); the caller keeps ownership of {@code head}. */
    void onInterim(ResponseHead head);

    /** The final response head; the caller keeps ownership of {@code head}. */
    void onResponseHead(ResponseHead head);

    /** A part of the response body, or tunnel bytes from the upstream (ownership passes to the call). */
    void onResponseBody(ByteBuf chunk);

    /** Trailers of the response; the call releases them once written. */
    void onTrailers(ResponseTrailers trailers);

    /** The response ended completely. */
    void onResponseEnd();

    /** The upstream's read ended: what the response wrote to the client goes out. */
    void flushClient();

    /** The upstream can take more request bytes (true) or not (false). */
    void upstreamWritable(boolean writable);

    /** The response was malformed or smuggled extra bytes. */
    void onUpstreamError();

    /** The connection closed (or the HTTP/2 stream was reset) before the response ended. */
    void onUpstreamClosed();

    /**
     * An HTTP/2 upstream did not process the stream (REFUSED_STREAM, above a GOAWAY's last stream
     * id, RFC 9113 8.7, or the connection could not open it): safe to retry.
     */
    void onUpstreamRefused();

    /** No response head within the response-headers timeout. */
    void onHeadersTimeout();

    /** The upstream was silent longer than the idle timeout in the middle of a response (or tunnel). */
    void onIdleTimeout();

    /**
     * A WebSocket for an HTTP/2 upstream that did not send SETTINGS_ENABLE_CONNECT_PROTOCOL = 1
     * (RFC 8441 3): no extended CONNECT may go to it, and a plain request would not open a tunnel.
     * Nothing was sent; the stream went back unused.
     */
    void onUpgradeUnsupported();
}
