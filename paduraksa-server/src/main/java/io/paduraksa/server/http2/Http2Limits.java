package io.paduraksa.server.http2;

/**
 * HTTP/2 protections per connection: concurrent streams, header list size (RFC 9113 6.5.2),
 * resets per window (rapid reset, CVE-2023-44487), small CONTINUATION frames (CONTINUATION floods)
 * and the graceful-shutdown wait after GOAWAY.
 */
public record Http2Limits(
        int maxConcurrentStreams,
        long maxHeaderListSize,
        int maxResetsPerWindow,
        int resetWindowSeconds,
        int maxSmallContinuationFrames,
        long gracefulShutdownMillis) {

    /** 100 streams, 32 KiB of headers, 200 resets per 30 s, 16 small CONTINUATIONs, 30 s drain. */
    public static final Http2Limits DEFAULT = new Http2Limits(100, 32 * 1024, 200, 30, 16, 30_000);
}
