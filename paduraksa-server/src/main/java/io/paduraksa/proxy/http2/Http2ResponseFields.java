package io.paduraksa.proxy.http2;

import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import java.util.Arrays;
import java.util.Map;

/**
 * An HTTP/2 upstream's response head or trailers as the client side reads them: the decoded
 * header block's fields copied by reference into two arrays (pseudo-header fields left out), so
 * that they can be read by index like an HTTP/1.1 head. One per {@link Http2UpstreamStream}, reused
 * for its interim heads, final head and trailers; each is read synchronously and never kept.
 */
public final class Http2ResponseFields implements ResponseHead, ResponseTrailers {
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");

    private CharSequence[] names = new CharSequence[16];
    private CharSequence[] values = new CharSequence[16];
    private int count;
    private int status;
    private long contentLength;
    private boolean hasBody;

    /**
     * Reads a head; returns false when {@code :status} is missing or not three digits (the caller
     * treats that as an upstream error). {@code endStream}: the HEADERS frame ended the stream.
     */
    boolean head(Http2Headers headers, boolean endStream, boolean headRequest) {
        status = parseStatus(headers.status());
        if (status < 100) {
            return false;
        }
        contentLength = -1;
        fill(headers);
        int cl = indexOf(CONTENT_LENGTH);
        if (cl >= 0) {
            contentLength = parseLength(values[cl]);
        }
        hasBody = !endStream && !headRequest && status >= 200 && status != 204 && status != 304;
        return true;
    }

    /** Reads trailing fields. */
    void trailers(Http2Headers headers) {
        fill(headers);
    }

    private void fill(Http2Headers headers) {
        clear();
        for (Map.Entry<CharSequence, CharSequence> e : headers) {
            CharSequence name = e.getKey();
            if (name.length() > 0 && name.charAt(0) == ':') {
                continue;
            }
            if (count == names.length) {
                names = Arrays.copyOf(names, count * 2);
                values = Arrays.copyOf(values, count * 2);
            }
            names[count] = name;
            values[count] = e.getValue();
            count++;
        }
    }

    /** Drops the references to the last header block. */
    void clear() {
        Arrays.fill(names, 0, count, null);
        Arrays.fill(values, 0, count, null);
        count = 0;
    }

    private int indexOf(AsciiString lowerName) {
        for (int i = 0; i < count; i++) {
            if (lowerName.contentEqualsIgnoreCase(names[i])) {
                return i;
            }
        }
        return -1;
    }

    static int parseStatus(CharSequence s) {
        if (s == null || s.length() != 3) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < 3; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v >= 100 && v <= 599 ? v : -1;
    }

    private static long parseLength(CharSequence s) {
        long n = 0;
        if (s.length() == 0 || s.length() > 18) {
            return -1;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    boolean isInterim() {
        return status < 200;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public int headerCount() {
        return count;
    }

    @Override
    public CharSequence headerName(int index) {
        return names[index];
    }

    @Override
    public CharSequence headerValue(int index) {
        return values[index];
    }

    @Override
    public long contentLength() {
        return contentLength;
    }

    @Override
    public boolean hasBody() {
        return hasBody;
    }

    /** HTTP/2 has no Connection field (RFC 9113 8.2.2; Netty's decoder refuses one). */
    @Override
    public boolean isConnectionOption(CharSequence headerName) {
        return false;
    }

    @Override
    public int count() {
        return count;
    }

    @Override
    public CharSequence name(int index) {
        return names[index];
    }

    @Override
    public CharSequence value(int index) {
        return values[index];
    }

    /** The fields are references into a decoded header block: nothing to give back. */
    @Override
    public void release() {
    }
}
