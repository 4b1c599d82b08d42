package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Immutable copies of the field names and values HTTP/1.1 clients send, found again by their bytes,
 * so that putting a client's field into an HTTP/2 header block allocates nothing once its text was
 * seen. A view over the client's bytes cannot go into the block: Netty's HPACK encoder keeps the
 * name and value objects of every field it adds to its dynamic table ("the given CharSequences must
 * be immutable"), and a copy per field cost about 177 B per field and request (an AsciiString and
 * its array for the name, another for its lower-case form, one for the value, and the header map's
 * entry: 1,416 B for a request with eight fields, measured before this table).
 *
 * <p>One table per event loop ({@link #current}), direct-mapped: a slot holds the last text that
 * hashed to it. A miss copies the bytes once and takes over the slot; the text it replaces stays valid
 * wherever HPACK still holds it, since nothing here is ever changed. Names are lower-cased (RFC 9113
 * 8.2.1). Texts longer than {@link #MAX_NAME} or {@link #MAX_VALUE} bytes are copied each time and not
 * kept, so a table holds at most {@code NAME_SLOTS * MAX_NAME + VALUE_SLOTS * MAX_VALUE} bytes
 * (1 MiB and 32 KiB) of texts. Touched only by its thread.
 */
final class Http2FieldCache {
    static final int NAME_SLOTS = 256;
    static final int VALUE_SLOTS = 512;
    static final int MAX_NAME = 128;
    static final int MAX_VALUE = 2048;
    private static final FastThreadLocal<Http2FieldCache> CACHES = new FastThreadLocal<>() {
        @Override
        protected Http2FieldCache initialValue() {
            return new Http2FieldCache();
        }
    };

    private final AsciiString[] names = new AsciiString[NAME_SLOTS];
    private final int[] nameHashes = new int[NAME_SLOTS];
    private final AsciiString[] values = new AsciiString[VALUE_SLOTS];
    private final int[] valueHashes = new int[VALUE_SLOTS];

    /** The calling thread's table (its event loop's). */
    static Http2FieldCache current() {
        return CACHES.get();
    }

    /** The lower-case name {@code [from, to)} of {@code buf}. */
    AsciiString name(ByteBuf buf, int from, int to) {
        int h = 0;
        for (int i = from; i < to; i++) {
            h = 31 * h + lower(buf.getByte(i));
        }
        int slot = spread(h) & (NAME_SLOTS - 1);
        AsciiString known = names[slot];
        if (known != null && nameHashes[slot] == h && same(known, buf, from, to, true)) {
            return known;
        }
        int n = to - from;
        byte[] copy = new byte[n];
        for (int i = 0; i < n; i++) {
            copy[i] = lower(buf.getByte(from + i));
        }
        AsciiString made = new AsciiString(copy, false);
        if (n <= MAX_NAME) {
            names[slot] = made;
            nameHashes[slot] = h;
        }
        return made;
    }

    /** The value {@code [from, to)} of {@code buf}, as sent. */
    AsciiString value(ByteBuf buf, int from, int to) {
        int n = to - from;
        if (n > MAX_VALUE) {
            byte[] copy = new byte[n];
            buf.getBytes(from, copy);
            return new AsciiString(copy, false);
        }
        int h = 0;
        for (int i = from; i < to; i++) {
            h = 31 * h + buf.getByte(i);
        }
        int slot = spread(h) & (VALUE_SLOTS - 1);
        AsciiString known = values[slot];
        if (known != null && valueHashes[slot] == h && same(known, buf, from, to, false)) {
            return known;
        }
        byte[] copy = new byte[n];
        buf.getBytes(from, copy);
        AsciiString made = new AsciiString(copy, false);
        values[slot] = made;
        valueHashes[slot] = h;
        return made;
    }

    private static int spread(int h) {
        return h ^ (h >>> 16);
    }

    private static byte lower(byte b) {
        return b >= 'A' && b <= 'Z' ? (byte) (b + 32) : b;
    }

    /** Whether {@code known} holds the bytes {@code [from, to)} of {@code buf}, lower-cased first when {@code fold}. */
    private static boolean same(AsciiString known, ByteBuf buf, int from, int to, boolean fold) {
        if (known.length() != to - from) {
            return false;
        }
        byte[] a = known.array();
        int o = known.arrayOffset() - from;
        for (int i = from; i < to; i++) {
            byte b = buf.getByte(i);
            if (a[o + i] != (fold ? lower(b) : b)) {
                return false;
            }
        }
        return true;
    }
}
