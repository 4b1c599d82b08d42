package io.paduraksa.config;

import java.time.Duration;

/**
 * What one client may cost the server; read by the server when it builds its decoders and
 * connection handling (not per request). Every value is positive; absent keys take the defaults
 * below, which sit near nginx's and HAProxy's.
 *
 * @param maxRequestLine  longest request line, method to version (default 8KiB)
 * @param maxHeaderSize   whole request head: request line and header lines together (default 32KiB)
 * @param maxHeaders      number of header fields (default 100)
 * @param maxBodySize     request body, declared or streamed (default 10MiB)
 * @param headerTimeout   time to receive the whole head of a request (default 10s)
 * @param idleTimeout     time a connection may stay idle between requests (default 60s)
 * @param bodyMinRate     slowest accepted body upload, bytes per second (default 1KiB)
 * @param maxConnections  open client connections (default 10000)
 * @param sendTimeout     longest time a response may wait for the client to take bytes: no byte
 *                        could be sent for this long closes the HTTP/1.1 connection or resets the
 *                        HTTP/2 stream (default 60s, as nginx's send_timeout)
 */
public record LimitsSpec(
        DataSize maxRequestLine,
        DataSize maxHeaderSize,
        Integer maxHeaders,
        DataSize maxBodySize,
        Duration headerTimeout,
        Duration idleTimeout,
        DataSize bodyMinRate,
        Integer maxConnections,
        Duration sendTimeout) {

    public static final LimitsSpec DEFAULT = new LimitsSpec(null, null, null, null, null, null, null, null, null);

    public LimitsSpec {
        maxRequestLine = maxRequestLine == null ? DataSize.ofKibibytes(8) : maxRequestLine;
        maxHeaderSize = maxHeaderSize == null ? DataSize.ofKibibytes(32) : maxHeaderSize;
        maxHeaders = maxHeaders == null ? 100 : maxHeaders;
        maxBodySize = maxBodySize == null ? DataSize.ofMebibytes(10) : maxBodySize;
        headerTimeout = headerTimeout == null ? Duration.ofSeconds(10) : headerTimeout;
        idleTimeout = idleTimeout == null ? Duration.ofSeconds(60) : idleTimeout;
        bodyMinRate = bodyMinRate == null ? DataSize.ofKibibytes(1) : bodyMinRate;
        maxConnections = maxConnections == null ? 10_000 : maxConnections;
        sendTimeout = sendTimeout == null ? Duration.ofSeconds(60) : sendTimeout;
    }
}
