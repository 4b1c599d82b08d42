package io.paduraksa.policy;

import io.netty.util.AsciiString;
import io.paduraksa.text.AsciiText;
import io.paduraksa.text.ByteHash;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Denies requests whose {@code User-Agent} contains one of many needles, ASCII case-insensitively,
 * and optionally those without a User-Agent. Per request {@link #evaluate} reads the header once
 * and runs a byte-pair prefilter over it (see {@link Needles}); only positions whose two bytes
 * start or continue some needle are compared in place. A value this thread scanned before is
 * answered from its {@link UserAgentVerdicts} instead, and one close to the last clean value is scanned
 * only where it differs from it. 0 B allocated.
 *
 * <p>Needles are encoded as UTF-8 (a header carries one char per byte, so a non-ASCII needle
 * matches its UTF-8 bytes); ASCII letters are folded to lower case on both sides, other bytes match
 * only themselves.
 */
public final class UserAgentPolicy extends NamedPolicy {

    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");

    private final boolean denyEmpty;
    private final PolicyDecision denied;
    private final Needles needles;

    /**
     * @param denyNeedles substrings that deny (non-empty, case-insensitive for ASCII letters)
     * @param denyEmpty   also deny a request without a User-Agent or with an empty one
     * @param denied      what a denial returns
     * @throws IllegalArgumentException for an empty or null needle
     */
    public UserAgentPolicy(String name, List<String> denyNeedles, boolean denyEmpty, PolicyDecision denied) {
        super(requireNonNull(name, "name"));
        this.denied = requireNonNull(denied, "denied decision");
        this.denyEmpty = denyEmpty;
        this.needles = Needles.compile(name, denyNeedles);
    }

    /** Runs per request on the event loop; 0 B. */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        CharSequence userAgent = request.header(USER_AGENT);
        if (userAgent == null || userAgent.length() == 0) {
            return denyEmpty ? denied : PolicyDecision.CONTINUE;
        }
        return needles.occurIn(userAgent) ? denied : PolicyDecision.CONTINUE;
    }

    /**
     * Some needle occurs in {@code userAgent} (ASCII case-insensitive), by the scan alone: explain output
     * (which must not fill an event loop's memo) and the tests that check the scan. 0 B.
     */
    public boolean matches(CharSequence userAgent) {
        return needles.scan(userAgent);
    }

    @Override
    public String toString() {
        return "UserAgentPolicy[" + name + ", " + needles.folded.length + " needles, stride " + needles.stride
                + ", " + needles.entries.length + " pair entries" + (denyEmpty ? ", deny empty" : "") + " -> " + denied + ']';
    }

    private static <T> T requireNonNull(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException("user_agent policy: " + what + " is null");
        }
        return value;
    }

    /**
     * The needles and a byte-pair prefilter over them. The filter is a 65,536-bit set of the raw
     * (unfolded, both letter cases) pairs that occur at offsets {@code 0 .. stride-1} of some needle,
     * where {@code stride} is the shortest needle's length minus one (at most {@value #MAX_STRIDE}).
     * Every occurrence of a needle therefore covers a pair starting at a multiple of {@code stride},
     * so the scan looks only at those positions: one load and one bit test each, and no
     * iteration depends on the one before (the Aho-Corasick DFA this replaced chained one dependent
     * table load per byte: 145-150 ns against 95-115 ns on a 111-byte Chrome user agent, 378 against
     * 150-285 ns on a 267-byte mobile one, in one {@code UserAgentBenchmark} run with 30 needles).
     * A pair's key is its bytes as a little-endian number ({@code b0 | b1 << 8}), so that at a position
     * with a byte on each side one four-byte little-endian load gives the pair (its low 16 bits) and the
     * byte after it (docs/benchmarks.md: 0.80x the time of two byte loads per position on a Chrome agent).
     * A set bit leads, through a rank (set bits before each word) and a popcount, to the list of
     * (needle, offset) entries for that pair, and each entry is compared in place.
     *
     * <p>Third-byte filter: most of those false candidates share their pair with a needle but not
     * the byte next to it ("Mo"zilla against "mo"rfeus). So each sampled pair of a needle also records
     * one neighbour inside the needle: the byte after it, or, for the needle's last pair, the byte before
     * it. {@code right[b]} and {@code left[b]} hold, as bit {@link #thirdClass} of the pair, the pairs with
     * neighbour b; the scan ANDs the pair's bitset word with {@code right[next] | left[previous]} and tests
     * the same bit, with no extra branch. No occurrence is lost: the pair an occurrence puts on a
     * scanned position is one of its needle's sampled pairs, whose recorded neighbour is inside the
     * occurrence; the first scanned position (nothing before it) only needs {@code right}, the last
     * (nothing after it) only {@code left}, and a two-byte needle's class is set under every byte.
     * Sharing a bit modulo 64 only lets more positions through to the compare, never fewer.
     * One-byte needles cannot be found through pairs; they have their own 256-bit set, tested on
     * every byte, only when such needles exist.
     *
     * <p>{@link AsciiString} (HTTP/2 header values) is read from its backing array; other
     * {@code CharSequence}s (the HTTP/1.1 view over the inbound buffer) through {@code charAt}. A char
     * above 255 (only from a decoded String, never from a header) matches no needle byte.
     */
    static final class Needles {
        /** Longer strides set more bits and gain little: user agents are short. */
        static final int MAX_STRIDE = 8;
        private static final int OFFSET_BITS = 3;
        private static final int OFFSET_MASK = (1 << OFFSET_BITS) - 1;
        /** The third-byte mask of a position with no byte on either side: the pair decides alone. */
        private static final long ANY_THIRD = -1L;
        private static final AtomicInteger IDS = new AtomicInteger();
        private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

        private final byte[][] folded;
        /** 1,024 words: bit {@code b0 | b1 << 8} is set when bytes b0 b1 may start a sampled pair of a needle. */
        private final long[] pairs;
        /** Number of set bits in {@code pairs} words before each word. */
        private final int[] rank;
        /** Per set bit (in bit order) the first index into {@code entries}; one more element at the end. */
        private final int[] bucketStart;
        /** {@code needle << OFFSET_BITS | offset of the pair in that needle}. */
        private final int[] entries;
        /** Distance between the scanned positions; 0 when no needle has two or more bytes. */
        private final int stride;
        /** The longest needle's length minus one: how far an occurrence reaches past one of its bytes. */
        private final int reach;
        /** 4 words over byte values (both letter cases) of one-byte needles, or null when there are none. */
        private final long[] singles;
        /**
         * Per byte value b: bit {@code c} is set when some sampled pair whose second byte is {@code c} modulo 64
         * is followed by b in its needle ({@code right}) or preceded by b ({@code left}); see the class comment.
         */
        private final long[] right;
        private final long[] left;
        /** This compile's own number, under which {@link UserAgentVerdicts} keeps its verdicts. */
        final int id = IDS.incrementAndGet();

        private Needles(byte[][] folded, long[] pairs, int[] bucketStart, int[] entries, int stride, long[] singles,
                long[] right, long[] left) {
            this.folded = folded;
            this.pairs = pairs;
            this.rank = ranks(pairs);
            this.bucketStart = bucketStart;
            this.entries = entries;
            this.stride = stride;
            this.reach = Arrays.stream(folded).mapToInt(needle -> needle.length - 1).max().orElse(0);
            this.singles = singles;
            this.right = right;
            this.left = left;
        }

        /**
         * Some needle occurs in {@code s}. A value of at most {@link UserAgentVerdicts#MAX} bytes in an array
         * ({@link AsciiString}) or a request view ({@link AsciiText}, copied out once) is answered from this
         * thread's {@link UserAgentVerdicts} when it was kept there, and otherwise scanned (only where it differs
         * from the last value found clean, {@link UserAgentVerdicts#window}) and offered to it; a longer one, or
         * any other {@code CharSequence}, is scanned where it stands.
         */
        boolean occurIn(CharSequence s) {
            int n = s.length();
            if (n > UserAgentVerdicts.MAX || !(s instanceof AsciiString || s instanceof AsciiText)) {
                return scan(s);
            }
            UserAgentVerdicts verdicts = UserAgentVerdicts.current();
            byte[] b;
            int from;
            if (s instanceof AsciiString a) {
                b = a.array();
                from = a.arrayOffset();
            } else {
                b = verdicts.scratch;
                from = 0;
                ((AsciiText) s).copyTo(0, b, 0, n);
            }
            long window = verdicts.window(id, reach, b, from, n);
            int start = (int) (window >>> 32);
            int end = (int) window;
            boolean found;
            if (2 * (end - start) <= n) {
                // Near the clean neighbour (the same value: an empty window): scanning where they differ costs
                // less than the memo's hash and comparison of the whole value.
                if (start == end) {
                    return false;
                }
                found = occurIn(b, from + start, end - start);
            } else {
                long key = UserAgentVerdicts.key(ByteHash.hashAll(b, from, n), n);
                int kept = verdicts.lookup(key, id, b, from, n);
                if (kept != UserAgentVerdicts.UNKNOWN) {
                    return kept == UserAgentVerdicts.FOUND;
                }
                found = occurIn(b, from + start, end - start);
                verdicts.offer(key, id, b, from, n, found);
            }
            if (!found) {
                // The window starts reach bytes before the end of the prefix shared with the neighbour, when it has one.
                verdicts.clean(id, b, from, n, start > 0 ? start + reach : 0);
            }
            return found;
        }

        /** Some needle occurs in {@code s}, by the scan, without the memo. */
        boolean scan(CharSequence s) {
            if (s instanceof AsciiString a) {
                return occurIn(a.array(), a.arrayOffset(), a.length());
            }
            return (singles != null && anySingle(s)) || (stride != 0 && anyPair(s));
        }

        private boolean occurIn(byte[] a, int offset, int length) {
            return (singles != null && anySingle(a, offset, length)) || (stride != 0 && anyPair(a, offset, length));
        }

        private boolean anyPair(CharSequence s) {
            long[] bits = pairs;
            int step = stride;
            int n = s.length();
            for (int i = 0, last = n - 1; i < last; i += step) {
                // A char above 255 garbles the key; the compare rejects it, and a true match has none.
                int key = (s.charAt(i) | s.charAt(i + 1) << 8) & 0xFFFF;
                if ((bits[key >>> 6] & 1L << key) != 0 && (third(s, n, i) & 1L << thirdClass(key)) != 0
                        && verify(s, n, i, key)) {
                    return true;
                }
            }
            return false;
        }

        private boolean anyPair(byte[] a, int offset, int length) {
            int step = stride;
            int end = offset + length;
            int i = offset;
            if (i < end - 1 && pairAt(a, offset, end, i)) {
                return true;
            }
            // The stride as a constant at each call, so that the compiler sees a counted loop.
            i = switch (step) {
                case 1 -> interior(a, offset, end, i + 1, 1);
                case 2 -> interior(a, offset, end, i + 2, 2);
                case 3 -> interior(a, offset, end, i + 3, 3);
                case 4 -> interior(a, offset, end, i + 4, 4);
                case 5 -> interior(a, offset, end, i + 5, 5);
                case 6 -> interior(a, offset, end, i + 6, 6);
                case 7 -> interior(a, offset, end, i + 7, 7);
                default -> interior(a, offset, end, i + step, step);
            };
            if (i < 0) {
                return true;
            }
            for (int last = end - 1; i < last; i += step) {
                if (pairAt(a, offset, end, i)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Scans positions {@code i, i + step, ...} that have a byte before them and four bytes from them inside
         * {@code [offset, end)}: one load gives the pair (low 16 bits) and the byte after it (bits 16-23).
         * Returns -1 when a needle occurs, else the first position not scanned.
         */
        private int interior(byte[] a, int offset, int end, int i, int step) {
            long[] bits = pairs;
            for (; i <= end - Integer.BYTES; i += step) {
                int x = (int) INTS.get(a, i);
                int key = x & 0xFFFF;
                if ((bits[key >>> 6] & 1L << key) != 0
                        && ((right[x >>> 16 & 0xFF] | left[a[i - 1] & 0xFF]) & 1L << thirdClass(key)) != 0
                        && verify(a, offset, end - offset, i - offset, key)) {
                    return -1;
                }
            }
            return i;
        }

        /** The pair at {@code a[i]} (any position with a byte after it) starts an occurrence of a needle. */
        private boolean pairAt(byte[] a, int offset, int end, int i) {
            int key = a[i] & 0xFF | (a[i + 1] & 0xFF) << 8;
            return (pairs[key >>> 6] & 1L << key) != 0 && (third(a, offset, end, i) & 1L << thirdClass(key)) != 0
                    && verify(a, offset, end - offset, i - offset, key);
        }

        /**
         * The third-byte classes the neighbours of the pair at {@code a[i]} allow: {@code right} of the
         * byte after it, {@code left} of the byte before it, each only where that byte is inside
         * {@code [offset, end)}; a pair with neither neighbour (the whole input) allows every class.
         */
        private long third(byte[] a, int offset, int end, int i) {
            long classes = i + 2 < end ? right[a[i + 2] & 0xFF] : 0;
            classes |= i > offset ? left[a[i - 1] & 0xFF] : 0;
            return i + 2 < end || i > offset ? classes : ANY_THIRD;
        }

        private long third(CharSequence s, int n, int i) {
            long classes = i + 2 < n ? right[s.charAt(i + 2) & 0xFF] : 0;
            classes |= i > 0 ? left[s.charAt(i - 1) & 0xFF] : 0;
            return i + 2 < n || i > 0 ? classes : ANY_THIRD;
        }

        /**
         * The third-byte class of pair {@code key} ({@code b0 | b1 << 8}): its second byte plus three times
         * its first, modulo 64, so that pairs sharing a second byte ("li"ke, "ni"kto) rarely share a class.
         */
        private static int thirdClass(int key) {
            return ((key >>> 8) + 3 * key) & 63;
        }

        private boolean verify(CharSequence s, int n, int at, int key) {
            int slot = slotOf(key);
            for (int e = bucketStart[slot], end = bucketStart[slot + 1]; e < end; e++) {
                byte[] needle = folded[entries[e] >>> OFFSET_BITS];
                int from = at - (entries[e] & OFFSET_MASK);
                if (from >= 0 && n - from >= needle.length && equalsFolded(s, from, needle)) {
                    return true;
                }
            }
            return false;
        }

        private boolean verify(byte[] a, int offset, int length, int at, int key) {
            int slot = slotOf(key);
            for (int e = bucketStart[slot], end = bucketStart[slot + 1]; e < end; e++) {
                byte[] needle = folded[entries[e] >>> OFFSET_BITS];
                int from = at - (entries[e] & OFFSET_MASK);
                if (from >= 0 && length - from >= needle.length && equalsFolded(a, offset + from, needle)) {
                    return true;
                }
            }
            return false;
        }

        private int slotOf(int key) {
            int word = key >>> 6;
            return rank[word] + Long.bitCount(pairs[word] & (1L << key) - 1);
        }

        private boolean anySingle(CharSequence s) {
            long[] bits = singles;
            for (int i = 0, n = s.length(); i < n; i++) {
                char c = s.charAt(i);
                if (c < 256 && (bits[c >>> 6] & 1L << c) != 0) {
                    return true;
                }
            }
            return false;
        }

        private boolean anySingle(byte[] a, int offset, int length) {
            long[] bits = singles;
            for (int i = offset, end = offset + length; i < end; i++) {
                int b = a[i] & 0xFF;
                if ((bits[b >>> 6] & 1L << b) != 0) {
                    return true;
                }
            }
            return false;
        }

        private static boolean equalsFolded(CharSequence s, int from, byte[] needle) {
            for (int j = 0; j < needle.length; j++) {
                if (fold(s.charAt(from + j)) != (needle[j] & 0xFF)) {
                    return false;
                }
            }
            return true;
        }

        private static boolean equalsFolded(byte[] a, int from, byte[] needle) {
            for (int j = 0; j < needle.length; j++) {
                if (fold(a[from + j] & 0xFF) != (needle[j] & 0xFF)) {
                    return false;
                }
            }
            return true;
        }

        private static int fold(int c) {
            return c >= 'A' && c <= 'Z' ? c | 0x20 : c;
        }

        // ---- compile time (once per snapshot) ----

        static Needles compile(String policy, List<String> needles) {
            if (needles == null) {
                throw new IllegalArgumentException("user_agent policy '" + policy + "': deny list is null");
            }
            byte[][] folded = foldedNeedles(policy, needles);
            int shortestPair = Integer.MAX_VALUE;
            long[] singles = null;
            for (byte[] needle : folded) {
                if (needle.length == 1) {
                    singles = singles == null ? new long[4] : singles;
                    for (int b : cases(needle[0])) {
                        singles[b >>> 6] |= 1L << b;
                    }
                } else {
                    shortestPair = Math.min(shortestPair, needle.length);
                }
            }
            int stride = shortestPair == Integer.MAX_VALUE ? 0 : Math.min(shortestPair - 1, MAX_STRIDE);
            Map<Integer, List<Integer>> byKey = pairEntries(folded, stride);
            long[] right = new long[256];
            long[] left = new long[256];
            thirdBytes(folded, stride, right, left);
            long[] pairs = new long[1024];
            int[] bucketStart = new int[byKey.size() + 1];
            List<Integer> entries = new ArrayList<>();
            int slot = 0;
            for (Map.Entry<Integer, List<Integer>> e : byKey.entrySet()) {
                pairs[e.getKey() >>> 6] |= 1L << e.getKey();
                bucketStart[slot++] = entries.size();
                entries.addAll(e.getValue());
            }
            bucketStart[slot] = entries.size();
            return new Needles(folded, pairs, bucketStart, entries.stream().mapToInt(Integer::intValue).toArray(),
                    stride, singles, right, left);
        }

        /**
         * Fills the third-byte masks: each sampled pair (needle, offset o) sets its class ({@link #thirdClass},
         * both letter cases) under the byte after it when the needle has one ({@code o + 2 < length}),
         * else under the byte before it ({@code o >= 1}), else (a two-byte needle) under every byte of both.
         */
        private static void thirdBytes(byte[][] folded, int stride, long[] right, long[] left) {
            for (byte[] needle : folded) {
                for (int offset = 0; needle.length > 1 && offset < stride; offset++) {
                    long classes = 0;
                    for (int b0 : cases(needle[offset])) {
                        for (int b1 : cases(needle[offset + 1])) {
                            classes |= 1L << thirdClass(b0 | b1 << 8);
                        }
                    }
                    if (offset + 2 < needle.length) {
                        for (int b : cases(needle[offset + 2])) {
                            right[b] |= classes;
                        }
                    } else if (offset >= 1) {
                        for (int b : cases(needle[offset - 1])) {
                            left[b] |= classes;
                        }
                    } else {
                        for (int b = 0; b < 256; b++) {
                            right[b] |= classes;
                            left[b] |= classes;
                        }
                    }
                }
            }
        }

        /** Raw pair key (ascending, the order of the bits) -> entries of the needles it may belong to. */
        private static Map<Integer, List<Integer>> pairEntries(byte[][] folded, int stride) {
            Map<Integer, List<Integer>> byKey = new TreeMap<>();
            for (int n = 0; n < folded.length; n++) {
                byte[] needle = folded[n];
                for (int offset = 0; needle.length > 1 && offset < stride; offset++) {
                    for (int b0 : cases(needle[offset])) {
                        for (int b1 : cases(needle[offset + 1])) {
                            byKey.computeIfAbsent(b0 | b1 << 8, k -> new ArrayList<>()).add(n << OFFSET_BITS | offset);
                        }
                    }
                }
            }
            return byKey;
        }

        /** The byte values a folded needle byte matches: itself, and the upper case of a lower-case ASCII letter. */
        private static int[] cases(byte folded) {
            int b = folded & 0xFF;
            return b >= 'a' && b <= 'z' ? new int[] {b, b & ~0x20} : new int[] {b};
        }

        private static int[] ranks(long[] pairs) {
            int[] rank = new int[pairs.length];
            for (int w = 1; w < pairs.length; w++) {
                rank[w] = rank[w - 1] + Long.bitCount(pairs[w - 1]);
            }
            return rank;
        }

        private static byte[][] foldedNeedles(String policy, List<String> needles) {
            byte[][] folded = new byte[needles.size()][];
            for (int i = 0; i < folded.length; i++) {
                String needle = needles.get(i);
                if (needle == null || needle.isEmpty()) {
                    throw new IllegalArgumentException("user_agent policy '" + policy + "': deny[" + i + "] is empty"
                            + " (expected a non-empty substring such as 'sqlmap')");
                }
                byte[] bytes = needle.getBytes(StandardCharsets.UTF_8);
                for (int k = 0; k < bytes.length; k++) {
                    bytes[k] = (byte) fold(bytes[k] & 0xFF);
                }
                folded[i] = bytes;
            }
            return folded;
        }
    }
}
