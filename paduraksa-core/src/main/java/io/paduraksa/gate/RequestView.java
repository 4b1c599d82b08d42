package io.paduraksa.gate;

import io.netty.util.AsciiString;

/**
 * What a protocol shows the gate about one request: the HTTP/1.1 handler implements it over the
 * decoder's positions in the inbound buffer, the HTTP/2 handler over the stream's {@code Http2Headers}.
 * Every method runs per request and must not allocate; returned sequences are ASCII, one char per byte.
 */
public interface RequestView {

    /** The connection's client, shared by all its requests. */
    ClientInfo client();

    /** The method token as sent. */
    CharSequence method();

    /**
     * The request target in origin form ({@code /path?query}); for an absolute-form HTTP/1.1
     * target the path and query part of it, and {@code *} for {@code OPTIONS *}.
     */
    CharSequence target();

    /** The {@code Host} header (HTTP/1.1) or {@code :authority} (HTTP/2), or null when absent. */
    CharSequence authority();

    /**
     * The first value of a header, or null when absent. The result may be a view that the next
     * call re-points: read it before asking for another header.
     */
    CharSequence header(AsciiString lowerCaseName);

    /**
     * Whether a request body follows the head (HTTP/1.1: {@code Content-Length} above 0 or chunked;
     * HTTP/2: the HEADERS frame did not end the stream). A body-reading policy waits only for those.
     */
    default boolean hasBody() {
        return false;
    }

    /**
     * Number of header field lines, in the order sent (pseudo-header fields not among them); 0
     * where a view cannot list them. Read by the {@code attacks} policy's {@code all_headers}.
     */
    default int headerCount() {
        return 0;
    }

    /**
     * The name of field line {@code index} as sent (lower case over HTTP/2 and HTTP/3); a view
     * that the next {@code headerName} call may re-point, independent of {@link #headerValue}'s.
     */
    default CharSequence headerName(int index) {
        throw new IndexOutOfBoundsException(index);
    }

    /** The value of field line {@code index}; a view that the next {@code headerValue} call may re-point. */
    default CharSequence headerValue(int index) {
        throw new IndexOutOfBoundsException(index);
    }
}
