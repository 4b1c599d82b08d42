package io.paduraksa.route;

import io.netty.util.AsciiString;
import io.paduraksa.text.AsciiText;

/**
 * Normalises the path of an origin-form request-target into bytes, once per request: the path
 * that routes and policies match is the path the upstream receives, so a check cannot be
 * bypassed by a spelling the upstream reads differently.
 *
 * <p>Per request: {@link #pathEnd} and {@link #normalize} run on the event loop, read the target
 * with {@code charAt} (an {@link AsciiString} from its array) and write into a caller-owned buffer;
 * they allocate nothing and report a rejection as a negative code, never an exception. A path that
 * is already normal (most are) is proven so in one pass and copied unchanged; any other goes through
 * the full pass described below. {@link #options} runs at compile time.
 *
 * <p>What {@link #normalize} does, left to right, stopping at the first problem:
 * <ul>
 *   <li>the path must start with a raw {@code /} (origin-form, RFC 9112 section 3.2.1);</li>
 *   <li>escapes of unreserved characters (ALPHA DIGIT {@code - . _ ~}) are decoded, other escapes
 *       are kept with upper-case hex digits (the equivalences of RFC 3986 section 6.2.2);</li>
 *   <li>{@code %2F} and backslashes (raw or {@code %5C}) follow the options (the file's {@code normalize} section);
 *       so do segment parameters: a {@code ;} (raw or {@code %3B}) and what follows it up to the
 *       segment's end are removed by default ({@code strip}, as servlet containers do before routing),
 *       rejected ({@code reject}) or kept as bytes of the segment ({@code keep}); removed
 *       parameters are still checked byte by byte like the rest of the path, and a segment is judged
 *       a dot segment after its parameters are gone ({@code /a/..;x/b} is {@code /b}, as in Tomcat);</li>
 *   <li>{@code %00}, raw control and non-ASCII bytes, {@code #} and {@code ?} are rejected;</li>
 *   <li>repeated slashes are merged, {@code .} and {@code ..} segments are removed (RFC 3986
 *       section 5.2.4), also those spelled with escapes, and a {@code ..} above the root is
 *       rejected rather than clamped;</li>
 *   <li>a trailing slash, or a last segment of {@code .} or {@code ..}, leaves a trailing slash.</li>
 * </ul>
 * Other printable characters outside RFC 3986's {@code pchar} ({@code " < > [ ] ^ ` { | }}) pass
 * unchanged, as they do through common servers; raw bytes are never re-encoded except a kept
 * backslash, which becomes {@code %5C}.
 */
public final class PathNormalizer {

    /** The path is empty or does not start with {@code /} (absolute-form or asterisk-form are resolved earlier). */
    public static final int REJECT_NOT_ORIGIN_FORM = -1;
    /** A {@code %} not followed by two hex digits. */
    public static final int REJECT_BAD_ESCAPE = -2;
    /** {@code %2F} while encoded slashes are rejected. */
    public static final int REJECT_ENCODED_SLASH = -3;
    /** A raw backslash or {@code %5C} while backslashes are rejected. */
    public static final int REJECT_BACKSLASH = -4;
    /** A raw NUL or {@code %00} (always rejected). */
    public static final int REJECT_NUL = -5;
    /** A raw control byte (0x01-0x20, 0x7F) or a byte above 0x7E. */
    public static final int REJECT_CONTROL_OR_NON_ASCII = -6;
    /** A {@code ..} segment that would climb above the root. */
    public static final int REJECT_ABOVE_ROOT = -7;
    /** The normalised path does not fit the output buffer. */
    public static final int REJECT_TOO_LONG = -8;
    /** A raw {@code #} or {@code ?} inside the path: a request-target carries no fragment (RFC 9112 section 3.2). */
    public static final int REJECT_FRAGMENT_OR_QUERY = -9;
    /** A {@code ;} (raw or {@code %3B}) while segment parameters are rejected. */
    public static final int REJECT_PATH_PARAMETER = -10;

