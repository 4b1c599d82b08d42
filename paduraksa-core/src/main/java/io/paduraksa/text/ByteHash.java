package io.paduraksa.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A 32-bit hash of a byte range in a fixed number of steps, for the per-thread memos of header
 * values (the {@code attacks} policy's clean values, the user-agent verdicts): cheap enough to pay
 * on every request, and only ever a slot index, never a verdict, since every hit is confirmed by a
 * full byte comparison.
 */
public final class ByteHash {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private ByteHash() {
    }

    /**
     * The hash of {@code b[from, from + n)}: a range of 16 bytes or more by its length and five of its
     * eight-byte words (the first two, the middle one, the last two), a shorter one whole, by two words
     * that may overlap (8-15 bytes: the first and the last eight; 4-7: the first and the last four; 1-3:
     * the first, middle and last byte). Ranges that differ elsewhere share a hash: a client that crafts
     * such values only makes them evict each other from a memo, which costs it the work the memo saves.
     */
    public static int hash(byte[] b, int from, int n) {
        long h = 0x9E3779B97F4A7C15L ^ n;
        if (n >= 2 * Long.BYTES) {
            // Five independent products (no chain from one word to the next), then one mix.
            int end = from + n;
            h ^= (long) LONGS.get(b, from) * 0xFF51AFD7ED558CCDL
                    ^ Long.rotateLeft((long) LONGS.get(b, from + Long.BYTES) * 0xC4CEB9FE1A85EC53L, 13)
                    ^ Long.rotateLeft((long) LONGS.get(b, from + (n >>> 1) - Long.BYTES / 2) * 0x9E3779B97F4A7C15L, 26)
                    ^ Long.rotateLeft((long) LONGS.get(b, end - 2 * Long.BYTES) * 0xD6E8FEB86659FD93L, 39)
                    ^ Long.rotateLeft((long) LONGS.get(b, end - Long.BYTES) * 0xA0761D6478BD642FL, 52);
            h = mix(h, n);
        } else if (n >= Long.BYTES) {
            h = mix(h, (long) LONGS.get(b, from));
            h = mix(h, (long) LONGS.get(b, from + n - Long.BYTES));
        } else if (n >= Integer.BYTES) {
            h = mix(h, ((int) INTS.get(b, from) & 0xFFFFFFFFL) << 32 | (int) INTS.get(b, from + n - Integer.BYTES) & 0xFFFFFFFFL);
        } else if (n > 0) {
            h = mix(h, (b[from] & 0xFF) << 16 | (b[from + (n >>> 1)] & 0xFF) << 8 | b[from + n - 1] & 0xFF);
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
