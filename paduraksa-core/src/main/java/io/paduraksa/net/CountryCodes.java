package io.paduraksa.net;

/**
 * Two-character country codes as small ints, so that a connection carries its country in an int
 * and a policy checks it with one array read: ISO 3166 alpha-2 letters (and Cloudflare's
 * {@code T1} for Tor) map to {@code 1 + c1 * 36 + c2}, with A-Z as 0-25 and 0-9 as 26-35, so
 * {@value #UNKNOWN} means none. {@code XX} (Cloudflare's "no country information") is unknown.
 * {@link #index} reads a {@code CharSequence} in place: 0 B per call.
 */
public final class CountryCodes {
    /** No country known. */
    public static final int UNKNOWN = 0;
    /** Size of a table indexed by {@link #index} (one slot more than the largest index). */
    public static final int TABLE_SIZE = 1 + 36 * 36;

    private CountryCodes() {
    }

    /** The index of the code in {@code s[from, to)} (ASCII case folded), or {@link #UNKNOWN} when it is none. */
    public static int index(CharSequence s, int from, int to) {
        if (s == null || to - from != 2) {
            return UNKNOWN;
        }
        int c1 = letter(s.charAt(from));
        int c2 = symbol(s.charAt(from + 1));
        if (c1 < 0 || c2 < 0 || c1 == 'X' - 'A' && c2 == 'X' - 'A') {
            return UNKNOWN;
        }
        return 1 + c1 * 36 + c2;
    }

    /** The index of a whole value ({@code CF-IPCountry: DE}), or {@link #UNKNOWN}; null is unknown. */
    public static int index(CharSequence value) {
        return value == null ? UNKNOWN : index(value, 0, value.length());
    }

    /** The code of an index, upper case (logs, tests). */
    public static String code(int index) {
        if (index <= 0 || index >= TABLE_SIZE) {
            return "--";
        }
        int v = index - 1;
        return new String(new char[] {(char) ('A' + v / 36), symbolChar(v % 36)});
    }

    private static int letter(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        return c >= 'a' && c <= 'z' ? c - 'a' : -1;
    }

    private static int symbol(char c) {
        int l = letter(c);
        return l >= 0 ? l : c >= '0' && c <= '9' ? 26 + c - '0' : -1;
    }

    private static char symbolChar(int v) {
        return v < 26 ? (char) ('A' + v) : (char) ('0' + v - 26);
    }
}