    /** Option bit: {@code %2F} becomes {@code /} (a segment boundary). */
    public static final int ENCODED_SLASH_DECODE = 1;
    /** Option bit: {@code %2F} stays {@code %2F} (never a segment boundary). */
    public static final int ENCODED_SLASH_KEEP = 2;
    /** Option bit: a backslash (raw or {@code %5C}) becomes {@code /}. */
    public static final int BACKSLASH_DECODE = 4;
    /** Option bit: a backslash (raw or {@code %5C}) becomes {@code %5C} (never a segment boundary). */
    public static final int BACKSLASH_KEEP = 8;
    /** Option bit: a {@code ;} (raw or {@code %3B}) is rejected. */
    public static final int PATH_PARAMETERS_REJECT = 16;
    /** Option bit: a {@code ;} stays in its segment ({@code %3B} stays {@code %3B}); unsafe before servlet backends. */
    public static final int PATH_PARAMETERS_KEEP = 32;
    /**
     * The file's default ({@code normalize} left out): encoded slash and backslash rejected, segment parameters
     * stripped (neither {@link #PATH_PARAMETERS_REJECT} nor {@link #PATH_PARAMETERS_KEEP}).
     */
    public static final int DEFAULT_OPTIONS = 0;

    // Raw character classes.
    private static final byte C_PLAIN = 0;
    private static final byte C_SLASH = 1;
    private static final byte C_PERCENT = 2;
    private static final byte C_BACKSLASH = 3;
    private static final byte C_CONTROL = 4;
    private static final byte C_NUL = 5;
    private static final byte C_FRAGMENT_OR_QUERY = 6;
    private static final byte C_SEMICOLON = 7;
    private static final byte[] CHAR_CLASS = charClasses();

    // Classes of a decoded escape's value.
    private static final byte D_KEEP = 0;
    private static final byte D_DECODE = 1;
    private static final byte D_SLASH = 2;
    private static final byte D_BACKSLASH = 3;
    private static final byte D_NUL = 4;
    private static final byte D_SEMICOLON = 5;
    private static final byte[] ESCAPE_CLASS = escapeClasses();

    private static final byte[] HEX_VALUE = hexValues();
    private static final byte[] HEX_UPPER = {
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'
    };

    // What to do with one input unit, as a non-negative int: action in bits 8-9, byte in bits 0-7.
    private static final int ACT_WRITE = 0;
    private static final int ACT_KEEP_ESCAPE = 1 << 8;
    private static final int ACT_BOUNDARY = 2 << 8;
    private static final int ACT_PARAMETERS = 3 << 8;

    private PathNormalizer() {
    }

    /** Where the path ends in {@code target[from, to)}: the index of the first {@code ?}, or {@code to}. 0 B. */
    public static int pathEnd(CharSequence target, int from, int to) {
        if (target instanceof AsciiString a) {
            byte[] bytes = a.array();
            int base = a.arrayOffset();
            for (int i = from; i < to; i++) {
                if (bytes[base + i] == '?') {
                    return i;
                }
            }
            return to;
        }
        for (int i = from; i < to; i++) {
            if (target.charAt(i) == '?') {
                return i;
            }
        }
        return to;
    }

    /**
     * {@link #pathEnd} and the fast path of {@link #normalize} in one pass over a whole request target:
     * when the path (up to the first {@code ?}) is already normal and fits {@code out}, it is copied
     * there from index 0 and its length, which is also where the path ends, is returned; otherwise -1,
     * and the caller runs {@code pathEnd} and {@code normalize} (which then give the answer they always
     * did). An {@link AsciiString} (the HTTP/3 view, the benchmarks, {@code explain}) is read in its array;
     * a request view ({@link AsciiText}: HTTP/1.1, HTTP/2) whose whole target fits {@code out} is copied
     * into {@code out} in bulk and read there in place (so {@code out} holds the target, not a path, when
     * this returns -1); any other sequence, or a longer target, returns -1. The gate calls this first: a
     * normal path with a query is then read once, not twice. 0 B.
     */
    public static int copyIfNormalPath(CharSequence target, byte[] out) {
        if (target instanceof AsciiString a) {
            int base = a.arrayOffset();
            return copyIfNormalPath(a.array(), base, base + a.length(), out);
        }
        int n = target.length();
        if (target instanceof AsciiText t && n <= out.length) {
            t.copyTo(0, out, 0, n);
            return copyIfNormalPath(out, 0, n, out);
        }
        return -1;
    }

