package io.paduraksa.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.RequestView;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.http2.HpackFieldSink;
import io.paduraksa.http2.HpackStaticTable;
import io.paduraksa.proxy.FieldSink;

/**
 * One HTTP/2 request's fields as the gate and the forwarder read them: the HPACK decoder's fields
 * ({@link HpackFieldSink}) copied into this stream's own byte store, each regular field as a
 * {@code name: value\r\n} line (so an upstream takes it as a field line, {@link FieldSink#line}, and
 * an HTTP/1.1 upstream copies consecutive forwarded lines at once), the
 * pseudo-header fields as their values, with positions. Copied because the decoder's positions
 * hold only until the next field block, and a forwarded request is read again when its upstream
 * connection is ready. The store grows to the largest request seen and stays with the recycled
 * exchange; it is bounded by twice SETTINGS_MAX_HEADER_LIST_SIZE (the decoder stops a larger list).
 *
 * <p>As the gate's {@link RequestView}: views re-pointed per call, nothing allocated. A WebSocket
 * over HTTP/2 (RFC 8441 extended CONNECT) shows the gate a {@code GET} of its {@code :path}, the
 * request an HTTP/1.1 client's handshake is, so methods, routes, policies and rate limits judge
 * both alike. Several {@code cookie} fields (RFC 9113 8.2.3: clients may split them, browsers do)
 * are joined with "; " into one line, once per request and only when read or forwarded.
 */
final class Http2RequestFields implements RequestView, HpackFieldSink {
    private static final AsciiString GET = AsciiString.cached("GET");
    private static final AsciiString COOKIE = AsciiString.cached("cookie");
    private static final AsciiString HOST = AsciiString.cached("host");
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    private static final byte[] COOKIE_LINE = {'c', 'o', 'o', 'k', 'i', 'e', ':', ' '};
    private static final int MAX_FIELDS = 1024;
    /** {@code :protocol} has no static entry: a kind of its own above the table's indices. */
    private static final int PROTOCOL = 100;

    private byte[] bytes = new byte[1024];
    private ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    private int used;
    private int limit;
    private boolean overflow;
    private int[] nameStart = new int[32];
    private int[] valueStart = new int[32];
    private int[] valueEnd = new int[32];
    private int count;
    private int method = -1;
    private int methodEnd;
    private int path = -1;
    private int pathEnd;
    private int authority = -1;
    private int authorityEnd;
    private int protocol = -1;
    private int protocolEnd;
    private int cookies;
    /** The joined cookie line's name start (its value starts 8 later), or -1. */
    private int joined = -1;
    private int joinedEnd;

    private final AsciiView methodView = new AsciiView();
    private final AsciiView targetView = new AsciiView();
    private final AsciiView authorityView = new AsciiView();
    private final AsciiView headerView = new AsciiView();
    private final AsciiView nameView = new AsciiView();
    /** The gate's views over one listed field ({@link #headerName(int)}, {@link #headerValue(int)}). */
    private final AsciiView listedName = new AsciiView();
    private final AsciiView listedValue = new AsciiView();
    private ClientInfo client;
    private boolean websocket;
    /** DATA follows the HEADERS (they did not end the stream). */
    private boolean body;

    /** Starts a request: {@code maxHeaderListSize} bounds what is stored. */
    void reset(ClientInfo client, int maxHeaderListSize) {
        this.client = client;
        this.limit = 2 * maxHeaderListSize + 64;
        used = 0;
        count = 0;
        overflow = false;
        method = path = authority = protocol = joined = -1;
        cookies = 0;
        websocket = false;
        body = false;
    }

    void clear() {
        client = null;
        methodView.clear();
        targetView.clear();
        authorityView.clear();
        headerView.clear();
        nameView.clear();
        listedName.clear();
        listedValue.clear();
    }

    void websocket(boolean websocket) {
        this.websocket = websocket;
    }

    void hasBody(boolean body) {
        this.body = body;
    }

    @Override
    public boolean hasBody() {
        return body;
    }

    /** Whether a field did not fit (only after the decoder's list limit failed: the request is refused). */
    boolean overflowed() {
        return overflow;
    }

    // ---- HpackFieldSink

    /** Every field is copied into this object's own bytes before {@link #field} returns. */
    @Override
    public boolean copiesFields() {
        return true;
    }

