package io.paduraksa.proxy.cache;

/**
 * The response directives of {@code Cache-Control} (RFC 9111 5.2.2) that decide storing and
 * serving, read from every Cache-Control field of a response (their lists joined). Unknown
 * directives are ignored; a delta-seconds value that is not digits makes its directive count as
 * absent, except for {@code max-age} and {@code s-maxage}, where it counts as 0 (stale at once,
 * RFC 9111 4.2.1: invalid freshness is treated as stale). Runs on a miss (the response head), never
 * on a hit.
 */
final class CacheControl {
    boolean noStore;
    boolean noCache;
    boolean isPrivate;
    boolean isPublic;
    boolean mustRevalidate;
    long maxAge = -1;
    long sMaxAge = -1;
    long staleWhileRevalidate = -1;
    long staleIfError = -1;

    /** Adds the directives of one Cache-Control field value. */
    void parse(CharSequence v) {
        int i = 0;
        int n = v.length();
        while (i < n) {
            while (i < n && (v.charAt(i) == ' ' || v.charAt(i) == '\t' || v.charAt(i) == ',')) {
                i++;
            }
            int nameStart = i;
            while (i < n && v.charAt(i) != '=' && v.charAt(i) != ',' && v.charAt(i) != ' ' && v.charAt(i) != '\t') {
                i++;
            }
            int nameEnd = i;
            while (i < n && (v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
                i++;
            }
            int valueStart = -1;
            int valueEnd = -1;
            if (i < n && v.charAt(i) == '=') {
                i++;
                if (i < n && v.charAt(i) == '"') {
                    valueStart = ++i;
                    while (i < n && v.charAt(i) != '"') {
                        i++;
                    }
                    valueEnd = i;
                    if (i < n) {
                        i++;
                    }
                } else {
                    valueStart = i;
                    while (i < n && v.charAt(i) != ',' && v.charAt(i) != ' ' && v.charAt(i) != '\t') {
                        i++;
                    }
                    valueEnd = i;
                }
            }
            while (i < n && v.charAt(i) != ',') {
                i++; // junk after a directive: skipped up to the next list member
            }
            directive(v, nameStart, nameEnd, valueStart, valueEnd);
        }
    }

    private void directive(CharSequence v, int from, int to, int valueStart, int valueEnd) {
        if (is(v, from, to, "no-store")) {
            noStore = true;
        } else if (is(v, from, to, "no-cache")) {
            noCache = true; // also no-cache="field": treated as no-cache of the whole response
        } else if (is(v, from, to, "private")) {
            isPrivate = true;
        } else if (is(v, from, to, "public")) {
            isPublic = true;
        } else if (is(v, from, to, "must-revalidate") || is(v, from, to, "proxy-revalidate")) {
            mustRevalidate = true;
        } else if (is(v, from, to, "max-age")) {
            maxAge = Math.max(0, seconds(v, valueStart, valueEnd));
        } else if (is(v, from, to, "s-maxage")) {
            sMaxAge = Math.max(0, seconds(v, valueStart, valueEnd));
        } else if (is(v, from, to, "stale-while-revalidate")) {
            staleWhileRevalidate = seconds(v, valueStart, valueEnd);
        } else if (is(v, from, to, "stale-if-error")) {
            staleIfError = seconds(v, valueStart, valueEnd);
        }
    }

    /** Delta-seconds (RFC 9111 1.2.2): digits, capped at 2^31 (larger values mean 2^31); -1 when not digits. */
    static long seconds(CharSequence v, int from, int to) {
        if (from < 0 || from >= to) {
            return -1;
        }
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = Math.min(n * 10 + (c - '0'), 1L << 31);
        }
        return n;
    }

    private static boolean is(CharSequence v, int from, int to, String name) {
        if (to - from != name.length()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = v.charAt(from + i);
            if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