    /**
     * {@link #copyIfNormal(byte[], int, int, byte[])} that also ends the path at the first {@code ?}; {@code a}
     * may be {@code out} itself, from index 0 (the copy is then to where the bytes already are).
     */
    private static int copyIfNormalPath(byte[] a, int from, int to, byte[] out) {
        if (from >= to || a[from] != '/') {
            return -1;
        }
        int segment = from + 1;
        int i = segment;
        for (; i < to; i++) {
            int c = a[i] & 0xFF;
            if (c == '/') {
                if (i == segment || isRemovable(a, segment, i)) {
                    return -1;
                }
                segment = i + 1;
            } else if (CHAR_CLASS[c] != C_PLAIN) {
                if (c == '?') {
                    break;
                }
                return -1;
            }
        }
        int length = i - from;
        if (length > out.length || isRemovable(a, segment, i)) {
            return -1;
        }
        System.arraycopy(a, from, out, 0, length);
        return length;
    }

    /**
     * Normalises the path {@code target[from, to)} (no query) into {@code out} from index 0.
     * Runs per request, 0 B.
     *
     * @param options bits from {@link #options(String, String, String)}, computed at compile time
     * @return the normalised length, or a negative {@code REJECT_*} code (see {@link #describe})
     */
    public static int normalize(CharSequence target, int from, int to, byte[] out, int options) {
        if (from >= to || target.charAt(from) != '/') {
            return REJECT_NOT_ORIGIN_FORM;
        }
        int n = target instanceof AsciiString a
                ? copyIfNormal(a.array(), a.arrayOffset() + from, a.arrayOffset() + to, out)
                : copyIfNormal(target, from, to, out);
        return n >= 0 ? n : normalizeInFull(target, from, to, out, options);
    }

    /**
     * The fast path of {@link #normalize}: a path that is already normal, under any options, is
     * copied unchanged in one pass. Normal means every byte after the leading {@code /} is plain
     * (printable ASCII other than {@code % \ ; # ?}) or a {@code /}, and no segment before the last
     * is empty, {@code .} or {@code ..}, nor is the last {@code .} or {@code ..}: nothing the full
     * pass would decode, reject, merge or remove, so it would write the same bytes. Returns the
     * length, or -1 to leave the path to the full pass (which also reports what is wrong with it).
     */
    private static int copyIfNormal(byte[] a, int from, int to, byte[] out) {
        int length = to - from;
        if (length > out.length) {
            return -1;
        }
        int segment = from + 1;
        for (int i = segment; i < to; i++) {
            int c = a[i] & 0xFF;
            if (c == '/') {
                if (i == segment || isRemovable(a, segment, i)) {
                    return -1;
                }
                segment = i + 1;
            } else if (CHAR_CLASS[c] != C_PLAIN) {
                return -1;
            }
        }
        if (isRemovable(a, segment, to)) {
            return -1;
        }
        System.arraycopy(a, from, out, 0, length);
        return length;
    }

    private static int copyIfNormal(CharSequence s, int from, int to, byte[] out) {
        int length = to - from;
        if (length > out.length) {
            return -1;
        }
        int segment = from + 1;
        for (int i = segment; i < to; i++) {
            char c = s.charAt(i);
            if (c == '/') {
                if (i == segment || isRemovable(s, segment, i)) {
                    return -1;
                }
                segment = i + 1;
            } else if (c >= 0x80 || CHAR_CLASS[c] != C_PLAIN) {
                return -1;
            }
        }
        if (isRemovable(s, segment, to)) {
            return -1;
        }
        for (int i = from; i < to; i++) {
            out[i - from] = (byte) s.charAt(i);
        }
        return length;
    }