    @Override
    public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
            int staticIndex) {
        if (nameLength > 0 && name.getByte(nameIndex) == ':') {
            pseudo(name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex);
            return;
        }
        if (count == MAX_FIELDS || !room(nameLength + 4 + valueLength)) {
            overflow = true;
            return;
        }
        if (count == nameStart.length) {
            growFields();
        }
        int at = used;
        name.getBytes(nameIndex, bytes, at, nameLength);
        at += nameLength;
        bytes[at++] = ':';
        bytes[at++] = ' ';
        value.getBytes(valueIndex, bytes, at, valueLength);
        nameStart[count] = used;
        valueStart[count] = at;
        valueEnd[count] = at + valueLength;
        at += valueLength;
        bytes[at++] = '\r'; // ended as on HTTP/1.1: lines forwarded one after the other go up in one copy
        bytes[at++] = '\n';
        used = at;
        if (staticIndex == HpackStaticTable.COOKIE || staticIndex == 0 && nameLength == 6 && isName(count, COOKIE)) {
            cookies++;
        }
        count++;
    }

    private void pseudo(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
            int staticIndex) {
        if (!room(valueLength)) {
            overflow = true;
            return;
        }
        int start = used;
        value.getBytes(valueIndex, bytes, start, valueLength);
        used += valueLength;
        int end = used;
        // the validator let only :method, :scheme, :authority, :path and :protocol through, once each
        int kind = staticIndex != 0 ? staticIndex
                : nameLength == 10 ? HpackStaticTable.AUTHORITY
                : nameLength == 5 ? HpackStaticTable.PATH_ROOT
                : nameLength == 9 ? PROTOCOL
                : nameLength == 7 && name.getByte(nameIndex + 1) == 'm' ? HpackStaticTable.METHOD_GET : 0;
        switch (kind) {
            case HpackStaticTable.AUTHORITY -> {
                authority = start;
                authorityEnd = end;
            }
            case HpackStaticTable.METHOD_GET, HpackStaticTable.METHOD_POST -> {
                method = start;
                methodEnd = end;
            }
            case HpackStaticTable.PATH_ROOT, HpackStaticTable.PATH_INDEX_HTML -> {
                path = start;
                pathEnd = end;
            }
            case PROTOCOL -> {
                protocol = start;
                protocolEnd = end;
            }
            default -> {
                // :scheme: the connection says whether it is TLS
            }
        }
    }

    private boolean room(int n) {
        if (used + n <= bytes.length) {
            return true;
        }
        if (used + n > limit) {
            return false;
        }
        int size = Math.min(limit, Math.max(used + n, bytes.length * 2));
        byte[] grown = new byte[size];
        System.arraycopy(bytes, 0, grown, 0, used);
        bytes = grown;
        buf = Unpooled.wrappedBuffer(grown);
        return true;
    }

    private void growFields() {
        int n = nameStart.length * 2;
        nameStart = java.util.Arrays.copyOf(nameStart, n);
        valueStart = java.util.Arrays.copyOf(valueStart, n);
        valueEnd = java.util.Arrays.copyOf(valueEnd, n);
    }

    private boolean isName(int i, AsciiString lowerName) {
        int start = nameStart[i];
        int length = valueStart[i] - 2 - start;
        if (length != lowerName.length()) {
            return false;
        }
        byte[] name = lowerName.array();
        int offset = lowerName.arrayOffset();
        for (int k = 0; k < length; k++) {
            if (bytes[start + k] != name[offset + k]) {
                return false;
            }
        }
        return true;
    }

    // ---- what the handler reads

    boolean methodIs(AsciiString m) {
        return method >= 0 && rangeEquals(method, methodEnd, m);
    }

    boolean hasAuthority() {
        return authority >= 0;
    }

    boolean hasProtocol() {
        return protocol >= 0;
    }

    /** Whether {@code :protocol} is {@code lowerCase}, ignoring ASCII case. */
    boolean protocolIs(AsciiString lowerCase) {
        if (protocol < 0 || protocolEnd - protocol != lowerCase.length()) {
            return false;
        }
        for (int i = 0; i < lowerCase.length(); i++) {
            int b = bytes[protocol + i];
            if ((b >= 'A' && b <= 'Z' ? b + 32 : b) != lowerCase.byteAt(i)) {
                return false;
            }
        }
        return true;
    }

    private boolean rangeEquals(int start, int end, AsciiString s) {
        if (end - start != s.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (bytes[start + i] != s.byteAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The declared {@code content-length}: -1 when absent, -2 when malformed (not only digits,
     * too long, or two different values: RFC 9113 8.1.1).
     */
    long contentLength() {
        long found = -1;
        for (int i = 0; i < count; i++) {
            if (valueStart[i] - 2 - nameStart[i] == 14 && isName(i, CONTENT_LENGTH)) {
                long n = digits(valueStart[i], valueEnd[i]);
                if (n < 0 || found >= 0 && n != found) {
                    return -2;
                }
                found = n;
            }
        }
        return found;
    }

    private long digits(int start, int end) {
        if (start == end || end - start > 18) {
            return -1;
        }
        long n = 0;
        for (int i = start; i < end; i++) {
            int b = bytes[i];
            if (b < '0' || b > '9') {
                return -1;
            }
            n = n * 10 + (b - '0');
        }
        return n;
    }

    // ---- RequestView

    @Override
    public ClientInfo client() {
        return client;
    }

    @Override
    public CharSequence method() {
        if (websocket) {
            return GET;
        }
        return method < 0 ? null : methodView.point(buf, method, methodEnd);
    }

    @Override
    public CharSequence target() {
        return path < 0 ? null : targetView.point(buf, path, pathEnd);
    }

    /** {@code :authority}, or the {@code host} field a client may send instead (RFC 9113 8.3.1). */
    @Override
    public CharSequence authority() {
        if (authority >= 0) {
            return authorityView.point(buf, authority, authorityEnd);
        }
        int i = find(HOST);
        return i < 0 ? null : authorityView.point(buf, valueStart[i], valueEnd[i]);
    }

    @Override
    public CharSequence header(AsciiString lowerCaseName) {
        if (cookies > 1 && lowerCaseName.length() == 6 && COOKIE.contentEquals(lowerCaseName)) {
            joinCookies();
            return joined < 0 ? null : headerView.point(buf, joined + COOKIE_LINE.length, joinedEnd);
        }
        int i = find(lowerCaseName);
        return i < 0 ? null : headerView.point(buf, valueStart[i], valueEnd[i]);
    }

    /** The regular fields as sent, each {@code cookie} field on its own (not joined). */
    @Override
    public int headerCount() {
        return count;
    }

    @Override
    public CharSequence headerName(int index) {
        return listedName.point(buf, nameStart[index], valueStart[index] - 2);
    }

    @Override
    public CharSequence headerValue(int index) {
        return listedValue.point(buf, valueStart[index], valueEnd[index]);
    }

    private int find(AsciiString lowerCaseName) {
        for (int i = 0; i < count; i++) {
            if (isName(i, lowerCaseName)) {
                return i;
            }
        }
        return -1;
    }

    /** The cookie fields as one line after the others, built once per request. */
    private void joinCookies() {
        if (joined >= 0) {
            return;
        }
        int n = COOKIE_LINE.length;
        for (int i = 0; i < count; i++) {
            if (isName(i, COOKIE)) {
                n += valueEnd[i] - valueStart[i] + 2;
            }
        }
        if (used + n > bytes.length && !room(n)) {
            return; // beyond any valid request (the list limit bounds the cookies): read as absent
        }
        int start = used;
        int at = start;
        System.arraycopy(COOKIE_LINE, 0, bytes, at, COOKIE_LINE.length);
        at += COOKIE_LINE.length;
        boolean first = true;
        for (int i = 0; i < count; i++) {
            if (isName(i, COOKIE)) {
                if (!first) {
                    bytes[at++] = ';';
                    bytes[at++] = ' ';
                }
                first = false;
                int length = valueEnd[i] - valueStart[i];
                System.arraycopy(bytes, valueStart[i], bytes, at, length);
                at += length;
            }
        }
        used = at;
        joined = start;
        joinedEnd = at;
    }

    // ---- for the forwarder

    /**
     * Offers the regular fields to {@code sink} as field lines, in the order sent, the cookies joined
     * into one line in place of the first, unless {@code filter} refuses a field's name.
     */
    void offer(FieldSink sink, NameFilter filter) {
        boolean cookiesDone = false;
        if (cookies > 1) {
            joinCookies();
        }
        for (int i = 0; i < count; i++) {
            int start = nameStart[i];
            int nameEnd = valueStart[i] - 2;
            boolean cookie = cookies > 1 && nameEnd - start == 6 && isName(i, COOKIE);
            if (cookie && (cookiesDone || joined < 0)) {
                continue;
            }
            if (!filter.accepts(nameView.point(buf, start, nameEnd))) {
                continue;
            }
            if (cookie) {
                cookiesDone = true;
                sink.line(buf, joined, joined + 6, joined + COOKIE_LINE.length, joinedEnd);
            } else {
                sink.line(buf, start, nameEnd, valueStart[i], valueEnd[i]);
            }
        }
    }

    /** Which fields go upstream (the exchange's forwarding rules). */
    interface NameFilter {
        boolean accepts(CharSequence lowerCaseName);
    }

    @Override
    public String toString() {
        return "Http2RequestFields(" + new String(bytes, 0, used, java.nio.charset.StandardCharsets.ISO_8859_1) + ")";
    }
}
