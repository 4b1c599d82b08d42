package io.paduraksa.respond;

/** The HTTP token grammar (RFC 9110 section 5.6.2), for method and header names; compile time only. */
public final class HttpToken {
    private static final String TCHAR_SYMBOLS = "!#$%&'*+-.^_`|~";

    private HttpToken() {
    }

    /** {@code token = 1*tchar}: letters, digits and {@code !#$%&'*+-.^_`|~}; false for null or empty. */
    public static boolean isToken(String s) {
        if (s == null || s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean alnum = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
            if (!alnum && TCHAR_SYMBOLS.indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }
}
