package io.paduraksa.proxy;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.respond.AsciiNumbers;

/**
 * W3C Trace Context {@code traceparent} (https://www.w3.org/TR/trace-context/ section 3.2) read
 * in place: {@code version "-" trace-id "-" parent-id "-" trace-flags}, lower-case hex only.
 * Version {@code ff} is invalid; version {@code 00} is exactly 55 characters; a later version may
 * carry more after a {@code -}, which is ignored (we answer with version 00, as the spec asks).
 * An all-zero trace id or parent id is invalid. Per forwarded request on the event loop (the
 * forwarding fields continue or start a trace, {@link ForwardingFields}); allocates nothing.
 */
public final class TraceParent {
    /** Length of a version-00 {@code traceparent}. */
    public static final int LENGTH = 55;
    /** Longest {@code tracestate} passed on (the spec's 512-character guidance for propagation). */
    public static final int MAX_TRACESTATE = 512;

    private static final AsciiString TRACEPARENT = AsciiString.cached("traceparent");
    private static final FastThreadLocal<long[]> IDS = new FastThreadLocal<>() {
        @Override
        protected long[] initialValue() {
            return new long[4];
        }
    };

    private TraceParent() {
    }

    /**
     * For the access log of a request whose trace the forwarder did not record (answered by the
     * gate, refused, or failed before its upstream head): the client's own trace id, when its
     * {@code traceparent} is valid, goes into {@code state}. {@code view} may be null (no head).
     * At the end of a request, on the event loop; allocates nothing.
     */
    public static void keepClientTrace(RequestState state, RequestView view) {
        if ((state.traceHigh() | state.traceLow()) != 0 || view == null) {
            return;
        }
        CharSequence incoming = view.header(TRACEPARENT);
        long[] ids = IDS.get();
        if (incoming != null && parse(incoming, ids)) {
            state.trace(ids[0], ids[1]);
        }
    }

    /**
     * Parses {@code v}; on success fills {@code out} with trace id high and low 64 bits, parent id
     * and flags, and returns true. On failure {@code out} is left in an undefined state.
     */
    public static boolean parse(CharSequence v, long[] out) {
        int n = v.length();
        if (n < LENGTH) {
            return false;
        }
        int version = hex(v, 0, 2);
        if (version < 0 || version == 0xFF || (version == 0 && n != LENGTH) || (n > LENGTH && v.charAt(LENGTH) != '-')) {
            return false;
        }
        if (v.charAt(2) != '-' || v.charAt(35) != '-' || v.charAt(52) != '-') {
            return false;
        }
        int flags = hex(v, 53, 55);
        if (flags < 0 || !hex64(v, 3, out, 0) || !hex64(v, 19, out, 1) || !hex64(v, 36, out, 2)) {
            return false;
        }
        out[3] = flags;
        return (out[0] | out[1]) != 0 && out[2] != 0;
    }

    /** 16 lower-case hex digits at {@code from} into {@code out[slot]}. */
    private static boolean hex64(CharSequence v, int from, long[] out, int slot) {
        long x = 0;
        for (int i = from; i < from + 16; i++) {
            int d = digit(v.charAt(i));
            if (d < 0) {
                return false;
            }
            x = (x << 4) | d;
        }
        out[slot] = x;
        return true;
    }

    private static int hex(CharSequence v, int from, int to) {
        int x = 0;
        for (int i = from; i < to; i++) {
            int d = digit(v.charAt(i));
            if (d < 0) {
                return -1;
            }
            x = (x << 4) | d;
        }
        return x;
    }

    /** Lower-case hex only: the spec makes upper case invalid. */
    private static int digit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    }

    /** Writes {@code 00-<trace>-<parent>-<flags>} (55 bytes) into {@code out} from {@code at}; returns the end. */
    public static int write(byte[] out, int at, long traceHigh, long traceLow, long parent, int flags) {
        out[at] = '0';
        out[at + 1] = '0';
        out[at + 2] = '-';
        AsciiNumbers.writeHex16(out, at + 3, traceHigh);
        AsciiNumbers.writeHex16(out, at + 19, traceLow);
        out[at + 35] = '-';
        AsciiNumbers.writeHex16(out, at + 36, parent);
        out[at + 52] = '-';
        out[at + 53] = hexDigit(flags >>> 4 & 0xF);
        out[at + 54] = hexDigit(flags & 0xF);
        return at + LENGTH;
    }

    private static byte hexDigit(int d) {
        return (byte) (d < 10 ? '0' + d : 'a' + d - 10);
    }

    /** A {@code tracestate} worth passing on: 1 to 512 visible ASCII characters, spaces, tabs. */
    public static boolean isUsableState(CharSequence s) {
        int n = s.length();
        if (n == 0 || n > MAX_TRACESTATE) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if ((c < ' ' && c != '\t') || c >= 0x7F) {
                return false;
            }
        }
        return true;
    }
}
