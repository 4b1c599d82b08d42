package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.paduraksa.http2.HpackEncoder;
import io.paduraksa.http2.HpackStaticTable;
import io.paduraksa.proxy.FieldSink;
import java.util.Arrays;

/**
 * The field block of one upstream HTTP/2 request, HPACK-encoded as it is written: the pseudo-header
 * fields first (RFC 9113 8.3), then every field the client side offers ({@link FieldSink}) and the
 * forwarding fields, with {@link HpackEncoder} (static indices, literals without indexing, no
 * Huffman, no dynamic table: no state to keep in step, nothing kept after the block). One per
 * connection, reused: {@link Http2UpstreamStream#writeHead} fills it and the connection frames it
 * into HEADERS (and CONTINUATION) at once.
 *
 * <p>Nothing here allocates once warm: an HTTP/1.1 client's field line is copied from its head's
 * bytes with the name lower-cased (section 8.2.1) through a reused scratch buffer, an HTTP/2
 * client's field comes as a line of its own store, a computed forwarding field's value is gathered
 * in a reused array. {@code content-length} from the client is dropped: the stream writes the
 * length it forwards ({@link #contentLength}).
 */
public final class Http2RequestBlock implements FieldSink {
    /** Static table indices (RFC 7541 Appendix A). */
    private static final int CONTENT_LENGTH = 28;
    private static final AsciiString CONTENT_LENGTH_NAME = AsciiString.cached("content-length");
    private static final AsciiString GET = AsciiString.cached("GET");
    private static final AsciiString POST = AsciiString.cached("POST");
    private static final AsciiString CONNECT = AsciiString.cached("CONNECT");
    private static final AsciiString PROTOCOL = AsciiString.cached(":protocol");
    private static final AsciiString WEBSOCKET = AsciiString.cached("websocket");
    /** Left out of an extended CONNECT (RFC 8441 5: no key, and connection fields are malformed on HTTP/2). */
    private static final AsciiString[] NOT_FOR_EXTENDED_CONNECT = {
        AsciiString.cached("sec-websocket-key"), AsciiString.cached("upgrade"), AsciiString.cached("connection"),
    };

    private final ByteBuf block = Unpooled.buffer(1024);
    /** A name being lower-cased. */
    private final ByteBuf name = Unpooled.buffer(64);
    private int size;
    private boolean clientContentLength;
    /** An extended CONNECT (RFC 8441) is being written: the HTTP/1.1 handshake's own fields are left out. */
    private boolean webSocket;
    /** The forwarding field being built (name, then value parts). */
    private AsciiString fieldName;
    private byte[] fieldValue = new byte[256];
    private int fieldLength;

    /** Starts a new block. */
    public Http2RequestBlock start() {
        block.clear();
        size = 0;
        clientContentLength = false;
        webSocket = false;
        return this;
    }

    /** The encoded block so far: {@code [readerIndex, writerIndex)}. */
    public ByteBuf block() {
        return block;
    }

    /** Fields written, pseudo-header fields included. */
    public int size() {
        return size;
    }

    /** Whether the client sent a {@code content-length} (dropped here). */
    boolean hadContentLength() {
        return clientContentLength;
    }

    void method(CharSequence method) {
        if (GET.contentEquals(method)) {
            HpackEncoder.indexed(block, HpackStaticTable.METHOD_GET);
        } else if (POST.contentEquals(method)) {
            HpackEncoder.indexed(block, HpackStaticTable.METHOD_POST);
        } else {
            HpackEncoder.integer(block, 0, 4, HpackStaticTable.METHOD_GET);
            HpackEncoder.text(block, method);
        }
        size++;
    }

    /**
     * A WebSocket as an extended CONNECT (RFC 8441 4): {@code :method CONNECT} and
     * {@code :protocol websocket}; from here on the client's Sec-WebSocket-Key, Upgrade and Connection
     * are left out. Call first, then {@link #scheme}, {@link #authority} and {@link #path} as for any request.
     */
    void extendedConnect() {
        webSocket = true;
        method(CONNECT);
        add(PROTOCOL, WEBSOCKET);
    }

    void scheme(boolean https) {
        HpackEncoder.indexed(block, https ? HpackStaticTable.SCHEME_HTTPS : HpackStaticTable.SCHEME_HTTP);
        size++;
    }

    void authority(CharSequence authority) {
        HpackEncoder.integer(block, 0, 4, HpackStaticTable.AUTHORITY);
        HpackEncoder.text(block, authority);
        size++;
    }

