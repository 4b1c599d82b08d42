package io.paduraksa.net;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A set of IP addresses as sorted, disjoint 128-bit ranges, looked up by binary search.
 *
 * <p>{@link #contains} runs per request (IP policies, trusted proxies) and allocates nothing: four
 * parallel {@code long} arrays hold each range's first and last address, compared unsigned.
 * Building runs once per config load. IPv4 lives in the IPv4-mapped space, so {@code 0.0.0.0/0}
 * is exactly {@code ::ffff:0:0/96} and {@code ::/0} holds every address of both families.
 * Immutable and safe to share between event loops.
 *
 * <p>IPv4 index: a set of at least {@value #INDEX_MIN_RANGES} ranges also keeps, per block of
 * {@code 2^(32 - INDEX_BITS)} IPv4 addresses (the top {@value #INDEX_BITS} bits), the last range that starts
 * at or before the block's first address. An IPv4-mapped address then searches only the ranges between
 * its block's entry and the next block's, not all of them (2,000 CIDRs: from 11 halvings to about one).
 * 4 KB per indexed set.
 *
 * <p>IPv6 index: a set with at least {@value #INDEX_MIN_RANGES} ranges reaching past {@code ::/64} (the IPv6
 * ranges proper) also keeps such an index over the window those ranges share: the longest prefix common to
 * the high 64 bits of all their first and last addresses (a range starting inside {@code ::/64} counts by its
 * last address), at most {@value #MAX_V6_PREFIX} bits so that the next {@value #INDEX_BITS} bits are in the
 * same long, cut into {@code 2^INDEX_BITS} blocks by those next bits. An address inside the window searches
 * between its block's entries, any other address the whole set. Which window is chosen changes only how many
 * ranges are searched, never the answer. For the gate benchmark's deny list (1,000 /48s under
 * {@code 2001:db8::/32}) that is bits 32-41 of the address, and one or two ranges a block. Another 4 KB per
 * indexed set.
 */
public final class IpRangeSet {
    private static final IpRangeSet EMPTY = new IpRangeSet(new long[0], new long[0], new long[0], new long[0]);
    static final int INDEX_BITS = 10;
    static final int INDEX_MIN_RANGES = 16;
    /** The high word of the mapped address's low long: {@code ::ffff:a.b.c.d} is high 0, low 0xffff_aabbccdd. */
    private static final long MAPPED_PREFIX = 0xFFFFL;
    /** Longest IPv6 window prefix: its block bits must lie in the high long. */
    static final int MAX_V6_PREFIX = 64 - INDEX_BITS;

    private final long[] startHigh;
    private final long[] startLow;
    private final long[] endHigh;
    private final long[] endLow;
    /** {@code 2^INDEX_BITS + 1} entries: the last range starting at or before each IPv4 block (-1: none), or null. */
    private final int[] v4Blocks;
    /** As {@link #v4Blocks} over the IPv6 window ({@code v6Prefix} under {@code v6Mask}), or null. */
    private final int[] v6Blocks;
    private final long v6Prefix;
    private final long v6Mask;
    /** Length of the window's prefix in bits, 0 to {@link #MAX_V6_PREFIX}. */
    private final int v6PrefixLength;

    private IpRangeSet(long[] startHigh, long[] startLow, long[] endHigh, long[] endLow) {
        this.startHigh = startHigh;
        this.startLow = startLow;
        this.endHigh = endHigh;
        this.endLow = endLow;
        this.v4Blocks = startHigh.length >= INDEX_MIN_RANGES ? v4Blocks() : null;
        int v6Ranges = 0;
        long first = 0;
        long differing = 0;
        for (int i = 0; i < startHigh.length; i++) {
            if (endHigh[i] != 0) {
                long h = startHigh[i] != 0 ? startHigh[i] : endHigh[i];
                first = v6Ranges++ == 0 ? h : first;
                differing |= (startHigh[i] != 0 ? startHigh[i] ^ first : 0) | (endHigh[i] ^ first);
            }
        }
        this.v6PrefixLength = Math.min(Long.numberOfLeadingZeros(differing), MAX_V6_PREFIX);
        this.v6Mask = v6PrefixLength == 0 ? 0 : -1L << (64 - v6PrefixLength);
        this.v6Prefix = first & v6Mask;
        this.v6Blocks = v6Ranges >= INDEX_MIN_RANGES ? v6Blocks() : null;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The set with no addresses. */
    public static IpRangeSet empty() {
        return EMPTY;
    }

    /** Whether the address (as {@link IpParser} produces it) lies in one of the ranges. */
    public boolean contains(long high, long low) {
        int[] blocks = v4Blocks;
        if (blocks != null && high == 0 && low >>> 32 == MAPPED_PREFIX) {
            int block = (int) (low >>> (32 - INDEX_BITS)) & (1 << INDEX_BITS) - 1;
            return containsBetween(high, low, blocks[block] + 1, blocks[block + 1]);
        }
        blocks = v6Blocks;
        if (blocks != null && (high & v6Mask) == v6Prefix) {
            int block = (int) (high << v6PrefixLength >>> (64 - INDEX_BITS));
            return containsBetween(high, low, blocks[block] + 1, blocks[block + 1]);
        }
        return containsBetween(high, low, 0, startHigh.length - 1);
    }

    /** The IPv6 window's prefix length, or -1 without an IPv6 index (the differential test probes its block edges). */
    int v6PrefixLength() {
        return v6Blocks == null ? -1 : v6PrefixLength;
    }

    /** The IPv6 window's first high long (with {@link #v6PrefixLength()}). */
    long v6Prefix() {
        return v6Prefix;
    }

    /** The whole binary search without the index (the differential test's reference). */
    boolean containsBySearch(long high, long low) {
        return containsBetween(high, low, 0, startHigh.length - 1);
    }

    /**
     * Whether the address lies in a range, knowing that ranges before {@code lo} start at or before it
     * and ranges after {@code hi} start after it.
     */
    private boolean containsBetween(long high, long low, int lo, int hi) {
        int last = lastStartingAtOrBefore(high, low, lo, hi);
        return last >= 0 && lessOrEqual(high, low, endHigh[last], endLow[last]);
    }

    /** The last range in {@code [lo, hi]} that starts at or before the address, else {@code lo - 1}. */
    private int lastStartingAtOrBefore(long high, long low, int lo, int hi) {
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (lessOrEqual(startHigh[mid], startLow[mid], high, low)) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return hi;
    }

    /**
     * Block b covers {@code ::ffff:0:0 + b * 2^(32 - INDEX_BITS)} onwards; entry {@code 2^INDEX_BITS} is the
     * first address after the IPv4 space, so an address in block b has its range between entries b and b + 1.
     */
    private int[] v4Blocks() {
        int[] blocks = new int[(1 << INDEX_BITS) + 1];
        for (int b = 0; b < blocks.length; b++) {
            long first = (MAPPED_PREFIX << 32) + ((long) b << (32 - INDEX_BITS)); // + carries past the IPv4 space
            blocks[b] = lastStartingAtOrBefore(0, first, 0, startHigh.length - 1);
        }
        return blocks;
    }

    /**
     * Block b of the IPv6 window starts at high {@code v6Prefix | b << (64 - prefix - INDEX_BITS)}, low 0; entry
     * {@code 2^INDEX_BITS} is the first address after the window, or, when the window runs to the last address,
     * the last range.
     */
    private int[] v6Blocks() {
        int[] blocks = new int[(1 << INDEX_BITS) + 1];
        int shift = 64 - v6PrefixLength - INDEX_BITS;
        int last = startHigh.length - 1;
        for (int b = 0; b < 1 << INDEX_BITS; b++) {
            blocks[b] = lastStartingAtOrBefore(v6Prefix | (long) b << shift, 0, 0, last);
        }
        long after = v6Prefix + (v6PrefixLength == 0 ? 0 : 1L << (64 - v6PrefixLength));
        boolean toTheEnd = v6PrefixLength == 0 || Long.compareUnsigned(after, v6Prefix) < 0;
        blocks[1 << INDEX_BITS] = toTheEnd ? last : lastStartingAtOrBefore(after, 0, 0, last);
        return blocks;
    }

    /** Disjoint, non-adjacent ranges after merging. */
    public int rangeCount() {
        return startHigh.length;
    }

    public boolean isEmpty() {
        return startHigh.length == 0;
    }

    /** The merged ranges as {@code first-last} text (tooling and tests; allocates). */
    public List<String> ranges() {
        List<String> out = new ArrayList<>(startHigh.length);
        for (int i = 0; i < startHigh.length; i++) {
            out.add(IpParser.format(startHigh[i], startLow[i]) + "-" + IpParser.format(endHigh[i], endLow[i]));
        }
        return out;
    }

    @Override
    public String toString() {
        return "IpRangeSet[" + startHigh.length + " ranges]";
    }

    private static boolean lessOrEqual(long aHigh, long aLow, long bHigh, long bLow) {
        return aHigh != bHigh ? Long.compareUnsigned(aHigh, bHigh) < 0 : Long.compareUnsigned(aLow, bLow) <= 0;
    }

    /**
     * Collects CIDRs and addresses at compile time. {@link #add} checks each value as it comes and
     * throws {@link IllegalArgumentException} naming it, so a caller can report every bad entry
     * with its position and keep adding the rest.
     */
    public static final class Builder {
        private long[] ranges = new long[64]; // (startHigh, startLow, endHigh, endLow) per range
        private int count;

        private Builder() {
        }

        /**
         * Adds {@code a.b.c.d/n} (n 0-32; stored as {@code ::ffff:a.b.c.d/(96+n)}), an IPv6
         * {@code x::/n} (n 0-128) or a bare address (/32 or /128). The address must be the first of
         * its network: {@code 10.0.0.1/8} is refused rather than widened, since a typo in a deny or
         * allow list should be seen, not silently turned into a bigger range (as iptables and
         * nftables would do).
         */
        public Builder add(String cidrOrAddress) {
            if (cidrOrAddress == null) {
                throw new IllegalArgumentException("invalid CIDR null (expected an IP address or CIDR such as 192.0.2.0/24)");
            }
            int slash = cidrOrAddress.indexOf('/');
            int addressEnd = slash < 0 ? cidrOrAddress.length() : slash;
            long[] address = new long[2];
            if (!IpParser.parse(cidrOrAddress, 0, addressEnd, address)) {
                throw invalid(cidrOrAddress, "expected an IPv4 or IPv6 address, optionally followed by /prefix-length");
            }
            boolean ipv4Text = cidrOrAddress.lastIndexOf(':', addressEnd) < 0;
            int maxPrefix = ipv4Text ? 32 : 128;
            int prefix = slash < 0 ? maxPrefix : prefixLength(cidrOrAddress, slash + 1, maxPrefix);
            int prefix128 = ipv4Text ? 96 + prefix : prefix;
            long maskHigh = prefix128 == 0 ? 0 : prefix128 >= 64 ? -1L : -1L << (64 - prefix128);
            long maskLow = prefix128 <= 64 ? 0 : -1L << (128 - prefix128);
            if ((address[0] & ~maskHigh) != 0 || (address[1] & ~maskLow) != 0) {
                String network = IpParser.format(address[0] & maskHigh, address[1] & maskLow);
                if (!ipv4Text && IpParser.isMappedIpv4(address[0], address[1])) {
                    network = "::ffff:" + network;
                }
                throw invalid(cidrOrAddress, "host bits are set; expected the network address " + network + "/" + prefix);
            }
            return addRange(address[0], address[1], address[0] | ~maskHigh, address[1] | ~maskLow);
        }

        /** Adds every value; stops at the first invalid one. */
        public Builder addAll(Iterable<String> cidrsOrAddresses) {
            for (String value : cidrsOrAddresses) {
                add(value);
            }
            return this;
        }

        /** Adds the inclusive range {@code [start, end]}; start must not be above end (unsigned). */
        public Builder addRange(long startHigh, long startLow, long endHigh, long endLow) {
            if (!lessOrEqual(startHigh, startLow, endHigh, endLow)) {
                throw new IllegalArgumentException("range start " + IpParser.format(startHigh, startLow)
                        + " is above its end " + IpParser.format(endHigh, endLow));
            }
            if (4 * count == ranges.length) {
                ranges = Arrays.copyOf(ranges, ranges.length * 2);
            }
            int at = 4 * count++;
            ranges[at] = startHigh;
            ranges[at + 1] = startLow;
            ranges[at + 2] = endHigh;
            ranges[at + 3] = endLow;
            return this;
        }

        /** Sorts and merges overlapping and adjacent ranges; the builder can be used again afterwards. */
        public IpRangeSet build() {
            if (count == 0) {
                return EMPTY;
            }
            Integer[] order = new Integer[count];
            for (int i = 0; i < count; i++) {
                order[i] = i;
            }
            long[] r = ranges;
            Arrays.sort(order, (a, b) -> {
                int byHigh = Long.compareUnsigned(r[4 * a], r[4 * b]);
                return byHigh != 0 ? byHigh : Long.compareUnsigned(r[4 * a + 1], r[4 * b + 1]);
            });
            long[] sh = new long[count];
            long[] sl = new long[count];
            long[] eh = new long[count];
            long[] el = new long[count];
            int merged = -1;
            for (Integer index : order) {
                int at = 4 * index;
                if (merged >= 0 && startsWithinOrRightAfter(r[at], r[at + 1], eh[merged], el[merged])) {
                    if (lessOrEqual(eh[merged], el[merged], r[at + 2], r[at + 3])) {
                        eh[merged] = r[at + 2];
                        el[merged] = r[at + 3];
                    }
                    continue;
                }
                merged++;
                sh[merged] = r[at];
                sl[merged] = r[at + 1];
                eh[merged] = r[at + 2];
                el[merged] = r[at + 3];
            }
            int n = merged + 1;
            return new IpRangeSet(Arrays.copyOf(sh, n), Arrays.copyOf(sl, n), Arrays.copyOf(eh, n), Arrays.copyOf(el, n));
        }

        /** start <= end + 1, without overflowing when end is the last address. */
        private static boolean startsWithinOrRightAfter(long startHigh, long startLow, long endHigh, long endLow) {
            if (endHigh == -1L && endLow == -1L) {
                return true;
            }
            long nextLow = endLow + 1;
            long nextHigh = nextLow == 0 ? endHigh + 1 : endHigh;
            return lessOrEqual(startHigh, startLow, nextHigh, nextLow);
        }

        private static int prefixLength(String cidr, int from, int max) {
            int length = cidr.length() - from;
            if (length < 1 || length > 3 || (length > 1 && cidr.charAt(from) == '0')) {
                throw badPrefix(cidr, max);
            }
            int value = 0;
            for (int i = from; i < cidr.length(); i++) {
                char c = cidr.charAt(i);
                if (c < '0' || c > '9') {
                    throw badPrefix(cidr, max);
                }
                value = value * 10 + (c - '0');
            }
            if (value > max) {
                throw badPrefix(cidr, max);
            }
            return value;
        }

        private static IllegalArgumentException badPrefix(String cidr, int max) {
            return invalid(cidr, "expected an " + (max == 32 ? "IPv4" : "IPv6") + " prefix length 0-" + max);
        }

        private static IllegalArgumentException invalid(String value, String expectation) {
            return new IllegalArgumentException("invalid CIDR '" + value + "' (" + expectation + ")");
        }
    }
}
