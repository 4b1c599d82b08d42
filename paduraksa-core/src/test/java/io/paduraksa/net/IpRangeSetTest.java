package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IpRangeSetTest {

    private static long[] ip(String text) {
        long[] out = new long[2];
        assertThat(IpParser.parse(text, out)).as("test address %s", text).isTrue();
        return out;
    }

    private static boolean contains(IpRangeSet set, String address) {
        long[] a = ip(address);
        return set.contains(a[0], a[1]);
    }

    private static IpRangeSet of(String... values) {
        IpRangeSet.Builder b = IpRangeSet.builder();
        for (String v : values) {
            b.add(v);
        }
        return b.build();
    }

    @Test
    void emptySetContainsNothing() {
        IpRangeSet set = IpRangeSet.builder().build();
        assertThat(set.isEmpty()).isTrue();
        assertThat(set.rangeCount()).isZero();
        assertThat(contains(set, "192.0.2.1")).isFalse();
        assertThat(set.contains(0, 0)).isFalse();
        assertThat(set.contains(-1, -1)).isFalse();
        assertThat(IpRangeSet.empty().isEmpty()).isTrue();
    }

    @Test
    void ipv4CidrIsHeldInTheMappedSpace() {
        IpRangeSet set = of("198.51.100.0/24");
        assertThat(set.ranges()).containsExactly("198.51.100.0-198.51.100.255");
        assertThat(contains(set, "198.51.100.0")).isTrue();
        assertThat(contains(set, "198.51.100.255")).isTrue();
        assertThat(contains(set, "::ffff:198.51.100.7")).isTrue();
        assertThat(contains(set, "198.51.99.255")).isFalse();
        assertThat(contains(set, "198.51.101.0")).isFalse();
        assertThat(contains(set, "::198.51.100.7")).as("IPv4-compatible is not mapped").isFalse();
    }

    @Test
    void bareAddressesAreSingleAddresses() {
        IpRangeSet set = of("192.0.2.10", "2001:db8::10");
        assertThat(set.ranges()).containsExactly("192.0.2.10-192.0.2.10", "2001:db8::10-2001:db8::10");
        assertThat(contains(set, "192.0.2.10")).isTrue();
        assertThat(contains(set, "192.0.2.11")).isFalse();
        assertThat(contains(set, "2001:db8::10")).isTrue();
        assertThat(contains(set, "2001:db8::f")).isFalse();
        assertThat(contains(set, "2001:db8::11")).isFalse();
    }

    @Test
    void allIpv4IsExactlyTheMappedRange() {
        IpRangeSet set = of("0.0.0.0/0");
        assertThat(set.ranges()).containsExactly("0.0.0.0-255.255.255.255");
        assertThat(contains(set, "0.0.0.0")).isTrue();
        assertThat(contains(set, "255.255.255.255")).isTrue();
        assertThat(contains(set, "::fffe:ffff:ffff")).isFalse();
        assertThat(contains(set, "::1:0:0:0")).isFalse();
        assertThat(contains(set, "2001:db8::1")).isFalse();
        assertThat(contains(set, "::")).isFalse();
    }

    @Test
    void allIpv6IsEverything() {
        IpRangeSet set = of("::/0");
        assertThat(set.rangeCount()).isOne();
        assertThat(set.contains(0, 0)).isTrue();
        assertThat(set.contains(-1, -1)).isTrue();
        assertThat(set.contains(Long.MIN_VALUE, 0)).isTrue();
        assertThat(contains(set, "192.0.2.1")).isTrue();
    }

    @Test
    void addressesWithTheTopBitSetCompareUnsigned() {
        IpRangeSet set = of("8000::/1", "::/1");
        assertThat(set.ranges()).as("adjacent halves merge").containsExactly("::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
        IpRangeSet top = of("ff00::/8", "7fff:ffff:ffff:ffff::/64");
        assertThat(contains(top, "ff02::1")).isTrue();
        assertThat(contains(top, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).isTrue();
        assertThat(contains(top, "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).isFalse();
        assertThat(contains(top, "7fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).isTrue();
        assertThat(contains(top, "8000::")).isFalse();
        assertThat(contains(top, "::")).isFalse();
        IpRangeSet lowTop = of("2001:db8::8000:0:0:0/65");
        assertThat(contains(lowTop, "2001:db8::8000:0:0:0")).isTrue();
        assertThat(contains(lowTop, "2001:db8::ffff:ffff:ffff:ffff")).isTrue();
        assertThat(contains(lowTop, "2001:db8::7fff:ffff:ffff:ffff")).isFalse();
        assertThat(contains(lowTop, "2001:db8:0:1::")).isFalse();
    }

    @Test
    void theLastAddressIsAddable() {
        IpRangeSet set = of("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127");
        assertThat(set.ranges()).containsExactly("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
        assertThat(set.contains(-1, -1)).isTrue();
        assertThat(set.contains(-1, -3)).isFalse();
    }

    @Test
    void overlappingAndAdjacentRangesMerge() {
        IpRangeSet set = of("192.0.2.0/25", "192.0.2.128/25", "192.0.2.64/26", "198.51.100.0/24", "198.51.100.7",
                "203.0.113.0/24", "203.0.112.0/23", "2001:db8::/33", "2001:db8:8000::/33", "2001:db9::/32");
        assertThat(set.ranges()).containsExactly(
                "192.0.2.0-192.0.2.255", "198.51.100.0-198.51.100.255", "203.0.112.0-203.0.113.255",
                "2001:db8::-2001:db9:ffff:ffff:ffff:ffff:ffff:ffff");
    }

    @Test
    void rangesOneApartStaySeparate() {
        IpRangeSet set = of("192.0.2.0/31", "192.0.2.3");
        assertThat(set.ranges()).containsExactly("192.0.2.0-192.0.2.1", "192.0.2.3-192.0.2.3");
        assertThat(contains(set, "192.0.2.2")).isFalse();
    }

    @Test
    void mergingAcrossTheLow64BitCarry() {
        IpRangeSet set = of("2001:db8:0:0:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64");
        assertThat(set.ranges()).containsExactly("2001:db8::ffff:ffff:ffff:ffff-2001:db8:0:1:ffff:ffff:ffff:ffff");
    }

    @ParameterizedTest(name = "[{0}]")
    @CsvSource(delimiter = '|', textBlock = """
            10.0.0.0/33            | invalid CIDR '10.0.0.0/33' (expected an IPv4 prefix length 0-32)
            2001:db8::/129         | invalid CIDR '2001:db8::/129' (expected an IPv6 prefix length 0-128)
            10.0.0.0/              | invalid CIDR '10.0.0.0/' (expected an IPv4 prefix length 0-32)
            10.0.0.0/08            | invalid CIDR '10.0.0.0/08' (expected an IPv4 prefix length 0-32)
            10.0.0.0/8/8           | invalid CIDR '10.0.0.0/8/8' (expected an IPv4 prefix length 0-32)
            10.0.0.0/-1            | invalid CIDR '10.0.0.0/-1' (expected an IPv4 prefix length 0-32)
            10.0.0.0/ 8            | invalid CIDR '10.0.0.0/ 8' (expected an IPv4 prefix length 0-32)
            10.0.0.1/8             | invalid CIDR '10.0.0.1/8' (host bits are set; expected the network address 10.0.0.0/8)
            2001:db8::1/32         | invalid CIDR '2001:db8::1/32' (host bits are set; expected the network address 2001:db8::/32)
            ::ffff:10.0.0.1/104    | invalid CIDR '::ffff:10.0.0.1/104' (host bits are set; expected the network address ::ffff:10.0.0.0/104)
            10.0.0.256/24          | invalid CIDR '10.0.0.256/24' (expected an IPv4 or IPv6 address, optionally followed by /prefix-length)
            010.0.0.0/8            | invalid CIDR '010.0.0.0/8' (expected an IPv4 or IPv6 address, optionally followed by /prefix-length)
            /8                     | invalid CIDR '/8' (expected an IPv4 or IPv6 address, optionally followed by /prefix-length)
            ''                     | invalid CIDR '' (expected an IPv4 or IPv6 address, optionally followed by /prefix-length)
            ' 10.0.0.0/8'          | invalid CIDR ' 10.0.0.0/8' (expected an IPv4 or IPv6 address, optionally followed by /prefix-length)
            example.test/24        | invalid CIDR 'example.test/24' (expected an IPv4 or IPv6 address, optionally followed by /prefix-length)
            """)
    void invalidValuesAreNamedWithTheExpectation(String value, String message) {
        assertThatThrownBy(() -> IpRangeSet.builder().add(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void aFailedAddLeavesTheBuilderUsable() {
        IpRangeSet.Builder b = IpRangeSet.builder().add("192.0.2.0/24");
        assertThatThrownBy(() -> b.add("192.0.2.1/24")).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.add("198.51.100.0/24").build().ranges())
                .containsExactly("192.0.2.0-192.0.2.255", "198.51.100.0-198.51.100.255");
    }

    @Test
    void containsIsTrueAtEveryEdgeAndFalseJustOutside() {
        IpRangeSet set = of("192.0.2.16/28", "198.51.100.0/24", "2001:db8:0:ff00::/56", "2001:db8:1::/48");
        for (int i = 0; i < set.rangeCount(); i++) {
            String[] edges = set.ranges().get(i).split("-");
            long[] first = ip(edges[0]);
            long[] last = ip(edges[1]);
            assertThat(set.contains(first[0], first[1])).as("first of %s", set.ranges().get(i)).isTrue();
            assertThat(set.contains(last[0], last[1])).as("last of %s", set.ranges().get(i)).isTrue();
            long beforeLow = first[1] - 1;
            long beforeHigh = first[1] == 0 ? first[0] - 1 : first[0];
            long afterLow = last[1] + 1;
            long afterHigh = afterLow == 0 ? last[0] + 1 : last[0];
            assertThat(set.contains(beforeHigh, beforeLow)).as("before %s", set.ranges().get(i)).isFalse();
            assertThat(set.contains(afterHigh, afterLow)).as("after %s", set.ranges().get(i)).isFalse();
        }
    }

    /** Random ranges, random probes (near edges half of the time), against a scan over what was added. */
    @Test
    void agreesWithANaiveScanOverRandomRanges() {
        Random random = new Random(0x1A5E7L);
        for (int round = 0; round < 200; round++) {
            IpRangeSet.Builder b = IpRangeSet.builder();
            List<long[]> added = new ArrayList<>();
            int n = 1 + random.nextInt(40);
            for (int i = 0; i < n; i++) {
                long[] r = randomRange(random);
                b.addRange(r[0], r[1], r[2], r[3]);
                added.add(r);
            }
            IpRangeSet set = b.build();
            assertThat(set.rangeCount()).isBetween(1, n);
            for (int probe = 0; probe < 500; probe++) {
                long high;
                long low;
                if (random.nextBoolean()) {
                    long[] r = added.get(random.nextInt(added.size()));
                    int edge = random.nextInt(2) * 2;
                    int delta = random.nextInt(3) - 1;
                    low = r[edge + 1] + delta;
                    high = r[edge] + (delta > 0 && low == 0 ? 1 : delta < 0 && low == -1 ? -1 : 0);
                } else {
                    high = smallish(random);
                    low = random.nextLong();
                }
                boolean expected = false;
                for (long[] r : added) {
                    expected |= le(r[0], r[1], high, low) && le(high, low, r[2], r[3]);
                }
                assertThat(set.contains(high, low)).as("round %d, %x:%x", round, high, low).isEqualTo(expected);
            }
        }
    }

    /**
     * The IPv4 block index decides as the whole binary search: mostly-IPv4 sets of 16 to 3,000 ranges
     * (any prefix length, some IPv6 and some ranges reaching into the IPv4 space from below or past it),
     * probed at every range edge and block edge, one address either side, and at random IPv4 addresses.
     */
    @Test
    void ipv4BlockIndexAgreesWithTheWholeSearch() {
        Random random = new Random(0xB10C5L);
        long mapped = 0xFFFFL << 32;
        int blockSize = 1 << (32 - IpRangeSet.INDEX_BITS);
        for (int round = 0; round < 60; round++) {
            IpRangeSet.Builder b = IpRangeSet.builder();
            int n = IpRangeSet.INDEX_MIN_RANGES + random.nextInt(random.nextBoolean() ? 40 : 3_000);
            for (int i = 0; i < n; i++) {
                if (random.nextInt(20) == 0) {
                    long[] r = randomRange(random);
                    b.addRange(r[0], r[1], r[2], r[3]);
                } else {
                    int prefix = random.nextInt(8) == 0 ? random.nextInt(33) : 16 + random.nextInt(17);
                    long start = mapped + (random.nextInt() & 0xFFFFFFFFL & (prefix == 0 ? 0 : -1L << (32 - prefix)));
                    b.addRange(0, start, 0, start + (1L << (32 - prefix)) - 1);
                }
            }
            IpRangeSet set = b.build();
            List<Long> probes = new ArrayList<>();
            for (String range : set.ranges()) {
                for (String edge : range.split("-(?=[0-9a-f:.]+$)")) {
                    long[] a = ip(edge);
                    if (a[0] == 0) {
                        probes.add(a[1] - 1);
                        probes.add(a[1]);
                        probes.add(a[1] + 1);
                    }
                }
            }
            for (long block = 0; block <= 1 << IpRangeSet.INDEX_BITS; block++) {
                probes.add(mapped + block * blockSize - 1);
                probes.add(mapped + block * blockSize);
            }
            for (int i = 0; i < 2_000; i++) {
                probes.add(mapped + (random.nextInt() & 0xFFFFFFFFL));
            }
            for (long low : probes) {
                assertThat(set.contains(0, low)).as("round %d, %d ranges, ::%x", round, set.rangeCount(), low)
                        .isEqualTo(set.containsBySearch(0, low));
            }
        }
    }

    /**
     * The IPv6 window index decides as the whole binary search: sets of 16 to 3,000 IPv6 ranges (any prefix
     * length) under a common prefix of 0 to 64 bits, among them the top and the bottom of the address space, with
     * some IPv4 and some wide ranges crossing the window, probed at every range edge and every block edge of the
     * window, one address either side, and at random addresses inside and outside it.
     */
    @Test
    void ipv6WindowIndexAgreesWithTheWholeSearch() {
        Random random = new Random(0x1B6L);
        int indexed = 0;
        for (int round = 0; round < 120; round++) {
            int common = random.nextInt(65);
            long commonMask = common == 0 ? 0 : -1L << (64 - common);
            long base = switch (round % 4) {
                case 0 -> -1L; // the window at the top of the address space
                case 1 -> 0x2001_0db8_0000_0000L;
                case 2 -> 0x0000_0000_0000_0001L;
                default -> random.nextLong();
            } & commonMask;
            IpRangeSet.Builder b = IpRangeSet.builder();
            int n = IpRangeSet.INDEX_MIN_RANGES + random.nextInt(random.nextBoolean() ? 40 : 3_000);
            // One round in five also gets wide ranges (random ones, short prefixes): they merge most of a set away.
            boolean wide = round % 5 == 0;
            for (int i = 0; i < n; i++) {
                int kind = random.nextInt(40);
                if (kind == 0 && wide) {
                    long[] r = randomRange(random);
                    b.addRange(r[0], r[1], r[2], r[3]);
                } else if (kind == 1) {
                    long start = (0xFFFFL << 32) + (random.nextInt() & 0xFFFFFF00L);
                    b.addRange(0, start, 0, start + 255);
                } else {
                    // Mostly long prefixes, so that the set keeps more than a few ranges after merging.
                    int prefix = wide && random.nextInt(16) == 0 ? common + random.nextInt(129 - common)
                            : Math.min(128, Math.max(common + 11, 128 - random.nextInt(97)));
                    long high = base | random.nextLong() & ~commonMask;
                    long low = random.nextLong();
                    long maskHigh = prefix >= 64 ? -1L : prefix == 0 ? 0 : -1L << (64 - prefix);
                    long maskLow = prefix <= 64 ? 0 : -1L << (128 - prefix);
                    b.addRange(high & maskHigh, low & maskLow, high | ~maskHigh, low | ~maskLow);
                }
            }
            IpRangeSet set = b.build();
            List<long[]> probes = new ArrayList<>();
            for (String range : set.ranges()) {
                for (String edge : range.split("-(?=[0-9a-f:.]+$)")) {
                    long[] a = ip(edge);
                    probes.add(minusOne(a[0], a[1]));
                    probes.add(a);
                    probes.add(plusOne(a[0], a[1]));
                }
            }
            int length = set.v6PrefixLength();
            if (length >= 0) {
                indexed++;
                int shift = 64 - length - IpRangeSet.INDEX_BITS;
                for (long block = 0; block <= 1 << IpRangeSet.INDEX_BITS; block++) {
                    long high = set.v6Prefix() + (block << shift);
                    probes.add(minusOne(high, 0));
                    probes.add(new long[] {high, 0});
                }
            }
            for (int i = 0; i < 2_000; i++) {
                probes.add(new long[] {i % 2 == 0 ? base | random.nextLong() & ~commonMask : random.nextLong(), random.nextLong()});
            }
            for (long[] a : probes) {
                assertThat(set.contains(a[0], a[1])).as("round %d, %d ranges, window /%d, %s", round, set.rangeCount(), length,
                        IpParser.format(a[0], a[1])).isEqualTo(set.containsBySearch(a[0], a[1]));
            }
        }
        assertThat(indexed).as("rounds with an IPv6 index").isGreaterThan(80);
    }

    private static long[] minusOne(long high, long low) {
        return new long[] {low == 0 ? high - 1 : high, low - 1};
    }

    private static long[] plusOne(long high, long low) {
        return new long[] {low == -1 ? high + 1 : high, low + 1};
    }

    private static long smallish(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> random.nextInt(4) - 2L;
            default -> random.nextLong();
        };
    }

    private static long[] randomRange(Random random) {
        long startHigh = smallish(random);
        long startLow = random.nextLong();
        long endHigh = startHigh;
        long endLow = startLow + (random.nextBoolean() ? random.nextInt(1000) : random.nextLong() >>> 1);
        if (Long.compareUnsigned(endLow, startLow) < 0) {
            endHigh++;
        }
        if (endHigh == 0 && startHigh == -1) {
            endHigh = -1;
            endLow = -1;
        }
        return new long[] {startHigh, startLow, endHigh, endLow};
    }

    private static boolean le(long aHigh, long aLow, long bHigh, long bLow) {
        return aHigh != bHigh ? Long.compareUnsigned(aHigh, bHigh) < 0 : Long.compareUnsigned(aLow, bLow) <= 0;
    }

    /** A sanity run for size, not a timing assertion (timing belongs in JMH); prints the build time. */
    @Test
    void buildsAHundredThousandCidrs() {
        List<String> cidrs = new ArrayList<>(100_000);
        Random random = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            if (random.nextBoolean()) {
                cidrs.add((random.nextInt(223) + 1) + "." + random.nextInt(256) + "." + random.nextInt(256) + ".0/24");
            } else {
                cidrs.add(String.format(Locale.ROOT, "2001:db8:%x::/48", random.nextInt(0x10000)));
            }
        }
        long started = System.nanoTime();
        IpRangeSet set = IpRangeSet.builder().addAll(cidrs).build();
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf(Locale.ROOT, "IpRangeSetTest: built %d CIDRs into %d ranges in %d ms%n", cidrs.size(), set.rangeCount(), millis);
        assertThat(set.rangeCount()).isBetween(1, 100_000);
        for (int i = 0; i < cidrs.size(); i += 997) {
            String cidr = cidrs.get(i);
            assertThat(contains(set, cidr.substring(0, cidr.indexOf('/')))).as(cidr).isTrue();
        }
    }
}
