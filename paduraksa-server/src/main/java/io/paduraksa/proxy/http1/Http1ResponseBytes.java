package io.paduraksa.proxy.http1;

import static io.paduraksa.server.http1.Http1Bytes.isOws;
import static io.paduraksa.server.http1.Http1Bytes.toLower;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/**
 * What only response heads need on top of {@link io.paduraksa.server.http1.Http1Bytes} (the byte
 * classes of RFC 9110/9112 both directions share): the status line's version prefix, list and OWS
 * helpers, comparisons in place. Allocates nothing.
 */
final class Http1ResponseBytes {
    static final byte NUL = 0;

    /** {@code "HTTP/1."}: the first seven bytes every accepted status line starts with. */
    private static final byte[] HTTP_1_PREFIX = {'H', 'T', 'T', 'P', '/', '1', '.'};

    private Http1ResponseBytes() {
    }

    /**
     * Whether the first {@code min(readable, 8)} bytes from {@code from} can start
     * {@code HTTP/1.0} or {@code HTTP/1.1}: lets the decoder refuse garbage at its first byte.
     */
    static boolean isVersionPrefix(ByteBuf in, int from, int readable) {
        int n = Math.min(readable, 8);
        for (int i = 0; i < n; i++) {
            int b = in.getByte(from + i);
            if (i < 7 ? b != HTTP_1_PREFIX[i] : b != '0' && b != '1') {
                return false;
            }
        }
        return true;
    }

    /** {@code buf[from, to)} equals {@code s} ignoring ASCII case on both sides. */
    static boolean rangeEqualsIgnoreCase(ByteBuf buf, int from, int to, CharSequence s) {
        int n = s.length();
        if (to - from != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (toLower(buf.getByte(from + i) & 0xFF) != toLower(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static int skipOws(ByteBuf in, int from, int to) {
        while (from < to && isOws(in.getByte(from))) {
            from++;
        }
        return from;
    }

    static int trimOws(ByteBuf in, int from, int to) {
        while (to > from && isOws(in.getByte(to - 1))) {
            to--;
        }
        return to;
    }

    /**
     * Whether the comma-separated list {@code in[from, to)} (RFC 9110 section 5.6.1) has an element
     * equal to {@code name}, ASCII case ignored; empty elements are skipped.
     */
    static boolean listContains(ByteBuf in, int from, int to, CharSequence name) {
        int p = from;
        while (p < to) {
            int comma = in.indexOf(p, to, (byte) ',');
            int elementEnd = comma < 0 ? to : comma;
            int s = skipOws(in, p, elementEnd);
            if (rangeEqualsIgnoreCase(in, s, trimOws(in, s, elementEnd), name)) {
                return true;
            }
            p = elementEnd + 1;
        }
        return false;
    }
}
