package io.paduraksa.snapshot;

import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A set of header names for per-request membership tests: lower-case names as {@code byte[]},
 * bucketed by length, so that a lookup compares at most the few names of one length, char by
 * char with ASCII letters folded. Optionally every name starting with {@code proxy-} is a member
 * (RFC 9110 section 7.6.1 leaves {@code Proxy-*} fields to the proxy). A set built with
 * {@code foldSeparators} also treats {@code -} and {@code _} as one character, the way CGI, PHP,
 * Django, Rack and some Node frameworks read header names ({@code CF_Connecting_IP} is
 * {@code HTTP_CF_CONNECTING_IP} to them, as {@code CF-Connecting-IP} is). Built once per snapshot;
 * {@link #contains} allocates nothing.
 */
final class HeaderNameSet {
    private static final byte[][] NONE = new byte[0][];
    private static final byte[] PROXY_PREFIX = "proxy-".getBytes(StandardCharsets.US_ASCII);

    private final byte[][][] byLength;
    private final boolean proxyPrefix;
    private final boolean foldSeparators;
    private final List<String> names;
    private final Outline outline;

    private HeaderNameSet(byte[][][] byLength, boolean proxyPrefix, boolean foldSeparators, List<String> names) {
        this.byLength = byLength;
        this.proxyPrefix = proxyPrefix;
        this.foldSeparators = foldSeparators;
        this.names = names;
        this.outline = new Outline(proxyPrefix);
        for (String name : names) {
            outline.add(name);
        }
    }

    /** The set of {@code names} (any case; repeats are kept once), plus {@code proxy-*} when asked. */
    static HeaderNameSet of(Collection<String> names, boolean proxyPrefix) {
        return of(names, proxyPrefix, false);
    }

    /**
     * As {@link #of(Collection, boolean)}; with {@code foldSeparators} a name matches whatever mix
     * of {@code -} and {@code _} it is written with (the names are kept with {@code -}).
     */
    static HeaderNameSet of(Collection<String> names, boolean proxyPrefix, boolean foldSeparators) {
        Set<String> lower = new LinkedHashSet<>();
        int longest = 0;
        for (String name : names) {
            String l = name.toLowerCase(Locale.ROOT);
            if (foldSeparators) {
                l = l.replace('_', '-');
            }
            lower.add(l);
            longest = Math.max(longest, l.length());
        }
        List<List<byte[]>> buckets = new ArrayList<>(longest + 1);
        for (int i = 0; i <= longest; i++) {
            buckets.add(new ArrayList<>());
        }
        for (String l : lower) {
            buckets.get(l.length()).add(l.getBytes(StandardCharsets.US_ASCII));
        }
        byte[][][] byLength = new byte[longest + 1][][];
        for (int i = 0; i <= longest; i++) {
            byLength[i] = buckets.get(i).isEmpty() ? NONE : buckets.get(i).toArray(new byte[0][]);
        }
        return new HeaderNameSet(byLength, proxyPrefix, foldSeparators, List.copyOf(lower));
    }

    /**
     * Whether {@code name} (ASCII, any case) is in the set. Per request; allocates nothing; the name is
     * read as bytes ({@link TextBytes#bytes}) when it has them in an array or can hand them over in one copy.
     */
    boolean contains(CharSequence name) {
        if (!outline.mayContain(name)) {
            return false; // most names: two chars read, nothing copied
        }
        byte[] a = TextBytes.bytes(name);
        return a != null ? contains(a, TextBytes.offset(name, a), name.length()) : containsChars(name);
    }

    /**
     * One bit per (length, first char, last char) of some names, hashed to 1,024: a name whose bit is
     * clear is none of them. Built at compile time, for one set or for several together
     * ({@link #union}); asked per request with two reads instead of the whole name, for the many
     * names no set holds. With the {@code proxy-} rule every name starting with {@code p} may be one.
     */
    static final class Outline {
        private final long[] bits = new long[16];
        private final boolean proxyPrefix;

        private Outline(boolean proxyPrefix) {
            this.proxyPrefix = proxyPrefix;
        }

        /** The names of {@code a} and of {@code b} in one outline. */
        static Outline union(HeaderNameSet a, HeaderNameSet b) {
            Outline u = new Outline(a.proxyPrefix || b.proxyPrefix);
            for (int i = 0; i < u.bits.length; i++) {
                u.bits[i] = a.outline.bits[i] | b.outline.bits[i];
            }
            return u;
        }

        private void add(String name) {
            int bit = bit(name.length(), key(name.charAt(0)), key(name.charAt(name.length() - 1)));
            bits[bit >>> 6] |= 1L << bit;
        }

        /** False when {@code name} is none of the names (true says only that it may be one). Allocates nothing. */
        boolean mayContain(CharSequence name) {
            int n = name.length();
            if (n == 0) {
                return false;
            }
            int first = key(name.charAt(0));
            if (proxyPrefix && first == 'p') {
                return true;
            }
            int bit = bit(n, first, key(name.charAt(n - 1)));
            return (bits[bit >>> 6] & 1L << bit) != 0;
        }

        /**
         * A name's char as the outline reads it: ASCII letters folded to lower case and {@code _} read as
         * {@code -} (the widest folding any set does, so a member's key is always its matches' key); a
         * char above 0xFF (in no set) is cut to its low byte, which can only make {@link #mayContain} say "may".
         */
        private static int key(char c) {
            int b = c & 0xFF;
            if (b >= 'A' && b <= 'Z') {
                return b + ('a' - 'A');
            }
            return b == '_' ? '-' : b;
        }

        private static int bit(int n, int firstKey, int lastKey) {
            return (n * 0x9E3779B1 + firstKey * 0x85EBCA77 + lastKey * 0xC2B2AE3D) >>> 22;
        }
    }

    /** Whether the name in {@code a[offset, offset + n)} (ASCII, any case) is in the set. */
    boolean contains(byte[] a, int offset, int n) {
        if (proxyPrefix && n > PROXY_PREFIX.length && startsWithFolded(PROXY_PREFIX, a, offset, false)) {
            return true;
        }
        if (n >= byLength.length) {
            return false;
        }
        byte[][] bucket = byLength[n];
        for (int i = 0; i < bucket.length; i++) {
            if (startsWithFolded(bucket[i], a, offset, foldSeparators)) {
                return true;
            }
        }
        return false;
    }

    /** {@link #contains(byte[], int, int)} for a name without bytes to read: per char. */
    private boolean containsChars(CharSequence name) {
        int n = name.length();
        if (proxyPrefix && n > PROXY_PREFIX.length && startsWithFolded(PROXY_PREFIX, name, false)) {
            return true;
        }
        if (n >= byLength.length) {
            return false;
        }
        byte[][] bucket = byLength[n];
        for (int i = 0; i < bucket.length; i++) {
            if (startsWithFolded(bucket[i], name, foldSeparators)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code a} from {@code offset} starts with {@code lower}, folding ASCII upper-case
     * letters and, with {@code separators}, reading {@code _} as {@code -}.
     */
    private static boolean startsWithFolded(byte[] lower, byte[] a, int offset, boolean separators) {
        for (int i = 0; i < lower.length; i++) {
            int c = fold(a[offset + i] & 0xFF, separators);
            if (c != lower[i]) {
                return false;
            }
        }
        return true;
    }

    /** As {@link #startsWithFolded(byte[], byte[], int, boolean)} over the chars of {@code s}. */
    private static boolean startsWithFolded(byte[] lower, CharSequence s, boolean separators) {
        for (int i = 0; i < lower.length; i++) {
            if (fold(s.charAt(i), separators) != lower[i]) {
                return false;
            }
        }
        return true;
    }

    private static int fold(int c, boolean separators) {
        if (c >= 'A' && c <= 'Z') {
            return c + ('a' - 'A');
        }
        return separators && c == '_' ? '-' : c;
    }

    /** The lower-case names, in the order first given (without the {@code proxy-} rule); for explain output and tests. */
    List<String> names() {
        return names;
    }

    @Override
    public String toString() {
        return (proxyPrefix ? "proxy-*, " : "") + String.join(", ", names);
    }
}
