package io.paduraksa.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/** Byte classes of RFC 9110/9112 and in-place comparisons; tables are built once at class load. */
public final class Http1Bytes {
    public static final byte CR = '\r';
    public static final byte LF = '\n';
    public static final byte SP = ' ';
    public static final byte HTAB = '\t';
    public static final byte NUL = 0;

    /** {@code "HTTP/1.1"} read as a big-endian long ({@link ByteBuf#getLong}). */
    public static final long HTTP_1_1_AS_LONG = 0x485454502F312E31L;
    /** {@code "HTTP/1.0"} read as a big-endian long. */
    public static final long HTTP_1_0_AS_LONG = 0x485454502F312E30L;

    /** tchar (RFC 9110 section 5.6.2): the bytes of methods and field names. */
    private static final boolean[] TOKEN = new boolean[256];
    /** field-vchar, SP and HTAB (RFC 9110 section 5.5), obs-text included; no other CTL. */
    private static final boolean[] FIELD_VALUE = new boolean[256];
    /** Bytes of a request-target: visible US-ASCII only (RFC 3986 characters; no obs-text, SP or CTL). */
    private static final boolean[] TARGET = new boolean[256];
    /** scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 section 3.1), after the first byte. */
    private static final boolean[] SCHEME = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) {
            TOKEN[c] = true;
            SCHEME[c] = true;
        }
        for (int c = 'a'; c <= 'z'; c++) {
            TOKEN[c] = true;
            TOKEN[c - 32] = true;
            SCHEME[c] = true;
            SCHEME[c - 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN[c] = true;
        }
        SCHEME['+'] = true;
        SCHEME['-'] = true;
        SCHEME['.'] = true;
        for (int c = 0x21; c <= 0x7E; c++) {
            FIELD_VALUE[c] = true;
            TARGET[c] = true;
        }
        for (int c = 0x80; c <= 0xFF; c++) {
            FIELD_VALUE[c] = true;
        }
        FIELD_VALUE[SP] = true;
        FIELD_VALUE[HTAB] = true;
    }

    private Http1Bytes() {
    }

    public static boolean isToken(int b) {
        return TOKEN[b & 0xFF];
    }

    public static boolean isFieldValue(int b) {
        return FIELD_VALUE[b & 0xFF];
    }

    /**
     * True when none of the eight bytes of {@code word} is below 0x20 (HTAB included) or DEL (0x7F):
     * each is then a field-value byte ({@link #isFieldValue}: VCHAR, SP or obs-text). False says only
     * that one byte needs the exact check, which a tab passes. Exact for "any such byte": a borrow
     * in the subtraction starts only at a byte that is itself below the bound.
     */
    public static boolean isPlainFieldValueWord(long word) {
        long below = (word - 0x2020202020202020L) & ~word & 0x8080808080808080L;
        long y = word ^ 0x7F7F7F7F7F7F7F7FL;
        long del = (y - 0x0101010101010101L) & ~y & 0x8080808080808080L;
        return (below | del) == 0;
    }

    public static boolean isTarget(int b) {
        return TARGET[b & 0xFF];
    }

    public static boolean isScheme(int b) {
        return SCHEME[b & 0xFF];
    }

    public static boolean isAlpha(int b) {
        int lower = b | 0x20;
        return lower >= 'a' && lower <= 'z';
    }

    public static boolean isDigit(int b) {
        return b >= '0' && b <= '9';
    }

    /** Value of a HEXDIG (either case), or -1. */
    public static int hexValue(int b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        int lower = b | 0x20;
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    /**
     * Whether {@code in[p, end)} (already known to hold field bytes only) is a chunk-ext of RFC 9112
     * section 7.1.1: {@code *( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] )}. Both
     * decoders skip extensions, but one that a parser could end elsewhere (an unterminated quoted
     * string, a stray byte) is refused, as Netty's decoder does, so that no parser behind us reads
     * the chunk line differently. obs-text is refused too (RFC 9110 section 5.6.4 allows it in a
     * quoted string, but Netty refuses it and no client sends it).
     */
    public static boolean isChunkExtension(ByteBuf in, int p, int end) {
        while (p < end) {
            p = skipBws(in, p, end);
            if (p == end || in.getByte(p) != ';') {
                return false;
            }
            p = skipBws(in, p + 1, end);
            int name = p;
            while (p < end && isToken(in.getByte(p))) {
                p++;
            }
            if (p == name) {
                return false;
            }
            int afterName = p;
            p = skipBws(in, p, end);
            if (p == end || in.getByte(p) != '=') {
                p = afterName;
                continue;
            }
            p = skipBws(in, p + 1, end);
            p = p < end && in.getByte(p) == '"' ? quotedStringEnd(in, p + 1, end) : tokenEnd(in, p, end);
            if (p < 0) {
                return false;
            }
        }
        return true;
    }

    private static int skipBws(ByteBuf in, int p, int end) {
        while (p < end && isOws(in.getByte(p))) {
            p++;
        }
        return p;
    }

    /** End of a non-empty token from {@code p}, or -1. */
    private static int tokenEnd(ByteBuf in, int p, int end) {
        int start = p;
        while (p < end && isToken(in.getByte(p))) {
            p++;
        }
        return p == start ? -1 : p;
    }

    /** After the opening quote: the index after the closing quote (quoted-pair honoured), or -1. */
    private static int quotedStringEnd(ByteBuf in, int p, int end) {
        while (p < end) {
            int b = in.getByte(p) & 0xFF;
            if (b == '"') {
                return p + 1;
            }
            if (b == '\\') {
                p++; // quoted-pair: the escaped byte is checked like qdtext (no obs-text)
                if (p == end) {
                    return -1;
                }
                b = in.getByte(p) & 0xFF;
            }
            if (b >= 0x80) {
                return -1;
            }
            p++;
        }
        return -1;
    }

    public static boolean isOws(int b) {
        return b == SP || b == HTAB;
    }

    /** ASCII lower case of one byte; letters only, every other byte unchanged. */
    public static int toLower(int b) {
        return b >= 'A' && b <= 'Z' ? b | 0x20 : b;
    }

    /** {@code buf[from, from + lowerCase.length())} equals {@code lowerCase}, folding ASCII letters of the buffer. */
    public static boolean equalsLowerCase(ByteBuf buf, int from, AsciiString lowerCase) {
        int n = lowerCase.length();
        byte[] expected = lowerCase.array();
        int offset = lowerCase.arrayOffset();
        for (int i = 0; i < n; i++) {
            if (toLower(buf.getByte(from + i) & 0xFF) != expected[offset + i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code buf[from, to)} equals {@code lowerCase} ignoring ASCII case. */
    public static boolean rangeEqualsLowerCase(ByteBuf buf, int from, int to, AsciiString lowerCase) {
        return to - from == lowerCase.length() && equalsLowerCase(buf, from, lowerCase);
    }

    /** {@code buf[from, from + other.length())} equals {@code other} byte for byte. */
    public static boolean equalsExact(ByteBuf buf, int from, AsciiString other) {
        int n = other.length();
        byte[] expected = other.array();
        int offset = other.arrayOffset();
        for (int i = 0; i < n; i++) {
            if (buf.getByte(from + i) != expected[offset + i]) {
                return false;
            }
        }
        return true;
    }

    // ---- OWS and comma-separated lists (RFC 9110 sections 5.6.1, 5.6.3)

    /** The first index in {@code [from, to)} that is not SP or HTAB, or {@code to}. */
    public static int skipOws(ByteBuf in, int from, int to) {
        while (from < to && isOws(in.getByte(from))) {
            from++;
        }
        return from;
    }

    /** {@code to} moved back over trailing SP and HTAB, not before {@code from}. */
    public static int trimOws(ByteBuf in, int from, int to) {
        while (to > from && isOws(in.getByte(to - 1))) {
            to--;
        }
        return to;
    }

    /** Whether every byte of {@code in[from, to)} is a tchar. */
    public static boolean isToken(ByteBuf in, int from, int to) {
        for (int p = from; p < to; p++) {
            if (!isToken(in.getByte(p))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the comma-separated list {@code in[from, to)} (RFC 9110 section 5.6.1) has an element
     * equal to {@code name}, ASCII case ignored on both sides; empty elements are skipped.
     */
    public static boolean listContains(ByteBuf in, int from, int to, CharSequence name) {
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

    /**
     * For the comma-separated list in {@code in[from, to)}: bit {@code min(length, 63)} set for the
     * length of every element, OWS trimmed as {@link #listContains} trims it (empty elements set bit 0).
     */
    public static long listElementLengths(ByteBuf in, int from, int to) {
        long lengths = 0;
        int p = from;
        while (p < to) {
            int comma = in.indexOf(p, to, (byte) ',');
            int elementEnd = comma < 0 ? to : comma;
            int s = skipOws(in, p, elementEnd);
            lengths |= 1L << Math.min(trimOws(in, s, elementEnd) - s, 63);
            p = elementEnd + 1;
        }
        return lengths;
    }

    /** {@code buf[from, to)} equals {@code s} ignoring ASCII case on both sides. */
    public static boolean rangeEqualsIgnoreCase(ByteBuf buf, int from, int to, CharSequence s) {
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
}
