package io.paduraksa.policy.attack;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Per-thread memo of head values that matched nothing: a browser sends the same User-Agent, Accept,
 * {@code sec-ch-ua} and cookies on every request, and walking them through the automata again is
 * most of what the {@code attacks} policy costs. A value is looked up by its bytes as copied from
 * the request (before any transformation) with the two things the walk depends on, the paranoia
 * level and the part (the rules and automata of a level are shared by every policy, see
 * {@link AttackRules}); a hit is a full byte comparison, never a hash alone, so it answers exactly
 * what the walk would. Only values that no rule matched are kept (none scored, none was excluded,
 * none was passed over for having matched already), so a value that scores is walked (and logged)
 * every time.
 *
 * <p>Bounded: {@link #SLOTS} slots of at most {@link #MAX} bytes each (about 260 KiB per event loop
 * that runs the policy), direct-mapped by a hash of the bytes; a longer value is always walked, and a
 * client that sends a new value in every request only evicts (it then costs the walk plus the hash,
 * no more). Allocated once per thread; per request it allocates nothing.
 */
final class CleanValues {
    /** Values longer than this are not kept. */
    static final int MAX = 256;
    static final int SLOTS = 1024;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] bytes = new byte[SLOTS * MAX];
    /** Per slot: {@link #key} of the value held, 0 when the slot holds none. */
    private final long[] keys = new long[SLOTS];

    /** Whether an {@code n}-byte value of {@code part} may be kept: head parts only (a body's values are walked where they stand). */
    static boolean keeps(int part, int n) {
        return n <= MAX && (part & (Part.ALL | Part.FILE_NAME | Part.ANY_HEADER)) != 0;
    }

    /** The key of {@code b[0, n)} walked as {@code part} at {@code paranoia}: hash, part, level and length; never 0. */
    static long key(byte[] b, int n, int part, int paranoia) {
        return (long) hash(b, n) << 32 | (long) Part.index(part) << 24 | (long) paranoia << 16 | n | 1L << 31;
    }

    /** Whether {@code b[0, n)} under {@code key} was kept as clean. */
    boolean contains(long key, byte[] b, int n) {
        int slot = slot(key);
        return keys[slot] == key && Arrays.equals(bytes, slot * MAX, slot * MAX + n, b, 0, n);
    }

    /**
     * Copies the untransformed {@code b[0, n)} into its slot, which holds nothing until
     * {@link #keep} says the walk found nothing.
     */
    void stage(long key, byte[] b, int n) {
        int slot = slot(key);
        keys[slot] = 0;
        System.arraycopy(b, 0, bytes, slot * MAX, n);
    }

    /** The value staged under {@code key} matched nothing: it is answered from here from now on. */
    void keep(long key) {
        keys[slot(key)] = key;
    }

    private static int slot(long key) {
        return (int) (key >>> 32) & (SLOTS - 1);
    }

    /**
     * A 32-bit hash of {@code b[0, n)}: a value under 16 bytes whole, a longer one by its length and five
     * of its eight-byte words (the first two, the middle one, the last two), so the cost does not grow
     * with the value. Values that differ elsewhere share a slot and, the lookup being a full compare,
     * only evict each other: a client that crafts such values costs itself walks, no wrong answer.
     */
    static int hash(byte[] b, int n) {
        long h = 0x9E3779B97F4A7C15L ^ n;
        if (n >= 2 * Long.BYTES) {
            h = mix(h, (long) LONGS.get(b, 0));
            h = mix(h, (long) LONGS.get(b, Long.BYTES));
            h = mix(h, (long) LONGS.get(b, (n >>> 1) - Long.BYTES / 2));
            h = mix(h, (long) LONGS.get(b, n - 2 * Long.BYTES));
            h = mix(h, (long) LONGS.get(b, n - Long.BYTES));
        } else {
            int i = 0;
            if (n >= Long.BYTES) {
                h = mix(h, (long) LONGS.get(b, 0));
                i = Long.BYTES;
            }
            for (; i < n; i++) {
                h = (h ^ (b[i] & 0xFF)) * 0x100000001B3L;
            }
        }
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return (int) (h ^ h >>> 29);
    }

    private static long mix(long h, long word) {
        long m = (h ^ word) * 0xFF51AFD7ED558CCDL;
        return m ^ m >>> 32;
    }
}
