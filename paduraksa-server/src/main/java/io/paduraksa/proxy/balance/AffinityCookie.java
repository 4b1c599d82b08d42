package io.paduraksa.proxy.balance;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.paduraksa.respond.HttpToken;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Session affinity by cookie: a response from destination {@code i} may carry
 * {@code Set-Cookie: NAME=token}, and later requests carrying that cookie go back to {@code i}
 * while it is available.
 *
 * <p>The token is the first 8 bytes of SHA-256 over the cluster name and the destination key (its
 * URL), as 16 lowercase hex digits: stable across restarts and reloads, so a reload that keeps a
 * destination keeps its sessions, while it names neither the address nor the position of the
 * destination. Two keys that hash alike are refused at build time; the same key twice gets one
 * token and {@link #find} answers the first index.
 *
 * <p>Built once per config load. {@link #find} runs per request on an event loop: it parses the
 * Cookie header in place (RFC 6265 section 4.2.1: {@code name=value} pairs separated by {@code ;}
 * and optional spaces, a value optionally in double quotes), never makes a String and allocates
 * nothing ({@code AffinityCookieAllocationTest}). The Set-Cookie lines are precomputed.
 */
public final class AffinityCookie {
    private static final int TOKEN_DIGITS = 16;
    private static final String ATTRIBUTES = "; Path=/; HttpOnly; SameSite=Lax";

    private final String name;
    private final long[] tokens;
    private final byte[][] setCookieLines;

    /**
     * @param cookieName      the cookie's name, an RFC 9110 token (RFC 6265 cookie-name)
     * @param destinationKeys one stable key per destination, in index order (their URLs)
     * @param clusterName     the cluster's name, mixed into the token so two clusters sharing a
     *                        destination do not share its cookie value
     */
    public AffinityCookie(String cookieName, String[] destinationKeys, String clusterName) {
        checkName(cookieName);
        this.name = cookieName;
        int n = destinationKeys.length;
        this.tokens = new long[n];
        this.setCookieLines = new byte[n][];
        for (int i = 0; i < n; i++) {
            long token = token(clusterName, destinationKeys[i]);
            for (int j = 0; j < i; j++) {
                if (tokens[j] == token && !destinationKeys[j].equals(destinationKeys[i])) {
                    throw new IllegalArgumentException("affinity tokens of destinations " + destinationKeys[j] + " and "
                            + destinationKeys[i] + " collide; rename the cluster");
                }
            }
            tokens[i] = token;
            String value = cookieName + "=" + hex(token) + ATTRIBUTES;
            setCookieLines[i] = ("Set-Cookie: " + value + "\r\n").getBytes(US_ASCII);
        }
    }

    /** The destination named by a Cookie header value, or -1 when absent, unknown or malformed. */
    public int find(CharSequence cookieHeader) {
        return find(cookieHeader, 0, cookieHeader.length());
    }

    /**
     * The destination named by the Cookie header value in {@code [from, to)}, or -1. With several
     * cookies of this name (one per path, say) the first that names a known destination wins. HTTP/2
     * may split cookies over several header fields (RFC 9113 section 8.2.3): call this per field
     * until one answers.
     */
    public int find(CharSequence s, int from, int to) {
        int i = from;
        while (i < to) {
            i = skipSpaces(s, i, to);
            int end = indexOf(s, i, to, ';');
            int eq = indexOf(s, i, end, '=');
            if (eq < end && nameMatches(s, i, eq)) {
                int d = destination(s, eq + 1, end);
                if (d >= 0) {
                    return d;
                }
            }
            i = end + 1;
        }
        return -1;
    }

    /**
     * The {@code Set-Cookie} header line for {@code destination}, with its CRLF (HTTP/1.1 copies it;
     * HTTP/2 and HTTP/3 split it into a lower-case field). Shared: do not modify.
     */
    public byte[] setCookieLine(int destination) {
        return setCookieLines[destination];
    }

    private boolean nameMatches(CharSequence s, int from, int to) {
        String n = name;
        int len = n.length();
        if (to - from != len) {
            return false;
        }
        // Cookie names compare exactly (RFC 6265 section 5.3 stores them as they came).
        for (int k = 0; k < len; k++) {
            if (s.charAt(from + k) != n.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** Index whose token is the value in {@code [from, to)} (trailing spaces and one pair of quotes allowed), or -1. */
    private int destination(CharSequence s, int from, int to) {
        while (to > from && s.charAt(to - 1) == ' ') {
            to--;
        }
        if (to - from == TOKEN_DIGITS + 2 && s.charAt(from) == '"' && s.charAt(to - 1) == '"') {
            from++;
            to--;
        }
        if (to - from != TOKEN_DIGITS) {
            return -1;
        }
        long token = 0;
        for (int k = from; k < to; k++) {
            int digit = hexDigit(s.charAt(k));
            if (digit < 0) {
                return -1;
            }
            token = (token << 4) | digit;
        }
        long[] t = tokens;
        for (int d = 0; d < t.length; d++) {
            if (t[d] == token) {
                return d;
            }
        }
        return -1;
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static int skipSpaces(CharSequence s, int i, int to) {
        while (i < to && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** Position of {@code c} in {@code [from, to)}, or {@code to}. */
    private static int indexOf(CharSequence s, int from, int to, char c) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return to;
    }

    static long token(String clusterName, String destinationKey) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK always has SHA-256", e);
        }
        // A NUL between the parts: ("ab", "c") and ("a", "bc") must not hash alike.
        sha.update(clusterName.getBytes(UTF_8));
        sha.update((byte) 0);
        byte[] h = sha.digest(destinationKey.getBytes(UTF_8));
        long token = 0;
        for (int i = 0; i < 8; i++) {
            token = (token << 8) | (h[i] & 0xFF);
        }
        return token;
    }

    static String hex(long token) {
        String digits = Long.toHexString(token);
        return "0".repeat(TOKEN_DIGITS - digits.length()) + digits;
    }

    private static void checkName(String name) {
        if (!HttpToken.isToken(name)) {
            throw new IllegalArgumentException("cookie name '" + name + "' is not an HTTP token (expected letters, digits and !#$%&'*+-.^_`|~)");
        }
    }
}
