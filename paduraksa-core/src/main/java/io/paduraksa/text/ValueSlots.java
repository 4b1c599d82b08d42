package io.paduraksa.text;

import java.util.Arrays;

/**
 * Direct-mapped slots of short byte values under 64-bit keys: the storage of the per-thread memos of
 * header values (the {@code attacks} policy's clean values, the user-agent verdicts, the client-IP
 * texts). The high 32 bits of a key ({@link #key}: a hash of the bytes) pick the slot, the low 32 are
 * the memo's own and must include the value's length; 0 is no key (an empty slot). A value is found by
 * its exact key and a full comparison of its bytes, never by the key alone, so two values of one hash
 * only evict each other. What a memo keeps about a value (a verdict, an address) lives in its own arrays,
 * indexed by {@link #slot}.
 *
 * <p>Bounded by construction ({@code slots x max} bytes); not thread-safe: one per thread. Nothing is
 * allocated after construction.
 */
public final class ValueSlots {
    private final int max;
    private final int mask;
    private final byte[] bytes;
    private final long[] keys;

    /** {@code slots} (a power of two) slots of at most {@code max} bytes each. */
    public ValueSlots(int slots, int max) {
        if (Integer.bitCount(slots) != 1 || max <= 0) {
            throw new IllegalArgumentException("slots " + slots + " (a power of two), max " + max);
        }
        this.max = max;
        this.mask = slots - 1;
        this.bytes = new byte[slots * max];
        this.keys = new long[slots];
    }

    /** A key: {@code hash} picks the slot, {@code low} (under 2^31, with the value's length in it) is the memo's; never 0. */
    public static long key(int hash, int low) {
        return (long) hash << 32 | 1L << 31 | low & 0x7FFFFFFFL;
    }

    /** The slot a value under {@code key} is kept in. */
    public int slot(long key) {
        return (int) (key >>> 32) & mask;
    }

    /** Whether {@code slot} holds {@code b[from, from + n)} under exactly {@code key}. */
    public boolean holds(int slot, long key, byte[] b, int from, int n) {
        return keys[slot] == key && Arrays.equals(bytes, slot * max, slot * max + n, b, from, from + n);
    }

    /** The key {@code slot} holds, 0 for none. */
    public long keyAt(int slot) {
        return keys[slot];
    }

    /** Puts {@code key} on {@code slot}, its bytes unchanged (0 empties it; a marker key holds no value of its own). */
    public void key(int slot, long key) {
        keys[slot] = key;
    }

    /** Copies {@code b[from, from + n)} ({@code n <= max}) into {@code slot} under {@code key} (0: staged, keyed later). */
    public void put(int slot, long key, byte[] b, int from, int n) {
        System.arraycopy(b, from, bytes, slot * max, n);
        keys[slot] = key;
    }
}
