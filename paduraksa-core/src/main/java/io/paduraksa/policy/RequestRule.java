package io.paduraksa.policy;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * One compiled rule of a {@link RequestRulesPolicy}: a header, a query parameter or the method,
 * and how it matches. Built at compile time; {@link #matchesAny} and {@link #matchesAll} run per
 * request, compare in place and allocate nothing.
 *
 * <ul>
 *   <li><b>Header</b>: the name is case-insensitive; the rule sees the first field line of the
 *       header (what {@link PolicyInput#header} returns). A value is compared as sent, byte for byte,
 *       with ASCII letters folded unless case-sensitive. {@code present} is true for an empty value.</li>
 *   <li><b>Query</b>: parameters are separated by {@code &} and by {@code ;} (some frameworks split on
 *       {@code ;}; splitting on both means a deny cannot be hidden behind either). Names and values
 *       are percent-decoded in place, once ({@code %64ebug} is {@code debug}, {@code %2564ebug} is
 *       {@code %64ebug}), and {@code +} is a space; an invalid escape is kept as its bytes. The name
 *       is compared exactly (case-sensitive), the value like a header value. A name without
 *       {@code =} has the empty value.</li>
 *   <li><b>Method</b>: one of a list of tokens.</li>
 * </ul>
 */
public final class RequestRule {

    /** What the rule looks at. */
    public enum Subject { HEADER, QUERY, METHOD }

    /** How a header or query value matches. */
    public enum Match { PRESENT, ABSENT, EXACT, PREFIX, CONTAINS }

    private static final int NO_MATCH = 0;
    private static final int MATCH = 1;

    private final Subject subject;
    private final Match match;
    private final AsciiString headerName;
    private final byte[] name;
    private final byte[] value;
    private final boolean ignoreCase;
    private final byte[][] methods;
    private final String text;

    private RequestRule(Subject subject, Match match, String name, String value, boolean ignoreCase, List<String> methods) {
        this.subject = subject;
        this.match = match;
        this.headerName = subject == Subject.HEADER ? AsciiString.cached(name.toLowerCase(Locale.ROOT)) : null;
        this.name = name == null ? null : name.getBytes(StandardCharsets.UTF_8);
        this.value = value == null ? null : fold(value.getBytes(StandardCharsets.UTF_8), ignoreCase);
        this.ignoreCase = ignoreCase;
        this.methods = methods == null ? null : methodBytes(methods, ignoreCase);
        this.text = subject + " " + (methods != null ? methods : name) + " " + match + (value != null ? " '" + value + "'" : "")
                + (ignoreCase ? " (any case)" : "");
    }

    /** A header rule; {@code value} is null for PRESENT and ABSENT. */
    public static RequestRule header(String name, Match match, String value, boolean ignoreCase) {
        return new RequestRule(Subject.HEADER, match, requireText(name, "header name"), checkValue(match, value), ignoreCase, null);
    }

    /** A query-parameter rule; {@code value} is null for PRESENT and ABSENT. */
    public static RequestRule query(String name, Match match, String value, boolean ignoreCase) {
        return new RequestRule(Subject.QUERY, match, requireText(name, "query name"), checkValue(match, value), ignoreCase, null);
    }

    /** A method rule: matches one of {@code methods}, ASCII case folded when {@code ignoreCase}. */
    public static RequestRule method(List<String> methods, boolean ignoreCase) {
        if (methods == null || methods.isEmpty()) {
            throw new IllegalArgumentException("a method rule needs at least one method (expected e.g. [TRACE, TRACK])");
        }
        return new RequestRule(Subject.METHOD, Match.EXACT, null, null, ignoreCase, methods);
    }

    /**
     * Deny semantics: some occurrence matches. For a query parameter sent twice, either occurrence
     * may match ({@code a=1&a=2} matches {@code exact: "2"}). ABSENT matches when there is none.
     * Per request; 0 B.
     */
    public boolean matchesAny(PolicyInput request) {
        return evaluate(request, false) == MATCH;
    }

    /**
     * Allow semantics: the parameter is there and every occurrence matches (servers disagree on
     * whether the first or last repeated parameter wins, so both must pass). Headers and the method
     * have one occurrence. Per request; 0 B.
     */
    public boolean matchesAll(PolicyInput request) {
        return evaluate(request, true) == MATCH;
    }

    private int evaluate(PolicyInput request, boolean all) {
        switch (subject) {
            case HEADER:
                return headerResult(request.header(headerName));
            case QUERY:
                return queryResult(request, all);
            default:
                return methodMatches(request.method()) ? MATCH : NO_MATCH;
        }
    }

    private int headerResult(CharSequence v) {
        if (v == null) {
            return match == Match.ABSENT ? MATCH : NO_MATCH;
        }
        return valueMatches(v, 0, v.length(), false) ? MATCH : NO_MATCH;
    }

    /** Walks every parameter of the query; MATCH or NO_MATCH by {@code all}'s semantics. */
    private int queryResult(PolicyInput request, boolean all) {
        CharSequence target = request.target();
        int from = request.queryStart();
        int end = request.queryEnd();
        boolean seen = false;
        boolean anyMatch = false;
        boolean allMatch = true;
        while (target != null && from >= 0 && from <= end) {
            int stop = separator(target, from, end);
            int eq = indexOf(target, '=', from, stop);
            int nameEnd = eq < 0 ? stop : eq;
            if (stop > from && decodedEquals(target, from, nameEnd, name, false, true)) {
                seen = true;
                boolean m = valueMatches(target, eq < 0 ? stop : eq + 1, stop, true);
                anyMatch |= m;
                allMatch &= m;
            }
            from = stop + 1;
        }
        if (match == Match.ABSENT) {
            return seen ? NO_MATCH : MATCH;
        }
        if (!seen) {
            return NO_MATCH;
        }
        return (all ? allMatch : anyMatch) ? MATCH : NO_MATCH;
    }

    private boolean valueMatches(CharSequence s, int from, int to, boolean decode) {
        switch (match) {
            case PRESENT:
                return true;
            case ABSENT:
                return false;
            case EXACT:
                return decodedEquals(s, from, to, value, ignoreCase, decode);
            case PREFIX:
                return decodedPrefixEnd(s, from, to, value, ignoreCase, decode) >= 0;
            default:
                return decodedContains(s, from, to, value, ignoreCase, decode);
        }
    }

    private boolean methodMatches(CharSequence method) {
        if (method == null) {
            return false;
        }
        byte[][] list = methods;
        for (int i = 0; i < list.length; i++) {
            if (decodedEquals(method, 0, method.length(), list[i], ignoreCase, false)) {
                return true;
            }
        }
        return false;
    }

    // ---- in-place comparison over raw or percent-decoded bytes ----

    private static int separator(CharSequence s, int from, int end) {
        for (int i = from; i < end; i++) {
            char c = s.charAt(i);
            if (c == '&' || c == ';') {
                return i;
            }
        }
        return end;
    }

    private static int indexOf(CharSequence s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    static boolean decodedEquals(CharSequence s, int from, int to, byte[] needle, boolean ignoreCase, boolean decode) {
        return decodedPrefixEnd(s, from, to, needle, ignoreCase, decode) == to;
    }

    /** Where the decoded bytes of {@code [from, to)} stop matching {@code needle} after all of it matched, or -1. */
    static int decodedPrefixEnd(CharSequence s, int from, int to, byte[] needle, boolean ignoreCase, boolean decode) {
        int i = from;
        for (int j = 0; j < needle.length; j++) {
            if (i >= to) {
                return -1;
            }
            int packed = decode ? decodedAt(s, i, to) : (s.charAt(i) & 0xFF) | 1 << 8;
            int b = packed & 0xFF;
            if ((ignoreCase ? lower(b) : b) != (needle[j] & 0xFF)) {
                return -1;
            }
            i += packed >>> 8;
        }
        return i;
    }

    static boolean decodedContains(CharSequence s, int from, int to, byte[] needle, boolean ignoreCase, boolean decode) {
        int i = from;
        while (i < to) {
            if (decodedPrefixEnd(s, i, to, needle, ignoreCase, decode) >= 0) {
                return true;
            }
            i += decode ? decodedAt(s, i, to) >>> 8 : 1;
        }
        return false;
    }

    /** The decoded byte at {@code i} in the low 8 bits, the chars it took (1 or 3) above them. */
    private static int decodedAt(CharSequence s, int i, int to) {
        char c = s.charAt(i);
        if (c == '%' && i + 2 < to) {
            int hi = Character.digit(s.charAt(i + 1), 16);
            int lo = Character.digit(s.charAt(i + 2), 16);
            if (hi >= 0 && lo >= 0) {
                return (hi << 4 | lo) | 3 << 8;
            }
        }
        return (c == '+' ? ' ' : c & 0xFF) | 1 << 8;
    }

    private static int lower(int b) {
        return b >= 'A' && b <= 'Z' ? b + 32 : b;
    }

    private static byte[] fold(byte[] bytes, boolean ignoreCase) {
        if (ignoreCase) {
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) lower(bytes[i] & 0xFF);
            }
        }
        return bytes;
    }

    private static byte[][] methodBytes(List<String> methods, boolean ignoreCase) {
        byte[][] out = new byte[methods.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = fold(requireText(methods.get(i), "method").getBytes(StandardCharsets.US_ASCII), ignoreCase);
        }
        return out;
    }

    private static String requireText(String s, String what) {
        if (s == null || s.isEmpty()) {
            throw new IllegalArgumentException("a request rule needs a non-empty " + what);
        }
        return s;
    }

    private static String checkValue(Match match, String value) {
        boolean needsValue = match == Match.EXACT || match == Match.PREFIX || match == Match.CONTAINS;
        if (needsValue != (value != null && !value.isEmpty())) {
            throw new IllegalArgumentException(needsValue ? "a " + match + " rule needs a non-empty value"
                    : "a " + match + " rule takes no value");
        }
        return value;
    }

    @Override
    public String toString() {
        return text;
    }
}
