package io.paduraksa.route;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Segment-aware prefix matching on normalised path bytes, shared by {@link PathPrefixSet} and
 * {@link RouteTable}. {@link #compile} runs at compile time; the match methods run per request
 * and allocate nothing.
 *
 * <p>A prefix matches a path when the path starts with it and the match ends on a segment
 * boundary: the prefix ends with {@code /}, or the path ends right there, or a {@code /} follows.
 * So {@code /admin} matches {@code /admin}, {@code /admin/} and {@code /admin/x} but not
 * {@code /administrator}; {@code /admin/} does not match {@code /admin}; {@code /} matches all.
 */
final class PathPrefix {

    private PathPrefix() {
    }

    /**
     * The normalised bytes of a configured prefix (default {@link PathNormalizer} options), lower-cased
     * when {@code foldCase}.
     *
     * @throws IllegalArgumentException naming the value when it is not a valid path
     */
    static byte[] compile(String prefix, boolean foldCase) {
        if (prefix == null) {
            throw new IllegalArgumentException("path prefix is null (expected a path starting with '/')");
        }
        byte[] out = new byte[3 * prefix.length() + 1];
        int n = PathNormalizer.normalize(prefix, 0, prefix.length(), out, PathNormalizer.DEFAULT_OPTIONS);
        if (n < 0) {
            throw new IllegalArgumentException("path prefix '" + prefix + "': " + PathNormalizer.describe(n)
                    + " (expected a path starting with '/', non-ASCII percent-encoded as UTF-8)");
        }
        byte[] bytes = Arrays.copyOf(out, n);
        if (foldCase) {
            for (int i = 0; i < n; i++) {
                bytes[i] = fold(bytes[i]);
            }
        }
        return bytes;
    }

    /** {@code prefix} (as compiled) matches {@code path[0, len)}, bytes compared exactly. */
    static boolean matches(byte[] prefix, byte[] path, int len) {
        int n = prefix.length;
        return endsOnBoundary(prefix, path, len)
                && Arrays.equals(prefix, 1, n, path, 1, n); // index 0 is '/' in both
    }

    /** As {@link #matches}, with ASCII letters of {@code path} folded; {@code prefix} was compiled folded. */
    static boolean matchesIgnoreCase(byte[] prefix, byte[] path, int len) {
        if (!endsOnBoundary(prefix, path, len)) {
            return false;
        }
        for (int i = prefix.length - 1; i > 0; i--) {
            if (fold(path[i]) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** The path is long enough and a match would end on a segment boundary (checked first: it is cheap). */
    private static boolean endsOnBoundary(byte[] prefix, byte[] path, int len) {
        int n = prefix.length;
        return len >= n && (len == n || prefix[n - 1] == '/' || path[n] == '/');
    }

    static byte fold(byte b) {
        return b >= 'A' && b <= 'Z' ? (byte) (b | 0x20) : b;
    }

    static String toString(byte[] prefix) {
        return new String(prefix, StandardCharsets.ISO_8859_1);
    }
}
