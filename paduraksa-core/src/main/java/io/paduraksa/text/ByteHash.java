package io.paduraksa.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * 32-bit hashes of a byte range for the per-thread memos of header values: {@link #hash} in a fixed
 * number of steps (the {@code attacks} policy's clean values), {@link #hashAll} over every byte (the
 * user-agent verdicts). Cheap enough to pay on every request, and only ever a slot index, never a
 * verdict, since every hit is confirmed by a full byte comparison.
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

    /**
     * The hash of {@code b[from, from + n)} by every one of its bytes, for values that differ in a few bytes
     * anywhere (user agents of one browser differ only in their version numbers, which {@link #hash}
     * may not read). Up to 15 bytes it is {@link #hash}, which reads them all. Longer ranges are folded into
     * four lanes of one eight-byte word each per step (a rotate and an exclusive or: no lane waits for
     * another, no multiplication in the loop), the last 32 bytes (or, under 32, the first and the last 16)
     * folded in again to cover the tail, then each lane multiplied and the four mixed once. Every step is
     * a bijection of a lane, so two ranges that differ in one word of the loop never share a hash.
     */
    public static int hashAll(byte[] b, int from, int n) {
        if (n < 2 * Long.BYTES) {
            return hash(b, from, n);
        }
        int end = from + n;
        long h0 = 0x9E3779B97F4A7C15L ^ n;
        long h1 = 0xC2B2AE3D27D4EB4FL;
        long h2 = 0x165667B19E3779F9L;
        long h3 = 0x27D4EB2F165667C5L;
        int i = from;
        for (; end - i > 4 * Long.BYTES; i += 4 * Long.BYTES) {
            h0 = Long.rotateLeft(h0, 29) ^ (long) LONGS.get(b, i);
            h1 = Long.rotateLeft(h1, 29) ^ (long) LONGS.get(b, i + 8);
            h2 = Long.rotateLeft(h2, 29) ^ (long) LONGS.get(b, i + 16);
            h3 = Long.rotateLeft(h3, 29) ^ (long) LONGS.get(b, i + 24);
        }
        // 1-32 bytes are left after i: the last 32 bytes of the range cover them; a range shorter than 32
        // is covered by its first and last 16.
        int tail = n >= 4 * Long.BYTES ? end - 4 * Long.BYTES : from;
        h0 = Long.rotateLeft(h0, 29) ^ (long) LONGS.get(b, tail);
        h1 = Long.rotateLeft(h1, 29) ^ (long) LONGS.get(b, tail + 8);
        h2 = Long.rotateLeft(h2, 29) ^ (long) LONGS.get(b, end - 16);
        h3 = Long.rotateLeft(h3, 29) ^ (long) LONGS.get(b, end - 8);
        long h = h0 * 0xFF51AFD7ED558CCDL ^ Long.rotateLeft(h1 * 0xC4CEB9FE1A85EC53L, 16)
                ^ Long.rotateLeft(h2 * 0x9E3779B97F4A7C15L, 32) ^ Long.rotateLeft(h3 * 0xD6E8FEB86659FD93L, 48);
        h ^= h >>> 32;
        h *= 0xA0761D6478BD642FL;
        return (int) (h ^ h >>> 29);
    }

    private static long mix(long h, long word) {
        long m = (h ^ word) * 0xFF51AFD7ED558CCDL;
        return m ^ m >>> 32;
    }
}
