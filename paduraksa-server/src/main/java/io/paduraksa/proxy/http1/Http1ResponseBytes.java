package io.paduraksa.proxy.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/**
 * Byte classes of RFC 9110/9112 and in-place comparisons for response heads. A small copy of what
 * {@code server.http1} keeps package-private, so that the response side does not widen the request
 * decoder's API; tables are built once at class load.
 */
final class Http1ResponseBytes {
    static final byte CR = '\r';
    static final byte LF = '\n';
    static final byte SP = ' ';
    static final byte HTAB = '\t';
    static final byte NUL = 0;

    /** {@code "HTTP/1.1"} read as a big-endian long ({@link ByteBuf#getLong}). */
    static final long HTTP_1_1_AS_LONG = 0x485454502F312E31L;
    /** {@code "HTTP/1.0"} read as a big-endian long. */
    static final long HTTP_1_0_AS_LONG = 0x485454502F312E30L;
    /** {@code "HTTP/1."}: the first seven bytes every accepted status line starts with. */
    private static final byte[] HTTP_1_PREFIX = {'H', 'T', 'T', 'P', '/', '1', '.'};

    /** tchar (RFC 9110 section 5.6.2): the bytes of field names and transfer codings. */
    private static final boolean[] TOKEN = new boolean[256];
    /** field-vchar, SP and HTAB (RFC 9110 section 5.5), obs-text included; no other CTL. Also reason-phrase bytes (RFC 9112 section 4). */
    private static final boolean[] FIELD_VALUE = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) {
            TOKEN[c] = true;
        }
        for (int c = 'a'; c <= 'z'; c++) {
            TOKEN[c] = true;
            TOKEN[c - 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN[c] = true;
        }
        for (int c = 0x21; c <= 0x7E; c++) {
            FIELD_VALUE[c] = true;
        }
        for (int c = 0x80; c <= 0xFF; c++) {
            FIELD_VALUE[c] = true;
        }
        FIELD_VALUE[SP] = true;
        FIELD_VALUE[HTAB] = true;
    }

    private Http1ResponseBytes() {
    }

    static boolean isToken(int b) {
        return TOKEN[b & 0xFF];
    }

    static boolean isFieldValue(int b) {
        return FIELD_VALUE[b & 0xFF];
    }

    static boolean isDigit(int b) {
        return b >= '0' && b <= '9';
    }

    static boolean isOws(int b) {
        return b == SP || b == HTAB;
    }

    /** Value of a HEXDIG (either case), or -1. */
    static int hexValue(int b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        int lower = b | 0x20;
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    /** ASCII lower case of one byte or char; letters only, everything else unchanged. */
    static int toLower(int b) {
        return b >= 'A' && b <= 'Z' ? b | 0x20 : b;
    }

    /**
     * Whether the first {@code min(readable, 8)} bytes from {@code from} can start
     * {@code HTTP/1.0} or {@code HTTP/1.1}: lets the decoder refuse garbage at its first byte.
     */
    static boolean isVersionPrefix(ByteBuf in, int from, int readable) {
        int n = Math.min(readable, 8);
        for (int i = 0; i < n; i++) {
            int b = in.getByte(from + i);
            if (i < 7 ? b != HTTP_1_PREFIX[i] : b != '0' && b != '1') {
                return false;
            }
        }
        return true;
    }

    /** {@code buf[from, to)} equals {@code lowerCase} ignoring ASCII case; {@code lowerCase} must be lower case. */
    static boolean rangeEqualsLowerCase(ByteBuf buf, int from, int to, AsciiString lowerCase) {
        int n = lowerCase.length();
        if (to - from != n) {
            return false;
        }
        byte[] expected = lowerCase.array();
        int offset = lowerCase.arrayOffset();
        for (int i = 0; i < n; i++) {
            if (toLower(buf.getByte(from + i) & 0xFF) != expected[offset + i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code buf[from, to)} equals {@code s} ignoring ASCII case on both sides. */
    static boolean rangeEqualsIgnoreCase(ByteBuf buf, int from, int to, CharSequence s) {
        int n = s.length();
        if (to - from != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (toLower(buf.getByte(from + i) & 0xFF) != toLower(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static int skipOws(ByteBuf in, int from, int to) {
        while (from < to && isOws(in.getByte(from))) {
            from++;
        }
        return from;
    }

    static int trimOws(ByteBuf in, int from, int to) {
        while (to > from && isOws(in.getByte(to - 1))) {
            to--;
        }
        return to;
    }

    /**
     * Whether the comma-separated list {@code in[from, to)} (RFC 9110 section 5.6.1) has an element
     * equal to {@code name}, ASCII case ignored; empty elements are skipped.
     */
    static boolean listContains(ByteBuf in, int from, int to, CharSequence name) {
        int p = from;
        while (p < to) {
            int comma = in.indexOf(p, to, (byte) ',');
            int elementEnd = comma < 0 ? to : comma;
            int s = skipOws(in, p, elementEnd);
            if (rangeEqualsIgnoreCase(in, s, trimOws(in, s, elementEnd), name)) {
                return true;
            }
            p = elementEnd + 1;
        }
        return false;
    }
}
