package io.paduraksa.policy.attack;

import java.nio.charset.StandardCharsets;

/**
 * The transformations CRS applies before matching, done in place on a scratch buffer: each one
 * writes at or before the position it reads, so the value only shrinks. All static, 0 B.
 */
final class Transform {
    /** {@link #classify} bits: which transformations a value needs. */
    static final int PERCENT = 1;
    static final int PLUS = 2;
    static final int AMP = 4;
    static final int STAR = 8;
    static final int SPACE = 16;
    static final int UPPER = 32;
    /** {@code \ " ' ^ , ;}: what {@link #cmdLine} drops or turns into a space. */
    static final int CMD = 64;
    /** A byte 0xEF: the value may hold UTF-8 full-width forms (U+FF01..U+FF5E), which {@link #foldFullWidth} turns into ASCII. */
    static final int WIDE = 128;
    private static final byte[] FLAGS = new byte[256];
    /** A full-width form minus this is its ASCII character (U+FF01 is {@code !}, 0x21). */
    private static final int FULL_WIDTH_OFFSET = 0xFF01 - 0x21;

    static {
        for (int c = 0; c < 256; c++) {
            int f = c == '%' ? PERCENT : c == '+' ? PLUS : c == '&' ? AMP : c == '*' ? STAR : 0;
            f |= isSpaceChar(c) ? SPACE : 0;
            f |= c >= 'A' && c <= 'Z' ? UPPER : 0;
            f |= c == '\\' || c == '"' || c == '\'' || c == '^' || c == ',' || c == ';' ? CMD : 0;
            f |= c == 0xEF ? WIDE : 0;
            FLAGS[c] = (byte) f;
        }
    }

    private Transform() {
    }

    /**
     * One pass that says which transformations can change {@code b[from, to)}: without {@code %}
     * nothing is percent-decoded, without {@code &} no entity decoded, without {@code *} no comment
     * removed, without whitespace nothing compressed (and {@link #cmdLine} only lower-cases without
     * whitespace and {@link #CMD} characters). Most browser values need lower-casing at most.
     */
    static int classify(byte[] b, int from, int to) {
        int f = 0;
        for (int i = from; i < to; i++) {
            f |= FLAGS[b[i] & 0xFF];
        }
        return f & 0xFF; // WIDE is the byte's sign bit
    }

