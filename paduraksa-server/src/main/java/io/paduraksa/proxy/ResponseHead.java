package io.paduraksa.proxy;

import io.paduraksa.snapshot.ResponseHeaderRules;

/**
 * An upstream's final or interim response head as the client side writes it, whatever protocol
 * the upstream spoke: {@link io.paduraksa.proxy.http1.Http1ResponseHead} (positions into the
 * upstream's head bytes) or {@link io.paduraksa.proxy.http2.Http2ResponseFields} (over the decoded
 * HTTP/2 header block). Read on the event loop while the forwarder hands it over, never kept.
 *
 * <p>{@link #headerName} and {@link #headerValue} may re-point one view each: a returned sequence
 * stays valid only until the same accessor is called again. Neither allocates on HTTP/1.1.
 */
public interface ResponseHead {

    /** 100 to 599. */
    int status();

    /** Header fields, pseudo-header fields excluded. */
    int headerCount();

    /** The name of field {@code index} as the upstream sent it (case as sent on HTTP/1.1, lower case on HTTP/2). */
    CharSequence headerName(int index);

    /** The value of field {@code index}. */
    CharSequence headerValue(int index);

    /** Declared content length, or -1. */
    long contentLength();

    /** Whether body bytes follow this head. */
    boolean hasBody();

    /** Whether a Connection field names {@code headerName} (always false on HTTP/2, which has none). */
    boolean isConnectionOption(CharSequence headerName);

    /**
     * The status line (standard reason phrase) and the first {@link #http1LineCount()} fields as
     * HTTP/1.1 lines, encoded once with {@code rules}' removals applied, so that an HTTP/1.1 client's
     * head is one copy; null when this head has no such block (an upstream's), or when it holds a
     * {@code RateLimit-*} field and {@code withoutRateLimit} (then the fields go one by one). The
     * fields after the block are written one by one. Do not modify the array.
     */
    default byte[] http1Lines(ResponseHeaderRules rules, boolean withoutRateLimit) {
        return null;
    }

    /** How many fields {@link #http1Lines} covers. */
    default int http1LineCount() {
        return 0;
    }
}
