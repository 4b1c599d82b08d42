package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.AllocationAssert;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class IpRangeSetAllocationTest {
    private static IpRangeSet set;

    static final class State {
        final IpRangeSet set;
        final long high;
        final long low;
        int hits;

        State(IpRangeSet set, String address) {
            long[] out = new long[2];
            assertThat(IpParser.parse(address, out)).isTrue();
            this.set = set;
            this.high = out[0];
            this.low = out[1];
        }
    }

    /** 2,000 CIDRs: 1,000 IPv4 /24 and 1,000 IPv6 /48, with the test addresses placed at known spots. */
    @BeforeAll
    static void build() {
        IpRangeSet.Builder b = IpRangeSet.builder();
        Random random = new Random(2_000);
        for (int i = 0; i < 998; i++) {
            b.add((random.nextInt(100) + 1) + "." + random.nextInt(256) + "." + random.nextInt(256) + ".0/24");
            b.add("2001:db8:" + Integer.toHexString(random.nextInt(0x10000)) + "::/48");
        }
        b.add("198.51.100.0/24").add("203.0.113.0/24").add("2001:db8:ffff::/48").add("2001:db8:1234::/48");
        set = b.build();
        State[] all = {new State(set, "198.51.100.77"), new State(set, "192.0.2.77"), new State(set, "2001:db8:1234::9"),
            new State(set, "2001:db9::9"), new State(set, "ffff::1")};
        AllocationAssert.measure("all shapes", all, IpRangeSetAllocationTest::containsAll, 20_000, 1);
    }

    private static void containsAll(State[] states) {
        for (State s : states) {
            contains(s);
        }
    }

    private static void contains(State s) {
        if (s.set.contains(s.high, s.low)) {
            s.hits++;
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            IPv4 hit        | 198.51.100.77    | true
            IPv4 miss       | 192.0.2.77       | false
            IPv6 hit        | 2001:db8:1234::9 | true
            IPv6 miss       | 2001:db9::9      | false
            top-bit miss    | ffff::1          | false
            """)
    void lookupAllocatesNothing(String shape, String address, boolean hit) {
        State state = new State(set, address);
        AllocationAssert.assertZero(shape, state, IpRangeSetAllocationTest::contains);
        assertThat(state.hits > 0).isEqualTo(hit);
    }
}