    /** {@code a[from, to)} is a {@code .} or {@code ..} segment. */
    private static boolean isRemovable(byte[] a, int from, int to) {
        int length = to - from;
        return (length == 1 || length == 2) && a[from] == '.' && a[to - 1] == '.';
    }

    private static boolean isRemovable(CharSequence s, int from, int to) {
        int length = to - from;
        return (length == 1 || length == 2) && s.charAt(from) == '.' && s.charAt(to - 1) == '.';
    }

    /**
     * {@link #normalize} without the fast path: the full left-to-right pass. Package-private for the
     * test that proves both take the same decision.
     */
    static int normalizeInFull(CharSequence target, int from, int to, byte[] out, int options) {
        if (from >= to || target.charAt(from) != '/') {
            return REJECT_NOT_ORIGIN_FORM;
        }
        if (out.length == 0) {
            return REJECT_TOO_LONG;
        }
        out[0] = '/';
        int segment = 1; // where the current segment starts in out
        int o = 1;
        int i = from + 1;
        while (i < to) {
            char c = target.charAt(i);
            int action;
            if (c < 0x80 && CHAR_CLASS[c] == C_PLAIN) {
                action = ACT_WRITE | c;
                i++;
            } else {
                if (c == '%') {
                    action = escapeAction(target, i, to, options);
                    i += 3;
                } else {
                    action = specialAction(c, options);
                    i++;
                }
                if (action == ACT_PARAMETERS) {
                    i = skipParameters(target, i, to, options);
                    if (i < 0) {
                        return i;
                    }
                    continue;
                }
            }
            if (action < 0) {
                return action;
            }
            if (action == ACT_BOUNDARY) {
                o = endSegment(out, segment, o);
                segment = o;
            } else {
                o = write(out, o, action);
            }
            if (o < 0) {
                return o;
            }
        }
        return endPath(out, segment, o);
    }

    /**
     * The option bits for the {@code normalize} section's values ({@code encoded_slash},
     * {@code backslash}, {@code path_parameters}); compile time only. Plain strings, so that routing
     * knows nothing of the config model (the snapshot compiler passes them).
     *
     * @throws IllegalArgumentException for a value other than {@code reject}, {@code decode} or {@code keep}
     *     ({@code strip}, {@code reject} or {@code keep} for {@code path_parameters})
     */
    public static int options(String encodedSlash, String backslash, String pathParameters) {
        return mode("encoded_slash", encodedSlash, ENCODED_SLASH_DECODE, ENCODED_SLASH_KEEP)
                | mode("backslash", backslash, BACKSLASH_DECODE, BACKSLASH_KEEP)
                | parametersMode(pathParameters);
    }

    /** A short reason for a {@code REJECT_*} code, for logs and explain output. */
    public static String describe(int errorCode) {
        return switch (errorCode) {
            case REJECT_NOT_ORIGIN_FORM -> "path does not start with '/'";
            case REJECT_BAD_ESCAPE -> "'%' not followed by two hex digits";
            case REJECT_ENCODED_SLASH -> "encoded slash (%2F) rejected";
            case REJECT_BACKSLASH -> "backslash ('\\' or %5C) rejected";
            case REJECT_NUL -> "NUL byte (raw or %00)";
            case REJECT_CONTROL_OR_NON_ASCII -> "control or non-ASCII byte";
            case REJECT_ABOVE_ROOT -> "'..' above the root";
            case REJECT_TOO_LONG -> "normalised path too long";
            case REJECT_FRAGMENT_OR_QUERY -> "'#' or '?' inside the path";
            case REJECT_PATH_PARAMETER -> "segment parameter (';' or %3B) rejected";
            default -> errorCode >= 0 ? "normalised (" + errorCode + " bytes)" : "unknown error code " + errorCode;
        };
    }

