package io.paduraksa.policy;

import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.text.ValueSlots;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

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
 *
 * <p>The neighbour: the last value this thread found clean is kept too (its bytes, at most {@link #MAX}),
 * since a value mostly differs from the one before it in a few bytes or none (one client's requests, the
 * version numbers of one browser). A needle that occurs in the new value but not in the neighbour must overlap
 * where the two differ, so {@link #window} gives the scan only that part, widened by the longest needle. It is
 * asked first: the neighbour itself (or a prefix of it) is clean at once, a value whose window is at most half
 * of it is scanned there without the memo (cheaper than the hash and comparison of the whole value), and any
 * other value goes to the memo and, when the memo does not hold it, is scanned over its window.
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
    /** The last value found clean under {@link #neighbourNeedles}, its first {@link #neighbourLength} bytes; -1: none. */
    private final byte[] neighbour = new byte[MAX];
    private int neighbourLength = -1;
    private int neighbourNeedles;

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

    /**
     * The part of {@code b[from, from + n)} ({@code n <= MAX}) where a needle of set {@code needles}, none longer
     * than {@code reach + 1} bytes, can occur, as {@code start << 32 | end} relative to {@code from}: all of it
     * when this thread has no clean neighbour under that set, nothing (0) when the value is the neighbour or a
     * prefix of it, else what differs from the neighbour widened by {@code reach} on each side. The proof: the
     * value and its neighbour share a prefix of p bytes and a suffix of q bytes, with p + q at most either length
     * (the suffix counted only after the prefix, so that the window is never inverted). An occurrence at
     * [s, s + L) that ends inside the prefix (s + L <= p) or starts inside the suffix (s >= n - q) is an
     * occurrence in the neighbour, which has none; every other one has p - L < s < n - q, so it lies inside
     * [p - reach, n - q + reach), clipped to [0, n). The window's own ends are treated as the value's ends by the
     * scan, which only lets more through.
     */
    long window(int needles, int reach, byte[] b, int from, int n) {
        int m = neighbourLength;
        if (m < 0 || neighbourNeedles != needles) {
            return n;
        }
        int common = Math.min(m, n);
        int p = commonPrefix(neighbour, b, from, common);
        if (p == n) {
            return 0; // the neighbour or a prefix of it: nothing to scan
        }
        int q = commonSuffix(neighbour, m, b, from + n, common - p);
        return (long) Math.max(0, p - reach) << 32 | Math.min(n, n - q + reach);
    }

    /**
     * Keeps {@code b[from, from + n)} ({@code n <= MAX}), just found clean under {@code needles}, as the neighbour;
     * its first {@code same} bytes are known to equal the neighbour's already (the prefix {@link #window} found, or 0).
     */
    void clean(int needles, byte[] b, int from, int n, int same) {
        System.arraycopy(b, from + same, neighbour, same, n - same);
        neighbourLength = n;
        neighbourNeedles = needles;
    }

    /**
     * How many bytes {@code a[0, ..)} and {@code b[from, ..)} have in common at their starts, at most {@code max}:
     * {@code Arrays.mismatch}, whose vector loop the JIT inlines (an eight-byte loop in line cost 12-17 ns more per
     * gate call when the value is the neighbour itself, 111 bytes; docs/benchmarks.md).
     */
    static int commonPrefix(byte[] a, byte[] b, int from, int max) {
        int p = Arrays.mismatch(a, 0, max, b, from, from + max);
        return p < 0 ? max : p;
    }

    /** How many bytes {@code a[.., aEnd)} and {@code b[.., bEnd)} have in common at their ends, at most {@code max}. */
    static int commonSuffix(byte[] a, int aEnd, byte[] b, int bEnd, int max) {
        int q = 0;
        for (; q + Long.BYTES <= max; q += Long.BYTES) {
            long x = (long) LONGS.get(a, aEnd - q - Long.BYTES) ^ (long) LONGS.get(b, bEnd - q - Long.BYTES);
            if (x != 0) {
                // Little-endian: the word's last byte is its most significant.
                return q + (Long.numberOfLeadingZeros(x) >>> 3);
            }
        }
        while (q < max && a[aEnd - q - 1] == b[bEnd - q - 1]) {
            q++;
        }
        return q;
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final int UNKNOWN = 0;
    static final int NOT_FOUND = 1;
    static final int FOUND = 2;
    /** Bit 29 of a noted key: offered once, its bytes not kept yet (the length takes at most the low 10 bits). */
    private static final long SEEN = 1L << 29;
}