    /** {@code :path}: {@code path[0, pathLength)}, then {@code ?} and {@code target[queryStart, queryEnd)} when the query is there. */
    void path(byte[] path, int pathLength, CharSequence target, int queryStart, int queryEnd) {
        HpackEncoder.integer(block, 0, 4, HpackStaticTable.PATH_ROOT);
        int length = pathLength + (queryStart >= 0 ? 1 + queryEnd - queryStart : 0);
        HpackEncoder.integer(block, 0, 7, length);
        block.writeBytes(path, 0, pathLength);
        if (queryStart >= 0) {
            block.writeByte('?');
            for (int i = queryStart; i < queryEnd; i++) {
                block.writeByte(target.charAt(i));
            }
        }
        size++;
    }

    /** {@code content-length: length}. */
    void contentLength(long length) {
        HpackEncoder.integer(block, 0, 4, CONTENT_LENGTH);
        int digits = 1;
        for (long v = length; v >= 10; v /= 10) {
            digits++;
        }
        HpackEncoder.integer(block, 0, 7, digits);
        int at = block.writerIndex();
        block.writeZero(digits);
        for (long v = length, i = digits - 1; i >= 0; i--, v /= 10) {
            block.setByte(at + (int) i, (int) ('0' + v % 10));
        }
        size++;
    }

    /** A field of ours ({@code te: trailers}); {@code name} lower case. */
    void add(CharSequence name, CharSequence value) {
        HpackEncoder.literal(block, name, value);
        size++;
    }

    // ---- FieldSink

    @Override
    public void line(ByteBuf head, int nameStart, int nameEnd, int valueStart, int valueEnd) {
        int n = nameEnd - nameStart;
        ByteBuf lower = name;
        lower.clear();
        lower.ensureWritable(n);
        for (int i = nameStart; i < nameEnd; i++) {
            int c = head.getByte(i);
            lower.writeByte(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        if (n == CONTENT_LENGTH_NAME.length() && is(lower, CONTENT_LENGTH_NAME)) {
            clientContentLength = true;
            return;
        }
        if (webSocket && isHandshakeOnly(lower, n)) {
            return;
        }
        HpackEncoder.field(block, lower, 0, n, head, valueStart, valueEnd - valueStart, false);
        size++;
    }

    private static boolean is(ByteBuf lower, AsciiString name) {
        for (int i = 0; i < name.length(); i++) {
            if (lower.getByte(i) != name.byteAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHandshakeOnly(ByteBuf lower, int n) {
        for (AsciiString name : NOT_FOR_EXTENDED_CONNECT) {
            if (n == name.length() && is(lower, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isHandshakeOnly(CharSequence name) {
        for (AsciiString s : NOT_FOR_EXTENDED_CONNECT) {
            if (s.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void field(CharSequence name, CharSequence value) {
        if (CONTENT_LENGTH_NAME.contentEqualsIgnoreCase(name)) {
            clientContentLength = true;
            return;
        }
        if (webSocket && isHandshakeOnly(name)) {
            return;
        }
        add(name, value);
    }

    @Override
    public void name(AsciiString http1Name, AsciiString lowerName) {
        fieldName = lowerName;
        fieldLength = 0;
    }

    @Override
    public void value(CharSequence text) {
        int n = text.length();
        grow(n);
        for (int i = 0; i < n; i++) {
            fieldValue[fieldLength++] = (byte) text.charAt(i);
        }
    }

    @Override
    public void value(byte[] bytes, int from, int length) {
        grow(length);
        System.arraycopy(bytes, from, fieldValue, fieldLength, length);
        fieldLength += length;
    }

    private void grow(int more) {
        if (fieldLength + more > fieldValue.length) {
            fieldValue = Arrays.copyOf(fieldValue, Math.max(fieldValue.length * 2, fieldLength + more));
        }
    }

    @Override
    public void end() {
        int staticName = HpackStaticTable.indexOfName(fieldName);
        HpackEncoder.integer(block, 0, 4, staticName);
        if (staticName == 0) {
            int n = fieldName.length();
            HpackEncoder.integer(block, 0, 7, n);
            for (int i = 0; i < n; i++) {
                int c = fieldName.byteAt(i);
                block.writeByte(c >= 'A' && c <= 'Z' ? c + 32 : c); // RFC 9113 8.2.1
            }
        }
        HpackEncoder.integer(block, 0, 7, fieldLength);
        block.writeBytes(fieldValue, 0, fieldLength);
        fieldName = null;
        size++;
    }

    /** Gives the buffers back (the connection closed). */
    void release() {
        block.release();
        name.release();
    }
}