    /** The action for the escape at {@code target[i]} ({@code '%'}). */
    private static int escapeAction(CharSequence target, int i, int to, int options) {
        if (i + 2 >= to) {
            return REJECT_BAD_ESCAPE;
        }
        int high = hexValue(target.charAt(i + 1));
        int low = hexValue(target.charAt(i + 2));
        if ((high | low) < 0) {
            return REJECT_BAD_ESCAPE;
        }
        int value = high << 4 | low;
        return switch (ESCAPE_CLASS[value]) {
            case D_DECODE -> ACT_WRITE | value;
            case D_SLASH -> encodedSlashAction(options);
            case D_BACKSLASH -> backslashAction(options);
            case D_NUL -> REJECT_NUL;
            case D_SEMICOLON -> parametersAction(options, ACT_KEEP_ESCAPE | ';');
            default -> ACT_KEEP_ESCAPE | value;
        };
    }

    /** The action for a raw character that is not plain and not {@code '%'}. */
    private static int specialAction(char c, int options) {
        if (c > 0xFF) {
            return REJECT_CONTROL_OR_NON_ASCII;
        }
        return switch (CHAR_CLASS[c]) {
            case C_SLASH -> ACT_BOUNDARY;
            case C_BACKSLASH -> backslashAction(options);
            case C_NUL -> REJECT_NUL;
            case C_FRAGMENT_OR_QUERY -> REJECT_FRAGMENT_OR_QUERY;
            case C_SEMICOLON -> parametersAction(options, ACT_WRITE | ';');
            default -> REJECT_CONTROL_OR_NON_ASCII;
        };
    }

    /** The action for a {@code ;} or {@code %3B}: {@code kept} when parameters are kept. */
    private static int parametersAction(int options, int kept) {
        if ((options & PATH_PARAMETERS_KEEP) != 0) {
            return kept;
        }
        return (options & PATH_PARAMETERS_REJECT) != 0 ? REJECT_PATH_PARAMETER : ACT_PARAMETERS;
    }

    /**
     * Skips a segment's parameters from {@code target[i]} (just after the {@code ;}): every unit up to
     * the next segment boundary is checked as elsewhere but not written. Strip mode only.
     *
     * @return the index of the boundary (or {@code to}), or a {@code REJECT_*} code
     */
    private static int skipParameters(CharSequence target, int i, int to, int options) {
        while (i < to) {
            char c = target.charAt(i);
            if (c < 0x80 && CHAR_CLASS[c] == C_PLAIN) {
                i++;
                continue;
            }
            int action = c == '%' ? escapeAction(target, i, to, options) : specialAction(c, options);
            if (action < 0 || action == ACT_BOUNDARY) {
                return action < 0 ? action : i;
            }
            i += c == '%' ? 3 : 1;
        }
        return to;
    }

    private static int encodedSlashAction(int options) {
        if ((options & ENCODED_SLASH_DECODE) != 0) {
            return ACT_BOUNDARY;
        }
        return (options & ENCODED_SLASH_KEEP) != 0 ? ACT_KEEP_ESCAPE | '/' : REJECT_ENCODED_SLASH;
    }

    private static int backslashAction(int options) {
        if ((options & BACKSLASH_DECODE) != 0) {
            return ACT_BOUNDARY;
        }
        return (options & BACKSLASH_KEEP) != 0 ? ACT_KEEP_ESCAPE | '\\' : REJECT_BACKSLASH;
    }

    /** Writes one byte or one upper-case escape; returns the new position or {@link #REJECT_TOO_LONG}. */
    private static int write(byte[] out, int o, int action) {
        int value = action & 0xFF;
        if (action < ACT_KEEP_ESCAPE) {
            if (o == out.length) {
                return REJECT_TOO_LONG;
            }
            out[o] = (byte) value;
            return o + 1;
        }
        if (o + 3 > out.length) {
            return REJECT_TOO_LONG;
        }
        out[o] = '%';
        out[o + 1] = HEX_UPPER[value >>> 4];
        out[o + 2] = HEX_UPPER[value & 0xF];
        return o + 3;
    }

