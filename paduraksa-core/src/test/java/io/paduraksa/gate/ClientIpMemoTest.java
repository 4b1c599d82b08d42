package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.net.IpParser;
import io.paduraksa.testing.BulkText;
import io.paduraksa.text.ByteHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ClientIpMemoTest {

    /**
     * The memo answers what the parser does: 2,000 values (IPv4, IPv6, mapped, and near misses that are no
     * address; more than the memo's slots) over five shuffled rounds, each as an AsciiString, an AsciiString
     * inside a bigger array, a request view copied out and one read in its array, against {@link IpParser}
     * on a String. Seeded.
     */
    @Test
    void answersWhatTheParserDoes() {
        SplittableRandom random = new SplittableRandom(45_045);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            values.add(value(random));
        }
        ClientIpMemo memo = new ClientIpMemo();
        int addresses = 0;
        for (int round = 0; round < 5; round++) {
            for (int i = values.size() - 1; i > 0; i--) {
                values.set(i, values.set(random.nextInt(i + 1), values.get(i)));
            }
            for (String value : values) {
                long[] expected = {-1, -1};
                boolean parsed = IpParser.parse(value, expected);
                addresses += parsed ? 1 : 0;
                CharSequence[] shapes = {new AsciiString(value), inside(value), BulkText.of(value), BulkText.inArray(value)};
                CharSequence shape = shapes[random.nextInt(shapes.length)];
                long[] out = {-1, -1};
                assertThat(memo.parse(shape, out)).as("round %d, '%s'", round, value).isEqualTo(parsed);
                assertThat(out).as("round %d, '%s'", round, value).isEqualTo(expected);
            }
        }
        assertThat(addresses).as("values that are addresses").isBetween(3_000, 9_000);
    }

    /** Two addresses of 45 characters that differ where the hash does not read share a slot: told apart by their bytes. */
    @Test
    void valuesWithTheSameHashAreToldApartByTheirBytes() {
        String one = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255";
        String other = "ffff:ffff:ffff:feff:ffff:ffff:255.255.255.255";
        assertThat(ByteHash.hash(bytes(one), 0, one.length())).isEqualTo(ByteHash.hash(bytes(other), 0, other.length()));
        ClientIpMemo memo = new ClientIpMemo();
        for (int round = 0; round < 3; round++) {
            for (String value : new String[] {one, other}) {
                long[] expected = new long[2];
                assertThat(IpParser.parse(value, expected)).isTrue();
                long[] out = new long[2];
                assertThat(memo.parse(new AsciiString(value), out)).isTrue();
                assertThat(out).as("round %d, %s", round, value).isEqualTo(expected);
            }
        }
    }

    /** Empty, too long (46 characters) and not an address: false, out untouched, every time. */
    @Test
    void refusesWhatTheParserRefuses() {
        ClientIpMemo memo = new ClientIpMemo();
        for (String value : new String[] {"", "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.2555", "unknown", "203.0.113.256"}) {
            for (int round = 0; round < 3; round++) {
                long[] out = {7, 7};
                assertThat(memo.parse(new AsciiString(value), out)).as("'%s'", value).isFalse();
                assertThat(memo.parse(BulkText.of(value), out)).as("'%s'", value).isFalse();
                assertThat(out).isEqualTo(new long[] {7, 7});
            }
        }
    }

    private static String value(SplittableRandom random) {
        String v = switch (random.nextInt(4)) {
            case 0 -> random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
            case 1 -> "2001:db8:" + Integer.toHexString(random.nextInt(0x10000)) + "::" + Integer.toHexString(random.nextInt(0x10000));
            case 2 -> "::ffff:198.51." + random.nextInt(256) + "." + random.nextInt(256);
            default -> {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < 8; i++) {
                    sb.append(i == 0 ? "" : ":").append(Integer.toHexString(random.nextInt(0x10000)));
                }
                yield sb.toString();
            }
        };
        if (random.nextInt(5) == 0) {
            char[] chars = v.toCharArray();
            chars[random.nextInt(chars.length)] = ".:g1 ".charAt(random.nextInt(5));
            v = new String(chars);
        }
        return v;
    }

    private static AsciiString inside(String value) {
        byte[] all = ("9:." + value + ".:1").getBytes(StandardCharsets.ISO_8859_1);
        return new AsciiString(all, 3, value.length(), false);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
