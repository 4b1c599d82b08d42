package io.paduraksa.gate;

import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.net.IpParser;
import io.paduraksa.text.ByteHash;
import io.paduraksa.text.TextBytes;
import io.paduraksa.text.ValueSlots;

/**
 * Per-thread memo of client-IP header values ({@code CF-Connecting-IP} and the like) and what
 * {@link IpParser} made of them: a client's requests arrive one after another (a page and its
 * assets), so the same text is parsed again and again on one event loop. A value is looked up by its
 * hash and answered after a full byte comparison with the text kept in its slot, so a hit says exactly
 * what the parser would, an address or "not an address".
 *
 * <p>Bounded: {@link #SLOTS} direct-mapped slots ({@link ValueSlots}) of {@link IpParser#MAX_PARSE_LENGTH} bytes (about
 * 4 KiB per event loop); a longer value is no address and is refused by the parser unread. A client that
 * sends a new value every time only evicts: it costs the hash and a copy of at most 45 bytes on top of
 * the parse. Allocated once per thread; nothing per request.
 */
final class ClientIpMemo {
    static final int SLOTS = 64;
    private static final int MAX = IpParser.MAX_PARSE_LENGTH;
    private static final FastThreadLocal<ClientIpMemo> CURRENT = new FastThreadLocal<>() {
        @Override
        protected ClientIpMemo initialValue() {
            return new ClientIpMemo();
        }
    };

    private final ValueSlots slots = new ValueSlots(SLOTS, MAX);
    /** Per slot: the text held is an address, and its high and low 64 bits. */
    private final boolean[] address = new boolean[SLOTS];
    private final long[] high = new long[SLOTS];
    private final long[] low = new long[SLOTS];

    static ClientIpMemo current() {
        return CURRENT.get();
    }

    /**
     * {@link IpParser#parse(CharSequence, int, int, long[])} of the whole of {@code value}: true with the
     * address in {@code out[0]} (high 64 bits) and {@code out[1]}, or false with {@code out} untouched.
     */
    boolean parse(CharSequence value, long[] out) {
        int n = value.length();
        if (n == 0 || n > MAX) {
            return false; // no address is empty or longer than MAX: what the parser answers unread
        }
        byte[] b = TextBytes.bytes(value); // in place, or copied once (MAX fits its scratch)
        if (b == null) {
            return IpParser.parse(value, 0, n, out); // a char above 0xFF: no address, and nothing to remember
        }
        int from = TextBytes.offset(value, b);
        long key = ValueSlots.key(ByteHash.hash(b, from, n), n);
        int slot = slots.slot(key);
        if (slots.holds(slot, key, b, from, n)) {
            if (!address[slot]) {
                return false;
            }
            out[0] = high[slot];
            out[1] = low[slot];
            return true;
        }
        boolean parsed = IpParser.parse(b, from, from + n, out);
        slots.put(slot, key, b, from, n);
        address[slot] = parsed;
        if (parsed) {
            high[slot] = out[0];
            low[slot] = out[1];
        }
        return parsed;
    }
}
