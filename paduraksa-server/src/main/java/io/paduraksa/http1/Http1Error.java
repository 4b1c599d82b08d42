package io.paduraksa.http1;

/**
 * Why an HTTP/1.1 decoder gave up on a connection: the one error type of the request decoder
 * ({@code server.http1.Http1RequestDecoder}) and the response decoder
 * ({@code proxy.http1.Http1ResponseDecoder}). Each side maps a constant to what it does:
 * <ul>
 *   <li>client side: {@link #status()} is the status to answer before closing (400, 413, 414, 431,
 *       501 or 505); 0 for a constant only the response decoder emits;</li>
 *   <li>upstream side: {@link #kind()} is the class of failure the forwarder tells apart (metrics and
 *       the answer to the client); the connection is always closed, never returned to a pool;
 *       {@code null} for a constant only the request decoder emits.</li>
 * </ul>
 * The constants both sides emit are those of the shared grammar: line ends, field lines, chunk
 * lines, Content-Length and Transfer-Encoding.
 *
 * <p>Emitted at most once per connection, as the last message a decoder ever produces: after it
 * every inbound byte is discarded. A decoder never resynchronises on a later start line, because
 * guessing where the next message starts after a framing error is exactly how request smuggling and
 * response splitting work. Enum constants, so emitting one allocates nothing.
 *
 * <p>Retrying: {@link #CLOSED_BEFORE_RESPONSE} (the upstream closed without sending a byte, the
 * classic race with an idle keep-alive connection) is the only error after which the request was
 * certainly not answered; whether to retry it is the forwarder's choice (idempotent requests only).
 */
public enum Http1Error {
    // ---- line ends and limits (both sides)

    /** LF not preceded by CR in a head, trailers or chunk framing (RFC 9112 section 2.2: we do not accept bare LF). */
    BARE_LF(400, Kind.BAD_FRAMING, "bare LF as a line terminator"),
    /** CR not followed by LF. */
    BARE_CR(400, Kind.BAD_FRAMING, "bare CR"),
    /** The head (start line, fields, final CRLF) is larger than the configured limit. */
    HEAD_TOO_LARGE(431, Kind.HEAD_TOO_LARGE, "head too large"),
    /** More header fields than the configured limit. */
    TOO_MANY_HEADERS(431, Kind.TOO_MANY_HEADERS, "too many header fields"),
    /** Trailer section larger than the head size limit (requests: or with more fields than the header count limit). */
    TRAILERS_TOO_LARGE(431, Kind.HEAD_TOO_LARGE, "trailer section too large"),

    // ---- field lines (both sides; RFC 9112 section 5)

    /** A field line starting with SP or HTAB: obsolete line folding (RFC 9112 section 5.2). */
    OBS_FOLD(400, Kind.BAD_FRAMING, "obsolete line folding"),
    /** A field line starting with a colon. */
    EMPTY_HEADER_NAME(400, Kind.INVALID_HEADER, "empty header name"),
    /** A byte outside tchar in a field name, or a line without a colon. */
    INVALID_HEADER_NAME(400, Kind.INVALID_HEADER, "invalid header name"),
    /** SP or HTAB between the field name and the colon (RFC 9112 section 5.1 says MUST reject). */
    WHITESPACE_BEFORE_COLON(400, Kind.BAD_FRAMING, "whitespace before colon"),
    /** A CTL other than HTAB (or DEL) in a field value. */
    INVALID_HEADER_VALUE(400, Kind.INVALID_HEADER, "control byte in header value"),

    // ---- framing fields (both sides; RFC 9112 section 6)

    /** Content-Length not 1*DIGIT (responses: a list of them) or beyond a long. */
    INVALID_CONTENT_LENGTH(400, Kind.BAD_FRAMING, "invalid Content-Length"),
    /** Both Content-Length and Transfer-Encoding (RFC 9112 section 6.3 allows rejecting; we always do). */
    CONTENT_LENGTH_WITH_TRANSFER_ENCODING(400, Kind.BAD_FRAMING, "both Content-Length and Transfer-Encoding"),
    /** Transfer-Encoding that is malformed or does not end in exactly one chunked (RFC 9112 section 6.3). */
    INVALID_TRANSFER_ENCODING(400, Kind.BAD_FRAMING, "invalid Transfer-Encoding"),
    /** Transfer-Encoding in an HTTP/1.0 message (RFC 9112 section 6.1: the framing is faulty). */
    TRANSFER_ENCODING_IN_HTTP_1_0(400, Kind.BAD_FRAMING, "Transfer-Encoding in HTTP/1.0"),

    // ---- chunked body (both sides; RFC 9112 section 7.1)

    /** Chunk size empty, not hex, or too large (requests: more than 16 hex digits; responses: beyond a long). */
    INVALID_CHUNK_SIZE(400, Kind.BAD_FRAMING, "invalid chunk size"),
    /** Chunk-size line (with extensions) longer than the decoder's {@code MAX_CHUNK_LINE_LENGTH}. */
    CHUNK_LINE_TOO_LONG(400, Kind.BAD_FRAMING, "chunk line too long"),
    /** Bytes after the chunk size that are not a chunk extension. */
    INVALID_CHUNK_EXTENSION(400, Kind.BAD_FRAMING, "invalid chunk extension"),
    /** Chunk data not followed by CRLF. */
    MISSING_CHUNK_CRLF(400, Kind.BAD_FRAMING, "missing CRLF after chunk data"),

    // ---- requests only (client side)

