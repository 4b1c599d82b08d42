package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.http2.HpackFieldSink;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import java.util.Arrays;

/**
 * An HTTP/2 upstream's response head or trailers as the client side reads them: the HPACK decoder's
 * fields ({@link HpackFieldSink}) copied into this object's own byte store with positions (the
 * decoder's positions hold only until its next block), {@code :status} parsed, the other
 * pseudo-header fields left out (the validator allows none in a response). Read by index like an
 * HTTP/1.1 head, through one re-pointed view per accessor. One per {@link Http2UpstreamStream}
 * (recycled with it), reused for its interim heads, final head and trailers; each is read
 * synchronously and never kept. The store grows to the largest block seen; the decoder bounds a
 * block by the connection's SETTINGS_MAX_HEADER_LIST_SIZE, and the store by twice that.
 */
public final class Http2ResponseFields implements ResponseHead, ResponseTrailers, HpackFieldSink {
    private static final byte[] CONTENT_LENGTH = {'c', 'o', 'n', 't', 'e', 'n', 't', '-', 'l', 'e', 'n', 'g', 't', 'h'};
    /** {@code content-length}'s static table index (RFC 7541 Appendix A). */
    private static final int CONTENT_LENGTH_INDEX = 28;

    private byte[] bytes = new byte[512];
    private ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    private int used;
    private int[] nameStart = new int[16];
    private int[] valueStart = new int[16];
    private int[] valueEnd = new int[16];
    private int count;
    private int status;
    private long contentLength;
    private boolean hasBody;
    private final AsciiView nameView = new AsciiView();
    private final AsciiView valueView = new AsciiView();

    /** Starts a block (head or trailers). */
    void reset() {
        used = 0;
        count = 0;
        status = -1;
        contentLength = -1;
        hasBody = false;
    }

    /** Every field is copied into this object's own bytes before {@link #field} returns. */
    @Override
    public boolean copiesFields() {
        return true;
    }

    @Override
    public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
            int staticIndex) {
        if (nameLength > 0 && name.getByte(nameIndex) == ':') {
            status = parseStatus(value, valueIndex, valueLength); // the validator lets only :status through
            return;
        }
        if (count == nameStart.length) {
            nameStart = Arrays.copyOf(nameStart, count * 2);
            valueStart = Arrays.copyOf(valueStart, count * 2);
            valueEnd = Arrays.copyOf(valueEnd, count * 2);
        }
        ensure(nameLength + valueLength);
        nameStart[count] = used;
        name.getBytes(nameIndex, bytes, used, nameLength);
        used += nameLength;
        valueStart[count] = used;
        value.getBytes(valueIndex, bytes, used, valueLength);
        used += valueLength;
        valueEnd[count] = used;
        if (staticIndex == CONTENT_LENGTH_INDEX || isContentLength(name, nameIndex, nameLength)) {
            contentLength = parseLength(value, valueIndex, valueLength);
        }
        count++;
    }

    private void ensure(int more) {
        if (used + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, used + more));
            buf = Unpooled.wrappedBuffer(bytes);
        }
    }

    private static boolean isContentLength(ByteBuf name, int index, int length) {
        if (length != CONTENT_LENGTH.length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (name.getByte(index + i) != CONTENT_LENGTH[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Ends a head's block: false when {@code :status} is missing or not 100..599 (the caller treats
     * that as an upstream error). {@code endStream}: the HEADERS frame ended the stream.
     */
    boolean endHead(boolean endStream, boolean headRequest) {
        if (status < 100) {
            return false;
        }
        hasBody = !endStream && !headRequest && status >= 200 && status != 204 && status != 304;
        return true;
    }

    /** Drops what the last block held (nothing refers outside this object). */
    void clear() {
        count = 0;
        used = 0;
        nameView.clear();
        valueView.clear();
    }

    static int parseStatus(ByteBuf s, int index, int length) {
        if (length != 3) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < 3; i++) {
            int c = s.getByte(index + i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v >= 100 && v <= 599 ? v : -1;
    }

    private static long parseLength(ByteBuf s, int index, int length) {
        if (length == 0 || length > 18) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < length; i++) {
            int c = s.getByte(index + i);
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
        return nameView.point(buf, nameStart[index], valueStart[index]);
    }

    @Override
    public CharSequence headerValue(int index) {
        return valueView.point(buf, valueStart[index], valueEnd[index]);
    }

    @Override
    public long contentLength() {
        return contentLength;
    }

    @Override
    public boolean hasBody() {
        return hasBody;
    }

    /** HTTP/2 has no Connection field (RFC 9113 8.2.2; the validator refuses one). */
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
        return headerName(index);
    }

    @Override
    public CharSequence value(int index) {
        return headerValue(index);
    }

    /** The fields live in this object's store: nothing to give back. */
    @Override
    public void release() {
    }
}
