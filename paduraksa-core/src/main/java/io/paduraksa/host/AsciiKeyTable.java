package io.paduraksa.host;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An open-addressing hash table from lower-case ASCII names to values, read with a range of any
 * {@link CharSequence} whose letters may be in either case. {@link #get} hashes while folding case
 * and compares key bytes in place: it makes no String and allocates nothing. Load factor at most
 * one half, linear probing; immutable after construction.
 */
final class AsciiKeyTable {
    private final byte[][] keys;
    private final int[] hashes;
    private final Object[] values;
    private final int mask;

    /** {@code keys} are distinct, lower-case ASCII. */
    AsciiKeyTable(List<String> keys, List<?> values) {
        int capacity = Integer.highestOneBit(Math.max(2, keys.size()) * 2 - 1) << 1;
        this.keys = new byte[capacity][];
        this.hashes = new int[capacity];
        this.values = new Object[capacity];
        this.mask = capacity - 1;
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            int h = hash(key, 0, key.length());
            int slot = h & mask;
            while (this.keys[slot] != null) {
                slot = (slot + 1) & mask;
            }
            this.keys[slot] = key.getBytes(StandardCharsets.US_ASCII);
            this.hashes[slot] = h;
            this.values[slot] = values.get(i);
        }
    }

    /** The value for {@code s[from, to)}, letters compared case-insensitively, or null. */
    Object get(CharSequence s, int from, int to) {
        int h = hash(s, from, to);
        int slot = h & mask;
        byte[] key;
        while ((key = keys[slot]) != null) {
            if (hashes[slot] == h && matches(key, s, from, to)) {
                return values[slot];
            }
            slot = (slot + 1) & mask;
        }
        return null;
    }

    /** FNV-1a over the case-folded characters, with the high bits folded in for the slot mask. */
    static int hash(CharSequence s, int from, int to) {
        int h = 0x811C9DC5;
        for (int i = from; i < to; i++) {
            h = (h ^ fold(s.charAt(i))) * 0x01000193;
        }
        return h ^ (h >>> 15);
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
