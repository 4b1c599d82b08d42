package io.paduraksa.proxy;

import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Which request methods may be sent twice (RFC 9110 section 9.2.2): GET, HEAD, OPTIONS, TRACE, PUT
 * and DELETE. A retry after a failed attempt is only made for these. Compared in place; allocates
 * nothing.
 */
public final class Idempotency {
    private static final byte[] GET = ascii("GET");
    private static final byte[] PUT = ascii("PUT");
    private static final byte[] HEAD = ascii("HEAD");
    private static final byte[] TRACE = ascii("TRACE");
    private static final byte[] DELETE = ascii("DELETE");
    private static final byte[] OPTIONS = ascii("OPTIONS");

    private Idempotency() {
    }

    public static boolean isIdempotent(CharSequence method) {
        return switch (method.length()) {
            case 3 -> is(method, GET) || is(method, PUT);
            case 4 -> is(method, HEAD);
            case 5 -> is(method, TRACE);
            case 6 -> is(method, DELETE);
            case 7 -> is(method, OPTIONS);
            default -> false;
        };
    }

    public static boolean isHead(CharSequence method) {
        return method.length() == 4 && is(method, HEAD);
    }

    public static boolean isGet(CharSequence method) {
        return method.length() == 3 && is(method, GET);
    }

    /**
     * Exact bytes (methods are case-sensitive, RFC 9110 9.1), read in place or copied once, not a
     * checked read per char; {@code method} is as long as {@code name}. A method with a char above
     * 0xFF has no bytes and is none of these.
     */
    private static boolean is(CharSequence method, byte[] name) {
        byte[] a = TextBytes.bytes(method);
        if (a == null) {
            return false;
        }
        int offset = TextBytes.offset(method, a);
        return Arrays.equals(a, offset, offset + name.length, name, 0, name.length);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
