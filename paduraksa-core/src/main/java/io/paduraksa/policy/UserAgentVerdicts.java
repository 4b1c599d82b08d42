package io.paduraksa.policy;

import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.text.ValueSlots;

/**
 * Per-thread memo of user-agent verdicts: a browser sends the same {@code User-Agent} on every
 * request, and a server sees few distinct ones, so the needle scan of {@link UserAgentPolicy} is
 * answered from here for a value seen before: a hash of its bytes and one comparison instead of the
 * scan (docs/benchmarks.md has the gate before and after). A verdict is kept under the value's bytes and the compiled needle set that found it
 * (each compile has its own {@link UserAgentPolicy.Needles#id}, so a reload never reads an old
 * verdict); a hit is a full byte comparison, never the hash alone, so it answers exactly what the
 * scan would.
 *
 * <p>Bounded: {@link #SLOTS} direct-mapped slots ({@link ValueSlots}) of at most {@link #MAX} bytes (128 KiB per event
 * loop that runs the policy); a longer value is always scanned. A value is kept the second time in a
 * row it is scanned in its slot ({@link #offer}), so a client that sends a new value in every request
 * costs the hash and one store on top of the scan, and values crafted to share a slot with a popular
 * one only evict it: never a wrong answer. Allocated once per thread; nothing per request.
 */
final class UserAgentVerdicts {
    /** Values longer than this are scanned every time. */
    static final int MAX = 512;
    static final int SLOTS = 256;
    private static final FastThreadLocal<UserAgentVerdicts> CURRENT = new FastThreadLocal<>() {
        @Override
        protected UserAgentVerdicts initialValue() {
            return new UserAgentVerdicts();
        }
    };

    private final ValueSlots slots = new ValueSlots(SLOTS, MAX);
    /** Per slot: the {@link UserAgentPolicy.Needles#id} whose verdict (or note, {@link #SEEN}) it holds. */
    private final int[] needleSets = new int[SLOTS];
    /** Per slot: the value held holds a needle. */
    private final boolean[] found = new boolean[SLOTS];
    /** Where a value that is not in an array (a view over a request buffer) is copied to be hashed and scanned. */
    final byte[] scratch = new byte[MAX];

    static UserAgentVerdicts current() {
        return CURRENT.get();
    }

    /** The lookup key of an {@code n}-byte value with {@code hash}. */
    static long key(int hash, int n) {
        return ValueSlots.key(hash, n);
    }

    /**
     * The verdict kept for {@code b[from, from + n)} under {@code key} and needle set {@code needles}:
     * {@link #FOUND}, {@link #NOT_FOUND}, or {@link #UNKNOWN} when the slot holds another value.
     */
    int lookup(long key, int needles, byte[] b, int from, int n) {
        int slot = slots.slot(key);
        if (needleSets[slot] != needles || !slots.holds(slot, key, b, from, n)) {
            return UNKNOWN;
        }
        return found[slot] ? FOUND : NOT_FOUND;
    }

    /**
     * Offers the verdict {@code found} of {@code b[from, from + n)} ({@code n <= MAX}), just scanned, under
     * {@code key} and {@code needles}. A value is kept the second time in a row its key is offered to its
     * slot; the first time only the key is noted (with {@link #SEEN}, which no lookup key has), so a client
     * that sends a new value in every request costs the hash and one store, not a copy of its bytes.
     */
    void offer(long key, int needles, byte[] b, int from, int n, boolean found) {
        int slot = slots.slot(key);
        if (slots.keyAt(slot) != (key | SEEN) || needleSets[slot] != needles) {
            slots.key(slot, key | SEEN);
            needleSets[slot] = needles;
            return;
        }
        slots.put(slot, key, b, from, n);
        this.found[slot] = found;
    }

    static final int UNKNOWN = 0;
    static final int NOT_FOUND = 1;
    static final int FOUND = 2;
    /** Bit 29 of a noted key: offered once, its bytes not kept yet (the length takes at most the low 10 bits). */
    private static final long SEEN = 1L << 29;
}
