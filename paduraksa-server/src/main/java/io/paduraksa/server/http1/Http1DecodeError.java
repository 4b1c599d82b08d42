package io.paduraksa.server.http1;

/**
 * Why {@link Http1RequestDecoder} refused a request, and which status to answer with.
 *
 * <p>Emitted at most once per connection, as the last message the decoder ever produces: after it
 * the decoder discards all input, and the consumer answers {@link #status()} and closes the
 * connection. It never resynchronises on a later request line, because guessing where the next
 * request starts after a framing error is exactly how request smuggling works. Enum constants, so
 * emitting one allocates nothing.
 */
public enum Http1DecodeError {
    /** More empty lines before the request line than RFC 9112 section 2.2 asks us to tolerate. */
    TOO_MANY_EMPTY_LINES(400, "too many empty lines before the request line"),
    /** LF not preceded by CR in the head or in chunk framing (RFC 9112 section 2.2: we do not accept bare LF). */
    BARE_LF(400, "bare LF as a line terminator"),
    /** CR not followed by LF. */
    BARE_CR(400, "bare CR"),
    /** The request line is longer than the configured limit. */
    REQUEST_LINE_TOO_LONG(414, "request line too long"),
    /** The head (request line, fields, final CRLF) is larger than the configured limit. */
    HEAD_TOO_LARGE(431, "request head too large"),
    /** More header fields than the configured limit. */
    TOO_MANY_HEADERS(431, "too many header fields"),
    /** Method not a token, or not followed by exactly one SP. */
    INVALID_METHOD(400, "invalid method"),
    /** Empty target, a byte outside visible US-ASCII, a form not allowed with this method, or not followed by exactly one SP. */
    INVALID_TARGET(400, "invalid request-target"),
    /** The version is not {@code HTTP/DIGIT.DIGIT} ending the request line. */
    INVALID_VERSION(400, "invalid HTTP version"),
    /** Well-formed version other than HTTP/1.0 and HTTP/1.1. */
    UNSUPPORTED_VERSION(505, "HTTP version not supported"),
    /** A field line starting with SP or HTAB: obsolete line folding (RFC 9112 section 5.2). */
    OBS_FOLD(400, "obsolete line folding"),
    /** A field line starting with a colon. */
    EMPTY_HEADER_NAME(400, "empty header name"),
    /** A byte outside tchar in a field name, or a line without a colon. */
    INVALID_HEADER_NAME(400, "invalid header name"),
    /** SP or HTAB between the field name and the colon (RFC 9112 section 5.1 says MUST reject). */
    WHITESPACE_BEFORE_COLON(400, "whitespace before colon"),
    /** A CTL other than HTAB (or DEL) in a field value. */
    INVALID_HEADER_VALUE(400, "invalid header value"),
    /** HTTP/1.1 request without Host (RFC 9112 section 3.2). */
    MISSING_HOST(400, "missing Host header"),
    /** More than one Host field line (RFC 9112 section 3.2). */
    DUPLICATE_HOST(400, "more than one Host header"),
    /** More than one Content-Length field line, even with equal values (stricter than RFC 9110 section 8.6 allows). */
    DUPLICATE_CONTENT_LENGTH(400, "more than one Content-Length header"),
    /** Content-Length not 1*DIGIT or beyond a long. */
    INVALID_CONTENT_LENGTH(400, "invalid Content-Length"),
    /** Both Content-Length and Transfer-Encoding (RFC 9112 section 6.3 allows rejecting; we always do). */
    CONTENT_LENGTH_WITH_TRANSFER_ENCODING(400, "both Content-Length and Transfer-Encoding"),
    /** More than one Transfer-Encoding field line. */
    DUPLICATE_TRANSFER_ENCODING(400, "more than one Transfer-Encoding header"),
    /** Transfer-Encoding whose final coding is not chunked, or that is malformed (RFC 9112 section 6.3). */
    INVALID_TRANSFER_ENCODING(400, "invalid Transfer-Encoding"),
    /** Well-formed codings ending in chunked, with a coding before it that we do not implement (RFC 9112 section 6.1). */
    UNSUPPORTED_TRANSFER_CODING(501, "transfer coding not implemented"),
    /** Transfer-Encoding in an HTTP/1.0 request (RFC 9112 section 6.1: the framing is faulty). */
    TRANSFER_ENCODING_IN_HTTP_1_0(400, "Transfer-Encoding in an HTTP/1.0 request"),
    /** Declared Content-Length or the sum of chunk sizes above the configured limit. */
    BODY_TOO_LARGE(413, "request body too large"),
    /** Chunk size empty, not hex, or more than 16 hex digits. */
    INVALID_CHUNK_SIZE(400, "invalid chunk size"),
    /** Chunk-size line (with extensions) longer than {@link Http1RequestDecoder#MAX_CHUNK_LINE_LENGTH}. */
    CHUNK_LINE_TOO_LONG(400, "chunk extension too long"),
    /** Bytes after the chunk size that are not a chunk extension. */
    INVALID_CHUNK_EXTENSION(400, "invalid chunk extension"),
    /** Chunk data not followed by CRLF. */
    MISSING_CHUNK_CRLF(400, "missing CRLF after chunk data"),
    /** Trailer section larger than the head size limit or with more fields than the header count limit. */
    TRAILERS_TOO_LARGE(431, "trailer section too large");

    private final int status;
    private final String reason;

    Http1DecodeError(int status, String reason) {
        this.status = status;
        this.reason = reason;
    }

    /** The status to answer with: 400, 413, 414, 431, 501 or 505. */
    public int status() {
        return status;
    }

    /** A constant, human-readable reason for logs (not sent to the client). */
    public String reason() {
        return reason;
    }
}
