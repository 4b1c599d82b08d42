package io.paduraksa.proxy.cache;

import io.netty.util.AsciiString;
import io.paduraksa.proxy.ResponseHead;

/**
 * Which fields of an upstream response a stored copy leaves out: hop-by-hop fields and the
 * Connection options (they describe the upstream connection, RFC 9110 7.6.1), the framing (each
 * hit writes its own), and {@code Age} (each hit writes the current age). Miss path only.
 */
final class StoredFields {
    static final AsciiString DATE = AsciiString.cached("Date");

    private static final AsciiString[] LEFT_OUT = {
        AsciiString.cached("connection"), AsciiString.cached("keep-alive"), AsciiString.cached("proxy-connection"),
        AsciiString.cached("transfer-encoding"), AsciiString.cached("te"), AsciiString.cached("trailer"),
        AsciiString.cached("upgrade"), AsciiString.cached("content-length"), AsciiString.cached("age"),
    };
    private static final AsciiString SET_COOKIE = AsciiString.cached("set-cookie");

    private StoredFields() {
    }

    static boolean isLeftOut(CharSequence name, ResponseHead head) {
        for (AsciiString n : LEFT_OUT) {
            if (n.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return head.isConnectionOption(name);
    }

    static boolean isSetCookie(CharSequence name) {
        return SET_COOKIE.contentEqualsIgnoreCase(name);
    }
}