    /**
     * Closes the segment {@code out[segment, o)} at a slash: an empty or {@code .} segment
     * vanishes, {@code ..} removes the one before it, anything else gets its slash.
     *
     * @return where the next segment starts, or a {@code REJECT_*} code
     */
    private static int endSegment(byte[] out, int segment, int o) {
        int length = o - segment;
        if (length == 0 || isDot(out, segment, length)) {
            return segment;
        }
        if (isDotDot(out, segment, length)) {
            return parentStart(out, segment);
        }
        if (o == out.length) {
            return REJECT_TOO_LONG;
        }
        out[o] = '/';
        return o + 1;
    }

    /** Closes the last segment; a trailing {@code .} or {@code ..} leaves the slash before it. */
    private static int endPath(byte[] out, int segment, int o) {
        int length = o - segment;
        if (isDot(out, segment, length)) {
            return segment;
        }
        if (isDotDot(out, segment, length)) {
            return parentStart(out, segment);
        }
        return o;
    }

    private static boolean isDot(byte[] out, int segment, int length) {
        return length == 1 && out[segment] == '.';
    }

    private static boolean isDotDot(byte[] out, int segment, int length) {
        return length == 2 && out[segment] == '.' && out[segment + 1] == '.';
    }

    /** Start of the segment before the one at {@code segment}: every raw '/' in out is a boundary. */
    private static int parentStart(byte[] out, int segment) {
        if (segment == 1) {
            return REJECT_ABOVE_ROOT;
        }
        int p = segment - 2;
        while (out[p] != '/') {
            p--;
        }
        return p + 1;
    }

    private static int hexValue(char c) {
        return c < 0x80 ? HEX_VALUE[c] : -1;
    }

    private static int mode(String key, String value, int decodeBit, int keepBit) {
        return switch (value) {
            case "reject" -> 0;
            case "decode" -> decodeBit;
            case "keep" -> keepBit;
            default -> throw new IllegalArgumentException(
                    "normalize." + key + ": unknown value '" + value + "' (expected one of: reject, decode, keep)");
        };
    }

    private static int parametersMode(String value) {
        return switch (value) {
            case "strip" -> 0;
            case "reject" -> PATH_PARAMETERS_REJECT;
            case "keep" -> PATH_PARAMETERS_KEEP;
            default -> throw new IllegalArgumentException(
                    "normalize.path_parameters: unknown value '" + value + "' (expected one of: strip, reject, keep)");
        };
    }

    private static byte[] charClasses() {
        byte[] classes = new byte[256];
        for (int c = 0; c < 256; c++) {
            classes[c] = c <= 0x20 || c >= 0x7F ? C_CONTROL : C_PLAIN;
        }
        classes[0] = C_NUL;
        classes['/'] = C_SLASH;
        classes['%'] = C_PERCENT;
        classes['\\'] = C_BACKSLASH;
        classes['#'] = C_FRAGMENT_OR_QUERY;
        classes['?'] = C_FRAGMENT_OR_QUERY;
        classes[';'] = C_SEMICOLON;
        return classes;
    }

    private static byte[] escapeClasses() {
        byte[] classes = new byte[256];
        for (int c = 0; c < 256; c++) {
            boolean unreserved = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '-' || c == '.' || c == '_' || c == '~';
            classes[c] = unreserved ? D_DECODE : D_KEEP;
        }
        classes['/'] = D_SLASH;
        classes['\\'] = D_BACKSLASH;
        classes[0] = D_NUL;
        classes[';'] = D_SEMICOLON;
        return classes;
    }

    private static byte[] hexValues() {
        byte[] values = new byte[128];
        java.util.Arrays.fill(values, (byte) -1);
        for (int c = '0'; c <= '9'; c++) {
            values[c] = (byte) (c - '0');
        }
        for (int c = 'a'; c <= 'f'; c++) {
            values[c] = (byte) (c - 'a' + 10);
            values[c - 32] = (byte) (c - 'a' + 10);
        }
        return values;
    }
}
