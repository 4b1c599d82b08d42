package io.paduraksa.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An open-addressing hash table from lower-case ASCII names to values, read with a range of bytes
 * (one char per byte, as {@link HostTable} hands every host text over) whose letters may be in either
 * case. {@link #get} hashes while folding case and compares key bytes in place: it allocates nothing.
 * Load factor at most one half, linear probing; immutable after construction.
 *
 * <p>Two kinds, chosen at construction. A <em>suffix</em> table (the wildcards) hashes from the last
 * byte to the first ({@link #step}), so that a caller walking a name backwards has the hash of every
 * suffix on the way, one step per byte, and can look each suffix up with {@link #slot} without hashing
 * it again. A <em>word</em> table (the exact names) hashes four bytes per step ({@link #wordHash}: a
 * third of the dependent multiplications of the per-byte hash for a name like {@code h123.test}), read
 * as one little-endian int with case folded on all four at once.
 */
final class AsciiKeyTable {
    /** The running hash before any character. */
    static final int SEED = 0x811C9DC5;
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[][] keys;
    private final int[] hashes;
    private final Object[] values;
    private final int mask;
    private final int maxKeyLength;
    private final boolean suffixes;

    /**
     * {@code keys} are distinct, lower-case ASCII. {@code suffixes}: hashed with {@link #step} for
     * {@link #slot}; else with {@link #wordHash}, for {@link #get} only.
     */
    AsciiKeyTable(List<String> keys, List<?> values, boolean suffixes) {
        this.suffixes = suffixes;
        int capacity = Integer.highestOneBit(Math.max(2, keys.size()) * 2 - 1) << 1;
        this.keys = new byte[capacity][];
        this.hashes = new int[capacity];
        this.values = new Object[capacity];
        this.mask = capacity - 1;
        int longest = 0;
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i).getBytes(StandardCharsets.US_ASCII);
            longest = Math.max(longest, key.length);
            int h = finish(suffixes ? hashBackwards(key, 0, key.length) : wordHash(key, 0, key.length));
            int slot = h & mask;
            while (this.keys[slot] != null) {
                slot = (slot + 1) & mask;
            }
            this.keys[slot] = key;
            this.hashes[slot] = h;
            this.values[slot] = values.get(i);
        }
        this.maxKeyLength = longest;
    }

    /** The length of the longest key (0 for an empty table): a longer range cannot be one. */
    int maxKeyLength() {
        return maxKeyLength;
    }

    /** The value for bytes {@code a[from, to)} in a word table, letters compared case-insensitively, or null. */
    Object get(byte[] a, int from, int to) {
        int h = finish(wordHash(a, from, to));
        byte[] key;
        for (int slot = h & mask; (key = keys[slot]) != null; slot = (slot + 1) & mask) {
            if (hashes[slot] == h && matches(key, a, from, to)) {
                return values[slot];
            }
        }
        return null;
    }

    /**
     * The slot of a suffix table holding {@code a[from, to)}, or -1; {@code running} is {@link #hashBackwards}
     * of that range (the running value of {@link #step}, before {@link #finish}).
     */
    int slot(byte[] a, int from, int to, int running) {
        int h = finish(running);
        int slot = h & mask;
        byte[] key;
        while ((key = keys[slot]) != null) {
            if (hashes[slot] == h && matches(key, a, from, to)) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    /** The value in a slot {@link #slot} found. */
    Object value(int slot) {
        return values[slot];
    }

    /** The key in a slot {@link #slot} found, as text (tooling; allocates). */
    String key(int slot) {
        return new String(keys[slot], StandardCharsets.US_ASCII);
    }

    /** FNV-1a's step over one case-folded byte ({@code 0-255}); a hash takes the bytes last to first. */
    static int step(int running, int c) {
        return (running ^ fold(c)) * 0x01000193;
    }

    /** The running hash of {@code a[from, to)}, last byte first. */
    static int hashBackwards(byte[] a, int from, int to) {
        int h = SEED;
        for (int i = to - 1; i >= from; i--) {
            h = step(h, a[i] & 0xFF);
        }
        return h;
    }

    /**
     * The word table's hash of {@code a[from, to)}: the length, then four case-folded bytes per step as
     * one little-endian int, the last one to three zero-padded.
     */
    static int wordHash(byte[] a, int from, int to) {
        int h = SEED ^ (to - from);
        int i = from;
        for (; i + 4 <= to; i += 4) {
            h = mix(h, foldWord((int) INT_LE.get(a, i)));
        }
        if (i < to) {
            int w = 0;
            for (int k = 0; i + k < to; k++) {
                w |= (a[i + k] & 0xFF) << (8 * k);
            }
            h = mix(h, foldWord(w));
        }
        return h;
    }

    private static int mix(int h, int word) {
        return Integer.rotateLeft((h ^ word) * 0x9E3779B1, 15);
    }

    /**
     * Lower-cases the ASCII letters among four bytes at once: a byte in {@code A-Z} (0x41-0x5A) gets
     * bit 0x20, every other byte (digits, dots, bytes from 0x80) is left as it is. Per byte, on its low
     * seven bits {@code x}: {@code x + 0x3F} reaches 0x80 from {@code A} on, {@code x + 0x25} from
     * just past {@code Z} on; neither sum carries into the next byte.
     */
    static int foldWord(int w) {
        int x = w & 0x7F7F7F7F;
        int upper = (x + 0x3F3F3F3F) & ~(x + 0x25252525) & ~w & 0x80808080;
        return w | upper >>> 2;
    }

    private static boolean matches(byte[] key, byte[] a, int from, int to) {
        int n = key.length;
        if (n != to - from) {
            return false;
        }
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            if (foldWord((int) INT_LE.get(a, from + i)) != (int) INT_LE.get(key, i)) {
                return false;
            }
        }
        for (; i < n; i++) {
            if (key[i] != fold(a[from + i] & 0xFF)) {
                return false;
            }
        }
        return true;
    }

    /** Folds the high bits in for the slot mask. */
    private static int finish(int running) {
        return running ^ (running >>> 15);
    }

    /** Lower-cases ASCII letters only; any other byte (including non-ASCII) is returned as is. */
    private static int fold(int c) {
        return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
    }
}