    /** {@code +} to a space, the only change {@link #percentDecode} makes to a value without {@code %}. */
    static void plusToSpace(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == '+') {
                b[i] = ' ';
            }
        }
    }

    /** Percent-decoding ({@code %XX}); with {@code plusIsSpace} (query) {@code +} becomes a space. Returns the new end. */
    static int percentDecode(byte[] b, int from, int to, boolean plusIsSpace) {
        int w = from;
        for (int r = from; r < to; r++) {
            int c = b[r];
            if (c == '%' && r + 2 < to && hex(b[r + 1]) >= 0 && hex(b[r + 2]) >= 0) {
                b[w++] = (byte) (hex(b[r + 1]) << 4 | hex(b[r + 2]));
                r += 2;
            } else {
                b[w++] = plusIsSpace && c == '+' ? (byte) ' ' : (byte) c;
            }
        }
        return w;
    }

    /**
     * CRS's {@code urlDecodeUni}: {@code %XX}, and {@code %uHHHH} where full-width ASCII
     * (U+FF01..U+FF5E) maps to ASCII and other code points keep their low byte.
     */
    static int urlDecodeUni(byte[] b, int from, int to) {
        int w = from;
        for (int r = from; r < to; r++) {
            int c = b[r];
            if (c == '%' && r + 5 < to && (b[r + 1] | 0x20) == 'u' && hex4(b, r + 2) >= 0) {
                int u = hex4(b, r + 2);
                b[w++] = (byte) (isFullWidth(u) ? u - FULL_WIDTH_OFFSET : u);
                r += 5;
            } else if (c == '%' && r + 2 < to && hex(b[r + 1]) >= 0 && hex(b[r + 2]) >= 0) {
                b[w++] = (byte) (hex(b[r + 1]) << 4 | hex(b[r + 2]));
                r += 2;
            } else {
                b[w++] = (byte) c;
            }
        }
        return w;
    }

    /**
     * UTF-8 full-width forms (U+FF01..U+FF5E, {@code EF BC 81} to {@code EF BD 9E}) to the ASCII they
     * stand for: {@code ＜script＞} is {@code <script>}, as CRS's XSS rules read it ({@code utf8toUnicode}
     * then {@code urlDecodeUni}) and as a back end that normalises Unicode (NFKC) receives it.
     * Returns the new end.
     */
    static int foldFullWidth(byte[] b, int from, int to) {
        int w = from;
        for (int r = from; r < to; r++) {
            int c = b[r];
            if (c == (byte) 0xEF && r + 2 < to && (b[r + 1] & 0xC0) == 0x80 && (b[r + 2] & 0xC0) == 0x80) {
                int u = 0xF000 | (b[r + 1] & 0x3F) << 6 | b[r + 2] & 0x3F;
                if (isFullWidth(u)) {
                    b[w++] = (byte) (u - FULL_WIDTH_OFFSET);
                    r += 2;
                    continue;
                }
            }
            b[w++] = (byte) c;
        }
        return w;
    }

    /** U+FF01..U+FF5E, the full-width forms of {@code !} to {@code ~}. */
    private static boolean isFullWidth(int u) {
        return u >= 0xFF01 && u <= 0xFF5E;
    }

    /**
     * HTML character references: {@code &#NN;}, {@code &#xHH;} (the {@code ;} optional, as browsers
     * accept) and the named ones attacks use ({@code lt gt amp quot apos colon lpar rpar sol bsol
     * tab newline}). A code point above 255 keeps its low byte.
     */
    static int htmlEntityDecode(byte[] b, int from, int to) {
        int w = from;
        for (int r = from; r < to; r++) {
            int c = b[r];
            if (c != '&' || r + 2 >= to) {
                b[w++] = (byte) c;
                continue;
            }
            int end = b[r + 1] == '#' ? numericEntityEnd(b, r + 2, to) : namedEntityEnd(b, r + 1, to);
            if (end < 0) {
                b[w++] = (byte) c;
                continue;
            }
            b[w++] = (byte) entityValue(b, r + 1, end);
            r = end < to && b[end] == ';' ? end : end - 1;
        }
        return w;
    }

    /** ASCII letters to lower case. */
    static void lowerCase(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            int c = b[i];
            if (c >= 'A' && c <= 'Z') {
                b[i] = (byte) (c | 0x20);
            }
        }
    }

    /**
     * C-style comments become one space ({@code un/&#42;*&#47;ion} cannot split a keyword); an
     * unterminated one runs to the end. MySQL's executable comments ({@code /*!50000 union*&#47;})
     * keep their content, as MySQL runs it.
     */
    static int removeComments(byte[] b, int from, int to) {
        int w = from;
        for (int r = from; r < to; r++) {
            if (b[r] == '/' && r + 1 < to && b[r + 1] == '*') {
                r += 2;
                if (r < to && b[r] == '!') {
                    r++;
                    while (r < to && b[r] >= '0' && b[r] <= '9') {
                        r++;
                    }
                    r--;
                    continue;
                }
                while (r + 1 < to && !(b[r] == '*' && b[r + 1] == '/')) {
                    r++;
                }
                r = r + 1 < to ? r + 1 : to;
                b[w++] = ' ';
            } else if (b[r] == '*' && r + 1 < to && b[r + 1] == '/') {
                r++;
                b[w++] = ' ';
            } else {
                b[w++] = b[r];
            }
        }
        return w;
    }

    /** Runs of whitespace become one space, or one {@code \n} when the run holds CR or LF (kept for 921). */
    static int compressWhitespace(byte[] b, int from, int to) {
        int r = from;
        // Most values hold single spaces at most: nothing moves until the first run or other whitespace.
        for (; r < to; r++) {
            int c = b[r] & 0xFF;
            if (isSpace(c) && (c != ' ' || r + 1 < to && isSpace(b[r + 1] & 0xFF))) {
                break;
            }
        }
        int w = r;
        for (; r < to; r++) {
            int c = b[r] & 0xFF;
            if (!isSpace(c)) {
                b[w++] = (byte) c;
                continue;
            }
            boolean newline = false;
            while (r < to && isSpace(b[r] & 0xFF)) {
                newline |= b[r] == '\n' || b[r] == '\r';
                r++;
            }
            r--;
            b[w++] = newline ? (byte) '\n' : (byte) ' ';
        }
        return w;
    }

    /** Path normalisation: {@code \} to {@code /}, {@code //} and {@code /./} to {@code /} ({@code ..} is kept: rules look for it). */
    static int normalizePath(byte[] b, int from, int to) {
        int w = from;
        for (int r = from; r < to; r++) {
            byte c = b[r] == '\\' ? (byte) '/' : b[r];
            if (c == '/' && w > from && b[w - 1] == '/') {
                continue;
            }
            if (c == '.' && w > from && b[w - 1] == '/' && (r + 1 == to || b[r + 1] == '/' || b[r + 1] == '\\')) {
                r++;
                continue;
            }
            b[w++] = c;
        }
        return w;
    }

    /**
     * CRS's {@code t:cmdLine}, for the command-injection rules: drops {@code \ " ' ^}, turns
     * {@code ,} and {@code ;} into spaces, compresses whitespace to one space, drops a space before
     * {@code /} or {@code (} and lower-cases, so {@code w'h'o^am\i}, {@code for /f} and
     * {@code in (x)} read {@code whoami}, {@code for/f} and {@code in(x)}.
     */
    static int cmdLine(byte[] b, int from, int to) {
        int w = from;
        boolean space = false;
        for (int r = from; r < to; r++) {
            int c = b[r] & 0xFF;
            if (c == '\\' || c == '"' || c == '\'' || c == '^') {
                continue;
            }
            if (isSpace(c) || c == ',' || c == ';') {
                if (!space) {
                    b[w++] = ' ';
                    space = true;
                }
                continue;
            }
            if ((c == '/' || c == '(') && space) {
                w--;
            }
            space = false;
            b[w++] = (byte) (c >= 'A' && c <= 'Z' ? c | 0x20 : c);
        }
        return w;
    }

    private static boolean isSpace(int c) {
        return (FLAGS[c] & SPACE) != 0;
    }

    private static boolean isSpaceChar(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0xA0;
    }

    /** The value of hex digit {@code c} (either case), or -1. */
    static int hex(int c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        int l = c | 0x20;
        return l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
    }

    private static int hex4(byte[] b, int at) {
        int v = 0;
        for (int i = at; i < at + 4; i++) {
            int h = hex(b[i]);
            if (h < 0) {
                return -1;
            }
            v = v << 4 | h;
        }
        return v;
    }

    /** End (exclusive) of the digits of {@code &#...}, or -1. */
    private static int numericEntityEnd(byte[] b, int at, int to) {
        boolean isHex = at < to && (b[at] | 0x20) == 'x';
        int i = isHex ? at + 1 : at;
        int start = i;
        while (i < to && i - start < 8 && (isHex ? hex(b[i]) >= 0 : b[i] >= '0' && b[i] <= '9')) {
            i++;
        }
        return i == start ? -1 : i;
    }

    private static final byte[][] NAMES = {
        bytes("lt"), bytes("gt"), bytes("amp"), bytes("quot"), bytes("apos"), bytes("colon"), bytes("lpar"), bytes("rpar"),
        bytes("sol"), bytes("bsol"), bytes("tab"), bytes("newline"), bytes("nbsp")};
    private static final byte[] VALUES = {'<', '>', '&', '"', '\'', ':', '(', ')', '/', '\\', '\t', '\n', ' '};

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** End of a known entity name at {@code at} (case-insensitive), or -1. */
    private static int namedEntityEnd(byte[] b, int at, int to) {
        for (byte[] name : NAMES) {
            if (at + name.length <= to && equalsFolded(b, at, name)) {
                return at + name.length;
            }
        }
        return -1;
    }

    private static boolean equalsFolded(byte[] b, int at, byte[] name) {
        for (int i = 0; i < name.length; i++) {
            if ((b[at + i] | 0x20) != name[i]) {
                return false;
            }
        }
        return true;
    }

    /** The value of the entity whose body is {@code [at, end)} ({@code #...} or a name). */
    private static int entityValue(byte[] b, int at, int end) {
        if (b[at] != '#') {
            for (int k = 0; k < NAMES.length; k++) {
                if (at + NAMES[k].length == end && equalsFolded(b, at, NAMES[k])) {
                    return VALUES[k];
                }
            }
            return '&';
        }
        boolean isHex = (b[at + 1] | 0x20) == 'x';
        int v = 0;
        for (int i = isHex ? at + 2 : at + 1; i < end; i++) {
            v = isHex ? v << 4 | hex(b[i]) : v * 10 + b[i] - '0';
        }
        return v & 0xFF;
    }
}