    /** More empty lines before the request line than RFC 9112 section 2.2 asks us to tolerate. */
    TOO_MANY_EMPTY_LINES(400, null, "too many empty lines before the request line"),
    /** The request line is longer than the configured limit. */
    REQUEST_LINE_TOO_LONG(414, null, "request line too long"),
    /** Method not a token, or not followed by exactly one SP. */
    INVALID_METHOD(400, null, "invalid method"),
    /** Empty target, a byte outside visible US-ASCII, a form not allowed with this method, or not followed by exactly one SP. */
    INVALID_TARGET(400, null, "invalid request-target"),
    /** The version is not {@code HTTP/DIGIT.DIGIT} ending the request line. */
    INVALID_VERSION(400, null, "invalid HTTP version"),
    /** Well-formed version other than HTTP/1.0 and HTTP/1.1. */
    UNSUPPORTED_VERSION(505, null, "HTTP version not supported"),
    /** HTTP/1.1 request without Host (RFC 9112 section 3.2). */
    MISSING_HOST(400, null, "missing Host header"),
    /** More than one Host field line (RFC 9112 section 3.2). */
    DUPLICATE_HOST(400, null, "more than one Host header"),
    /** More than one Content-Length field line, even with equal values (stricter than RFC 9110 section 8.6 allows). */
    DUPLICATE_CONTENT_LENGTH(400, null, "more than one Content-Length header"),
    /** More than one Transfer-Encoding field line. */
    DUPLICATE_TRANSFER_ENCODING(400, null, "more than one Transfer-Encoding header"),
    /** Well-formed codings ending in chunked, with a coding before it that we do not implement (RFC 9112 section 6.1). */
    UNSUPPORTED_TRANSFER_CODING(501, null, "transfer coding not implemented"),
    /** Declared Content-Length or the sum of chunk sizes above the configured limit. */
    BODY_TOO_LARGE(413, null, "request body too large"),

    // ---- responses only (upstream side)

    /** The first bytes are not {@code HTTP/1.0} or {@code HTTP/1.1} (also an empty line before the status line). */
    NOT_HTTP_1(0, Kind.INVALID_STATUS_LINE, "status line does not start with HTTP/1.0 or HTTP/1.1"),
    /** Version not followed by one SP, or the status code not followed by SP or CRLF. */
    MALFORMED_STATUS_LINE(0, Kind.INVALID_STATUS_LINE, "malformed status line"),
    /** The status code is not three digits from 100 to 599. */
    INVALID_STATUS_CODE(0, Kind.INVALID_STATUS_LINE, "status code not three digits in 100-599"),
    /** A CTL other than HTAB in the reason phrase. */
    INVALID_REASON(0, Kind.INVALID_STATUS_LINE, "control byte in reason phrase"),
    /** More trailer fields than the header count limit. */
    TOO_MANY_TRAILERS(0, Kind.TOO_MANY_HEADERS, "too many trailer fields"),
    /** NUL anywhere in the head, trailers or a chunk line (requests report it as the field's own error). */
    NUL(0, Kind.BAD_FRAMING, "NUL byte in head"),
    /** Content-Length values that differ, across field lines or within a list. */
    CONFLICTING_CONTENT_LENGTH(0, Kind.BAD_FRAMING, "differing Content-Length values"),
    /** More interim (1xx) heads before one final head than the decoder's {@code MAX_INTERIM_RESPONSES}. */
    TOO_MANY_INTERIM_RESPONSES(0, Kind.BAD_FRAMING, "too many interim responses"),
    /** The connection closed while a response was expected and not one byte of it had arrived. */
    CLOSED_BEFORE_RESPONSE(0, Kind.PREMATURE_CLOSE, "closed before the response started"),
    /** The connection closed inside a response head. */
    CLOSED_IN_HEAD(0, Kind.PREMATURE_CLOSE, "closed inside the response head"),
    /** The connection closed before the declared body, the last chunk or the trailers ended. */
    CLOSED_IN_BODY(0, Kind.PREMATURE_CLOSE, "closed before the response body ended"),
    /** Bytes arrived while no response was expected. */
    UNSOLICITED_BYTES(0, Kind.UNSOLICITED, "bytes while no response is expected"),
    /** Bytes followed a complete response that was the last one expected, or that closes the connection. */
    BYTES_AFTER_RESPONSE(0, Kind.UNSOLICITED, "bytes after a complete response"),
    /** A 101 Switching Protocols answering a request that did not ask for an upgrade. */
    UNREQUESTED_SWITCHING_PROTOCOLS(0, Kind.UNSOLICITED, "101 without an upgrade request");

    /** The classes of upstream failure the forwarder tells apart (for metrics and the answer to the client). */
    public enum Kind {
        INVALID_STATUS_LINE,
        INVALID_HEADER,
        HEAD_TOO_LARGE,
        TOO_MANY_HEADERS,
        BAD_FRAMING,
        PREMATURE_CLOSE,
        UNSOLICITED
    }

    private final int status;
    private final Kind kind;
    private final String reason;

    Http1Error(int status, Kind kind, String reason) {
        this.status = status;
        this.kind = kind;
        this.reason = reason;
    }

    /** Client side: the status to answer with (400, 413, 414, 431, 501 or 505); 0 when only responses have this error. */
    public int status() {
        return status;
    }

    /** Upstream side: the class of failure; {@code null} when only requests have this error. */
    public Kind kind() {
        return kind;
    }

    /** Whether the request decoder may emit this error. */
    public boolean isRequestError() {
        return status != 0;
    }

    /** Whether the response decoder may emit this error. */
    public boolean isResponseError() {
        return kind != null;
    }

    /** A constant, human-readable reason for logs (not sent to the client). */
    public String reason() {
        return reason;
    }
}
