package io.paduraksa.proxy;

/**
 * The Connection field's options (RFC 9110 section 7.6.1): every field it names is hop-by-hop and
 * is removed before forwarding. Compared in place, ASCII case-insensitively; allocates nothing.
 */
public final class ConnectionOptions {
    private ConnectionOptions() {
    }

    /** Whether the comma-separated {@code connectionValue} lists {@code name}. */
    public static boolean names(CharSequence connectionValue, CharSequence name) {
        int n = connectionValue.length();
        int i = 0;
        while (i < n) {
            while (i < n && isSeparator(connectionValue.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < n && connectionValue.charAt(i) != ',') {
                i++;
            }
            int end = i;
            while (end > start && isSeparator(connectionValue.charAt(end - 1))) {
                end--;
            }
            if (end - start == name.length() && regionEqualsIgnoreCase(connectionValue, start, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isSeparator(char c) {
        return c == ' ' || c == '\t' || c == ',';
    }

    private static boolean regionEqualsIgnoreCase(CharSequence text, int from, CharSequence name) {
        for (int j = 0; j < name.length(); j++) {
            char a = text.charAt(from + j);
            char b = name.charAt(j);
            if (a != b && (a | 0x20) != (b | 0x20) || a != b && !isLetter(a)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLetter(char c) {
        return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    }
}
