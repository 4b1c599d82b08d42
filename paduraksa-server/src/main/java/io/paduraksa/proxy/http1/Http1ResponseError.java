package io.paduraksa.proxy.http1;

/**
 * Why {@link Http1ResponseDecoder} gave up on an upstream connection.
 *
 * <p>Emitted at most once per connection, as the last message the decoder ever produces: after it
 * every inbound byte is discarded and the connection must be closed, never returned to a pool. The
 * decoder never resynchronises on a later status line, because guessing where the next response
 * starts is how response splitting and desync attacks work. Each constant is one {@link #reason()}
 * grouped under a {@link Kind}; enum constants, so an error allocates nothing.
 *
 * <p>Retrying: {@link #CLOSED_BEFORE_RESPONSE} (the upstream closed without sending a byte, the
 * classic race with an idle keep-alive connection) is the only error after which the request was
 * certainly not answered; whether to retry it is the forwarder's choice (idempotent requests only).
 */
public enum Http1ResponseError {
    /** The first bytes are not {@code HTTP/1.0} or {@code HTTP/1.1} (also an empty line before the status line). */
    NOT_HTTP_1(Kind.INVALID_STATUS_LINE, "status line does not start with HTTP/1.0 or HTTP/1.1"),
    /** Version not followed by one SP, or the status code not followed by SP or CRLF. */
    MALFORMED_STATUS_LINE(Kind.INVALID_STATUS_LINE, "malformed status line"),
    /** The status code is not three digits from 100 to 599. */
    INVALID_STATUS_CODE(Kind.INVALID_STATUS_LINE, "status code not three digits in 100-599"),
    /** A CTL other than HTAB in the reason phrase. */
    INVALID_REASON(Kind.INVALID_STATUS_LINE, "control byte in reason phrase"),

    /** A byte outside tchar in a field name, or a field line without a colon. */
    INVALID_HEADER_NAME(Kind.INVALID_HEADER, "invalid header name"),
    /** A field line starting with a colon. */
    EMPTY_HEADER_NAME(Kind.INVALID_HEADER, "empty header name"),
    /** A CTL other than HTAB (or DEL) in a field value. */
    INVALID_HEADER_VALUE(Kind.INVALID_HEADER, "control byte in header value"),

    /** The head is larger than the decoder's limit. */
    HEAD_TOO_LARGE(Kind.HEAD_TOO_LARGE, "response head too large"),
    /** The trailer section is larger than the head limit. */
    TRAILERS_TOO_LARGE(Kind.HEAD_TOO_LARGE, "trailer section too large"),

    /** More header fields than the decoder's limit. */
    TOO_MANY_HEADERS(Kind.TOO_MANY_HEADERS, "too many header fields"),
    /** More trailer fields than the header count limit. */
    TOO_MANY_TRAILERS(Kind.TOO_MANY_HEADERS, "too many trailer fields"),

    /** LF not preceded by CR in the head, trailers or chunk framing. */
    BARE_LF(Kind.BAD_FRAMING, "bare LF as a line terminator"),
    /** CR not followed by LF. */
    BARE_CR(Kind.BAD_FRAMING, "bare CR"),
    /** NUL anywhere in the head, trailers or a chunk line. */
    NUL(Kind.BAD_FRAMING, "NUL byte in head"),
    /** A field line starting with SP or HTAB (RFC 9112 section 5.2). */
    OBS_FOLD(Kind.BAD_FRAMING, "obsolete line folding"),
    /** SP or HTAB between a field name and its colon (RFC 9112 section 5.1). */
    WHITESPACE_BEFORE_COLON(Kind.BAD_FRAMING, "whitespace before colon"),
    /** Content-Length and Transfer-Encoding in one response (RFC 9112 section 6.3). */
    CONTENT_LENGTH_WITH_TRANSFER_ENCODING(Kind.BAD_FRAMING, "both Content-Length and Transfer-Encoding"),
    /** Content-Length values that differ, across field lines or within a list. */
    CONFLICTING_CONTENT_LENGTH(Kind.BAD_FRAMING, "differing Content-Length values"),
    /** Content-Length not a list of 1*DIGIT values, or beyond a long. */
    INVALID_CONTENT_LENGTH(Kind.BAD_FRAMING, "invalid Content-Length"),
    /** Transfer-Encoding not a list of tokens ending in exactly one {@code chunked}. */
    INVALID_TRANSFER_ENCODING(Kind.BAD_FRAMING, "Transfer-Encoding not ending in chunked"),
    /** Transfer-Encoding in an HTTP/1.0 response (RFC 9112 section 6.1). */
    TRANSFER_ENCODING_IN_HTTP_1_0(Kind.BAD_FRAMING, "Transfer-Encoding in an HTTP/1.0 response"),
    /** Chunk size empty, not hex, or beyond a long. */
    INVALID_CHUNK_SIZE(Kind.BAD_FRAMING, "invalid chunk size"),
    /** Chunk-size line longer than {@link Http1ResponseDecoder#MAX_CHUNK_LINE_LENGTH}. */
    CHUNK_LINE_TOO_LONG(Kind.BAD_FRAMING, "chunk line too long"),
    /** Bytes after the chunk size that are not a chunk extension. */
    INVALID_CHUNK_EXTENSION(Kind.BAD_FRAMING, "invalid chunk extension"),
    /** Chunk data not followed by CRLF. */
    MISSING_CHUNK_CRLF(Kind.BAD_FRAMING, "missing CRLF after chunk data"),
    /** More interim (1xx) heads before one final head than {@link Http1ResponseDecoder#MAX_INTERIM_RESPONSES}. */
    TOO_MANY_INTERIM_RESPONSES(Kind.BAD_FRAMING, "too many interim responses"),

    /** The connection closed while a response was expected and not one byte of it had arrived. */
    CLOSED_BEFORE_RESPONSE(Kind.PREMATURE_CLOSE, "closed before the response started"),
    /** The connection closed inside a response head. */
    CLOSED_IN_HEAD(Kind.PREMATURE_CLOSE, "closed inside the response head"),
    /** The connection closed before the declared body, the last chunk or the trailers ended. */
    CLOSED_IN_BODY(Kind.PREMATURE_CLOSE, "closed before the response body ended"),

    /** Bytes arrived while no response was expected. */
    UNSOLICITED_BYTES(Kind.UNSOLICITED, "bytes while no response is expected"),
    /** Bytes followed a complete response that was the last one expected, or that closes the connection. */
    BYTES_AFTER_RESPONSE(Kind.UNSOLICITED, "bytes after a complete response"),
    /** A 101 Switching Protocols answering a request that did not ask for an upgrade. */
    UNREQUESTED_SWITCHING_PROTOCOLS(Kind.UNSOLICITED, "101 without an upgrade request");

    /** The classes of failure the forwarder tells apart (for metrics and the answer to the client). */
    public enum Kind {
        INVALID_STATUS_LINE,
        INVALID_HEADER,
        HEAD_TOO_LARGE,
        TOO_MANY_HEADERS,
        BAD_FRAMING,
        PREMATURE_CLOSE,
        UNSOLICITED
    }

    private final Kind kind;
    private final String reason;

    Http1ResponseError(Kind kind, String reason) {
        this.kind = kind;
        this.reason = reason;
    }

    public Kind kind() {
        return kind;
    }

    /** A constant, human-readable reason for logs. */
    public String reason() {
        return reason;
    }
}
