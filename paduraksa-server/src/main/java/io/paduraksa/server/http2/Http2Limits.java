package io.paduraksa.server.http2;

/**
 * HTTP/2 protections per connection: concurrent streams, header list size (RFC 9113 6.5.2),
 * resets per window (rapid reset, CVE-2023-44487), small CONTINUATION frames (CONTINUATION floods),
 * the graceful-shutdown wait after GOAWAY, the largest request body of a stream
 * ({@code limits.max_body_size}) and the send timeout ({@code limits.send_timeout}: how long a
 * forwarded stream's response data may wait for the client's flow-control windows or socket), and
 * whether WebSockets over HTTP/2 are accepted ({@code websockets}: {@code SETTINGS_ENABLE_CONNECT_PROTOCOL}
 * advertised and RFC 8441 extended CONNECT taken; the listener's {@code h2_websockets}), and
 * {@code limits.idle_timeout}: a connection without a frame either way for that long closes with
 * GOAWAY (not while a WebSocket tunnel is open).
 */
public record Http2Limits(
        int maxConcurrentStreams,
        long maxHeaderListSize,
        int maxResetsPerWindow,
        int resetWindowSeconds,
        int maxSmallContinuationFrames,
        long gracefulShutdownMillis,
        long maxBodySize,
        long sendTimeoutMillis,
        boolean websockets,
        long idleTimeoutMillis) {

    /** More consecutive DATA (or HEADERS) frames without payload and without END_STREAM end the connection (as Netty's limit of 2). */
    public static final int MAX_CONSECUTIVE_EMPTY_FRAMES = 2;
    /** Answers (SETTINGS and PING acks, resets) written while the client does not read, before the connection ends (as Netty's 10,000). */
    public static final int MAX_QUEUED_CONTROL_FRAMES = 10_000;

    /** 100 streams, 32 KiB of headers, 200 resets per 30 s, 16 small CONTINUATIONs, 30 s drain, 10 MiB bodies, 60 s send timeout, WebSockets on, 60 s idle timeout. */
    public static final Http2Limits DEFAULT = new Http2Limits(100, 32 * 1024, 200, 30, 16, 30_000, 10L * 1024 * 1024, 60_000, true, 60_000);
}
