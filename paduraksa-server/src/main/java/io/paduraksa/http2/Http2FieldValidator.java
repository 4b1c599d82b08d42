package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;
import io.paduraksa.http1.Http1Bytes;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Field validation at decode time (RFC 9113 sections 8.1, 8.2 and 8.3), run by {@link HpackDecoder}
 * on every field before the sink sees it and once at the end of the block. A block is one of
 * {@link #REQUEST}, {@link #RESPONSE} or {@link #TRAILERS} (or {@link #NONE}: no validation, for the
 * raw HPACK layer). Every violation makes the message malformed: a stream error PROTOCOL_ERROR
 * (section 8.1.1). Rules:
 * <ul>
 *   <li>names: not empty, lower case, tchar only (a colon only as a pseudo-header's first byte);</li>
 *   <li>values: no NUL, CR or LF, no leading or trailing SP or HTAB;</li>
 *   <li>no connection-specific field ({@code connection}, {@code proxy-connection},
 *       {@code keep-alive}, {@code transfer-encoding}, {@code upgrade}), {@code te} only as
 *       {@code trailers};</li>
 *   <li>pseudo-headers: only those of the block's kind, each at most once, all before the first
 *       regular field, none in trailers; a request has {@code :method}, {@code :scheme} and a
 *       non-empty {@code :path}, except CONNECT, which has {@code :authority} and neither
 *       {@code :scheme} nor {@code :path} (section 8.5); {@code :protocol} (RFC 8441) only when
 *       extended CONNECT is enabled, and then only with CONNECT; a response has a three-digit
 *       {@code :status};</li>
 *   <li>{@code host} and {@code :authority}, when both are present, are the same (ASCII case folded).</li>
 * </ul>
 * One per decoder, reset per block; positions of {@code :authority} and {@code host} are kept until
 * the end of the block (the sink contract keeps them valid). Allocates nothing.
 *
 * <p>What a valid field's check proved from its name and value alone ({@link #proven()}) is kept with
 * a dynamic table entry made from it, so that a field indexed from that entry later is not checked
 * again ({@link #field(ByteBuf, int, int, ByteBuf, int, int, int, int)}): a browser sends most of a
 * request as such indices. Whatever depends on the block (pseudo-header order and set, {@code host})
 * is still checked each time.
 */
public final class Http2FieldValidator {
    public static final int NONE = 0;
    public static final int REQUEST = 1;
    public static final int RESPONSE = 2;
    public static final int TRAILERS = 3;

    /** Nothing proven: the field is checked in full. */
    public static final int UNPROVEN = 0;
    /** The value has no NUL, CR or LF and no leading or trailing whitespace. */
    public static final int VALUE_VALID = 1;
    /**
     * The value is valid and the field is a regular one whose check records nothing: a valid lower-case
     * name, not connection-specific, not {@code host}, {@code te} only as {@code trailers}.
     */
    public static final int PLAIN = 2;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final int METHOD = 1;
    private static final int SCHEME = 2;
    private static final int AUTHORITY = 4;
    private static final int PATH = 8;
    private static final int PROTOCOL = 16;
    private static final int STATUS = 32;

    /** 0: allowed in a name; 1: upper case; 2: not a tchar. */
    private static final byte[] NAME_CLASS = new byte[256];
    /** Bytes a value must not contain: NUL, CR, LF. */
    private static final boolean[] VALUE_FORBIDDEN = new boolean[256];

    static {
        for (int c = 0; c < 256; c++) {
            NAME_CLASS[c] = 2;
        }
        for (int c = '0'; c <= '9'; c++) {
            NAME_CLASS[c] = 0;
        }
        for (int c = 'a'; c <= 'z'; c++) {
            NAME_CLASS[c] = 0;
            NAME_CLASS[c - 32] = 1;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            NAME_CLASS[c] = 0;
        }
        VALUE_FORBIDDEN[0] = true;
        VALUE_FORBIDDEN['\r'] = true;
        VALUE_FORBIDDEN['\n'] = true;
    }

    /** Stops at a byte that is not lower-case tchar. */
    private static final ByteProcessor NAME_BYTE_OK = b -> NAME_CLASS[b & 0xFF] == 0;

    private final boolean extendedConnect;
    private int kind;
    private int seen;
    private boolean regularSeen;
    private boolean connect;
    private boolean pathEmpty;
    private ByteBuf authority;
    private int authorityIndex;
    private int authorityLength;
    private ByteBuf host;
    private int hostIndex;
    private int hostLength;
    private int proven;

    /** @param extendedConnect whether we sent SETTINGS_ENABLE_CONNECT_PROTOCOL = 1 (RFC 8441) */
    public Http2FieldValidator(boolean extendedConnect) {
        this.extendedConnect = extendedConnect;
    }

    /** Starts a block of {@code kind}. */
    public void start(int kind) {
        this.kind = kind;
        seen = 0;
        regularSeen = false;
        connect = false;
        pathEmpty = false;
        authority = null;
        host = null;
    }

    public int kind() {
        return kind;
    }

    /** Checks one field; null when it is valid. */
    public Http2Violation field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex,
            int valueLength, int staticIndex) {
        return field(name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex, UNPROVEN);
    }

    /**
     * Checks one field of which {@code known} was proven before ({@link #proven()} of the field that
     * made the dynamic table entry it is indexed from); null when it is valid.
     */
    public Http2Violation field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex,
            int valueLength, int staticIndex, int known) {
        proven = UNPROVEN;
        if (known == PLAIN) {
            regularSeen = true;
            proven = PLAIN;
            return null;
        }
        if (known != VALUE_VALID) {
            Http2Violation v = checkValue(value, valueIndex, valueLength);
            if (v != null) {
                return v;
            }
        }
        if (nameLength > 0 && name.getByte(nameIndex) == ':') {
            Http2Violation v = pseudo(name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex);
            proven = v == null ? VALUE_VALID : UNPROVEN;
            return v;
        }
        regularSeen = true;
        if (staticIndex == 0) {
            Http2Violation v = checkName(name, nameIndex, nameLength);
            if (v != null) {
                return v;
            }
        }
        return regular(name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex);
    }

    /**
     * What the last field that passed {@link #field} proved from its name and value alone:
     * {@link #PLAIN}, {@link #VALUE_VALID} or {@link #UNPROVEN}; meaningless after a violation.
     */
    public int proven() {
        return proven;
    }

    private static Http2Violation checkValue(ByteBuf value, int index, int length) {
        if (length == 0) {
            return null;
        }
        int first = value.getByte(index);
        int last = value.getByte(index + length - 1);
        if (first == ' ' || first == '\t' || last == ' ' || last == '\t') {
            return Http2Violation.FIELD_VALUE_WHITESPACE;
        }
        return hasForbiddenByte(value, index, length) ? Http2Violation.FIELD_VALUE_INVALID : null;
    }

    /** Whether {@code value[index, index + length)} holds NUL, CR or LF; eight bytes a step where none is a CTL. */
    static boolean hasForbiddenByte(ByteBuf value, int index, int length) {
        int i = index;
        int end = index + length;
        if (value.hasArray()) {
            byte[] a = value.array();
            int offset = value.arrayOffset();
            for (; i + 8 <= end; i += 8) {
                if (!Http1Bytes.isPlainFieldValueWord((long) LONGS.get(a, offset + i)) && anyForbidden(a, offset + i, 8)) {
                    return true;
                }
            }
            return anyForbidden(a, offset + i, end - i);
        }
        for (; i + 8 <= end; i += 8) {
            if (!Http1Bytes.isPlainFieldValueWord(value.getLongLE(i)) && anyForbidden(value, i, 8)) {
                return true;
            }
        }
        return anyForbidden(value, i, end - i);
    }

    private static boolean anyForbidden(byte[] a, int from, int length) {
        for (int i = from, end = from + length; i < end; i++) {
            if (VALUE_FORBIDDEN[a[i] & 0xFF]) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyForbidden(ByteBuf b, int from, int length) {
        for (int i = from, end = from + length; i < end; i++) {
            if (VALUE_FORBIDDEN[b.getByte(i) & 0xFF]) {
                return true;
            }
        }
        return false;
    }

    private static Http2Violation checkName(ByteBuf name, int index, int length) {
        if (length == 0) {
            return Http2Violation.FIELD_NAME_EMPTY;
        }
        if (name.forEachByte(index, length, NAME_BYTE_OK) < 0) {
            return null;
        }
        int worst = 0;
        for (int i = index, end = index + length; i < end; i++) {
            worst |= NAME_CLASS[name.getByte(i) & 0xFF];
        }
        return (worst & 2) != 0 ? Http2Violation.FIELD_NAME_INVALID : Http2Violation.FIELD_NAME_UPPER_CASE;
    }

    private Http2Violation regular(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex,
            int valueLength, int staticIndex) {
        if (staticIndex == HpackStaticTable.TRANSFER_ENCODING) {
            return Http2Violation.CONNECTION_SPECIFIC_FIELD;
        }
        if (staticIndex == HpackStaticTable.HOST || staticIndex == 0 && nameIs(name, nameIndex, nameLength, "host")) {
            host = value;
            hostIndex = valueIndex;
            hostLength = valueLength;
            proven = VALUE_VALID;
            return null;
        }
        if (staticIndex != 0) {
            proven = PLAIN;
            return null;
        }
        boolean connectionSpecific = switch (nameLength) {
            case 2 -> nameIs(name, nameIndex, nameLength, "te")
                    && !(valueLength == 8 && equalsIgnoreCase(value, valueIndex, "trailers"));
            case 7 -> nameIs(name, nameIndex, nameLength, "upgrade");
            case 10 -> nameIs(name, nameIndex, nameLength, "connection") || nameIs(name, nameIndex, nameLength, "keep-alive");
            case 16 -> nameIs(name, nameIndex, nameLength, "proxy-connection");
            case 17 -> nameIs(name, nameIndex, nameLength, "transfer-encoding");
            default -> false;
        };
        if (!connectionSpecific) {
            proven = PLAIN;
            return null;
        }
        return nameLength == 2 ? Http2Violation.TE_NOT_TRAILERS : Http2Violation.CONNECTION_SPECIFIC_FIELD;
    }

    private Http2Violation pseudo(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex,
            int valueLength, int staticIndex) {
        if (kind == TRAILERS) {
            return Http2Violation.PSEUDO_IN_TRAILERS;
        }
        if (regularSeen) {
            return Http2Violation.PSEUDO_AFTER_REGULAR;
        }
        int bit = pseudoBit(name, nameIndex, nameLength, staticIndex);
        boolean allowed = kind == RESPONSE ? bit == STATUS
                : bit != 0 && bit != STATUS && (bit != PROTOCOL || extendedConnect);
        if (!allowed) {
            return Http2Violation.PSEUDO_UNKNOWN;
        }
        if ((seen & bit) != 0) {
            return Http2Violation.PSEUDO_DUPLICATE;
        }
        seen |= bit;
        switch (bit) {
            case METHOD -> connect = valueLength == 7 && equalsExact(value, valueIndex, "CONNECT");
            case PATH -> pathEmpty = valueLength == 0;
            case AUTHORITY -> {
                authority = value;
                authorityIndex = valueIndex;
                authorityLength = valueLength;
            }
            case STATUS -> {
                if (!isStatus(value, valueIndex, valueLength)) {
                    return Http2Violation.STATUS_INVALID;
                }
            }
            default -> {
            }
        }
        return null;
    }

    private static int pseudoBit(ByteBuf name, int index, int length, int staticIndex) {
        if (staticIndex != 0) {
            if (staticIndex == HpackStaticTable.AUTHORITY) {
                return AUTHORITY;
            }
            if (staticIndex <= HpackStaticTable.METHOD_POST) {
                return METHOD;
            }
            if (staticIndex <= HpackStaticTable.PATH_INDEX_HTML) {
                return PATH;
            }
            if (staticIndex <= HpackStaticTable.SCHEME_HTTPS) {
                return SCHEME;
            }
            return staticIndex <= HpackStaticTable.STATUS_500 ? STATUS : 0;
        }
        return switch (length) {
            case 5 -> nameIs(name, index, length, ":path") ? PATH : 0;
            case 7 -> nameIs(name, index, length, ":method") ? METHOD
                    : nameIs(name, index, length, ":scheme") ? SCHEME
                    : nameIs(name, index, length, ":status") ? STATUS : 0;
            case 9 -> nameIs(name, index, length, ":protocol") ? PROTOCOL : 0;
            case 10 -> nameIs(name, index, length, ":authority") ? AUTHORITY : 0;
            default -> 0;
        };
    }

    /** Checks what needs the whole block; null when the block is valid. */
    public Http2Violation end() {
        if (kind == REQUEST) {
            return endRequest();
        }
        if (kind == RESPONSE && (seen & STATUS) == 0) {
            return Http2Violation.PSEUDO_MISSING;
        }
        return null;
    }

    private Http2Violation endRequest() {
        if ((seen & METHOD) == 0) {
            return Http2Violation.PSEUDO_MISSING;
        }
        if ((seen & PROTOCOL) != 0 && !connect) {
            return Http2Violation.PSEUDO_UNKNOWN;
        }
        if (connect && (seen & PROTOCOL) == 0) {
            if ((seen & (SCHEME | PATH)) != 0) {
                return Http2Violation.CONNECT_WITH_SCHEME_OR_PATH;
            }
            if ((seen & AUTHORITY) == 0) {
                return Http2Violation.PSEUDO_MISSING;
            }
        } else {
            if ((seen & (SCHEME | PATH)) != (SCHEME | PATH)) {
                return Http2Violation.PSEUDO_MISSING;
            }
            if (pathEmpty) {
                return Http2Violation.PATH_EMPTY;
            }
        }
        if (authority != null && host != null && !sameHost()) {
            return Http2Violation.AUTHORITY_HOST_MISMATCH;
        }
        return null;
    }

    private boolean sameHost() {
        if (authorityLength != hostLength) {
            return false;
        }
        for (int i = 0; i < hostLength; i++) {
            int a = authority.getByte(authorityIndex + i);
            int h = host.getByte(hostIndex + i);
            if (a != h && (toLower(a) != toLower(h))) {
                return false;
            }
        }
        return true;
    }

    private static int toLower(int b) {
        return b >= 'A' && b <= 'Z' ? b + 32 : b;
    }

    private static boolean isStatus(ByteBuf value, int index, int length) {
        if (length != 3) {
            return false;
        }
        for (int i = index; i < index + 3; i++) {
            int b = value.getByte(i);
            if (b < '0' || b > '9') {
                return false;
            }
        }
        return true;
    }

    /** Exact comparison with a lower-case constant (HTTP/2 names are lower case on the wire). */
    private static boolean nameIs(ByteBuf name, int index, int length, String constant) {
        return length == constant.length() && equalsExact(name, index, constant);
    }

    private static boolean equalsExact(ByteBuf buf, int index, String constant) {
        for (int i = 0; i < constant.length(); i++) {
            if (buf.getByte(index + i) != constant.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean equalsIgnoreCase(ByteBuf buf, int index, String lowerCase) {
        for (int i = 0; i < lowerCase.length(); i++) {
            if (toLower(buf.getByte(index + i)) != lowerCase.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
