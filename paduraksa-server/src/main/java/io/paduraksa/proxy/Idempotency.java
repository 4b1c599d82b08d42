package io.paduraksa.proxy;

/**
 * Which request methods may be sent twice (RFC 9110 section 9.2.2): GET, HEAD, OPTIONS, TRACE, PUT
 * and DELETE. A retry after a failed attempt is only made for these. Compared in place; allocates
 * nothing.
 */
final class Idempotency {
    private Idempotency() {
    }

    static boolean isIdempotent(CharSequence method) {
        return switch (method.length()) {
            case 3 -> is(method, "GET") || is(method, "PUT");
            case 4 -> is(method, "HEAD");
            case 5 -> is(method, "TRACE");
            case 6 -> is(method, "DELETE");
            case 7 -> is(method, "OPTIONS");
            default -> false;
        };
    }

    static boolean isHead(CharSequence method) {
        return method.length() == 4 && is(method, "HEAD");
    }

    private static boolean is(CharSequence method, String name) {
        for (int i = 0; i < name.length(); i++) {
            if (method.charAt(i) != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
