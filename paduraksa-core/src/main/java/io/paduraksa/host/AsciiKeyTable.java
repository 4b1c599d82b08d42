package io.paduraksa.host;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An open-addressing hash table from lower-case ASCII names to values, read with a range of any
 * {@link CharSequence} whose letters may be in either case. {@link #get} hashes while folding case
 * and compares key bytes in place: it makes no String and allocates nothing. Load factor at most
 * one half, linear probing; immutable after construction.
 *
 * <p>The hash runs from the last character to the first ({@link #step}), so that a caller walking a
 * name backwards has the hash of every suffix on the way, one step per character, and can look each
 * suffix up with {@link #slot(CharSequence, int, int, int)} without hashing it again.
 */
final class AsciiKeyTable {
    /** The running hash before any character. */
    static final int SEED = 0x811C9DC5;

    private final byte[][] keys;
    private final int[] hashes;
    private final Object[] values;
    private final int mask;
    private final int maxKeyLength;

    /** {@code keys} are distinct, lower-case ASCII. */
    AsciiKeyTable(List<String> keys, List<?> values) {
        int capacity = Integer.highestOneBit(Math.max(2, keys.size()) * 2 - 1) << 1;
        this.keys = new byte[capacity][];
        this.hashes = new int[capacity];
        this.values = new Object[capacity];
        this.mask = capacity - 1;
        int longest = 0;
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            longest = Math.max(longest, key.length());
            int h = finish(hashBackwards(key, 0, key.length()));
            int slot = h & mask;
            while (this.keys[slot] != null) {
                slot = (slot + 1) & mask;
            }
            this.keys[slot] = key.getBytes(StandardCharsets.US_ASCII);
            this.hashes[slot] = h;
            this.values[slot] = values.get(i);
        }
        this.maxKeyLength = longest;
    }

    /** The length of the longest key (0 for an empty table): a longer range cannot be one. */
    int maxKeyLength() {
        return maxKeyLength;
    }

    /** The value for {@code s[from, to)}, letters compared case-insensitively, or null. */
    Object get(CharSequence s, int from, int to) {
        int slot = slot(s, from, to, hashBackwards(s, from, to));
        return slot < 0 ? null : values[slot];
    }

    /**
     * The slot holding {@code s[from, to)}, or -1; {@code running} is {@link #hashBackwards} of that
     * range (the running value of {@link #step}, before {@link #finish}).
     */
    int slot(CharSequence s, int from, int to, int running) {
        int h = finish(running);
        int slot = h & mask;
        byte[] key;
        while ((key = keys[slot]) != null) {
            if (hashes[slot] == h && matches(key, s, from, to)) {
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

    /** FNV-1a's step over one case-folded character; a hash takes the characters last to first. */
    static int step(int running, char c) {
        return (running ^ fold(c)) * 0x01000193;
    }

    /** The running hash of {@code s[from, to)}, last character first. */
    static int hashBackwards(CharSequence s, int from, int to) {
        int h = SEED;
        for (int i = to - 1; i >= from; i--) {
            h = step(h, s.charAt(i));
        }
        return h;
    }

    /** Folds the high bits in for the slot mask. */
    private static int finish(int running) {
        return running ^ (running >>> 15);
    }

    private static boolean matches(byte[] key, CharSequence s, int from, int to) {
        if (key.length != to - from) {
            return false;
        }
        for (int i = 0; i < key.length; i++) {
            if (key[i] != fold(s.charAt(from + i))) {
                return false;
            }
        }
        return true;
    }

    /** Lower-cases ASCII letters only; any other char (including non-ASCII) is returned as is. */
    private static int fold(char c) {
        return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
    }
}
