package io.paduraksa.policy.challenge;

/**
 * Finds a submitted proof in the query and builds where a solved challenge sends the browser
 * back: the same target without the proof parameter. The location is always a same-origin
 * relative path: anything that a browser could read as another origin ({@code //evil.example},
 * {@code /\evil.example}, a backslash or control character anywhere) becomes {@code /}, so the
 * challenge can never be turned into an open redirect. Finding runs per challenged request
 * (0 B); building allocates, on the rare submit path.
 */
public final class ProofRedirect {
    private static final String MARK = ChallengePage.PROOF_PARAMETER + "=";

    private ProofRedirect() {
    }

    /**
     * Start of the proof's value in {@code target}, or -1 without one: the parameter must start the
     * query or follow an {@code &}. The query is {@code target[queryStart, queryEnd)}.
     */
    public static int proofValueStart(CharSequence target, int queryStart, int queryEnd) {
        int last = queryEnd - MARK.length();
        for (int i = queryStart; i <= last; i++) {
            if ((i == queryStart || target.charAt(i - 1) == '&') && regionMatches(target, i)) {
                return i + MARK.length();
            }
        }
        return -1;
    }

    /** End of the proof's value: the next {@code &}, or the query's end. */
    public static int proofValueEnd(CharSequence target, int valueStart, int queryEnd) {
        return ClearanceCookie.indexOf(target, '&', valueStart, queryEnd);
    }

    /**
     * The target without the proof parameter whose value is {@code [valueStart, valueEnd)}, as a
     * safe relative location ({@code /} when it is not one). Allocates.
     */
    public static String location(CharSequence target, int valueStart, int valueEnd, int end) {
        int separator = valueStart - MARK.length() - 1; // the '?' or '&' before the parameter
        StringBuilder sb = new StringBuilder(end);
        sb.append(target, 0, separator);
        if (valueEnd < end) {
            sb.append(target.charAt(separator)).append(target, valueEnd + 1, end);
        }
        String location = sb.toString();
        return isSafe(location) ? location : "/";
    }

    /**
     * Whether {@code location} stays on this origin when a browser resolves it: an absolute path
     * ({@code /} then not {@code /} or {@code \}, which would start an authority), printable ASCII
     * only, no backslash anywhere (browsers read it as {@code /} in http(s) URLs).
     */
    public static boolean isSafe(String location) {
        if (location.isEmpty() || location.charAt(0) != '/') {
            return false;
        }
        if (location.length() > 1 && (location.charAt(1) == '/' || location.charAt(1) == '\\')) {
            return false;
        }
        for (int i = 0; i < location.length(); i++) {
            char c = location.charAt(i);
            if (c <= 0x20 || c >= 0x7F || c == '\\') {
                return false;
            }
        }
        return true;
    }

    private static boolean regionMatches(CharSequence s, int from) {
        for (int i = 0; i < MARK.length(); i++) {
            if (s.charAt(from + i) != MARK.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
