package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpParserTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            192.0.2.1                               | 0000000000000000 | 0000ffffc0000201
            0.0.0.0                                 | 0000000000000000 | 0000ffff00000000
            255.255.255.255                         | 0000000000000000 | 0000ffffffffffff
            203.0.113.0                             | 0000000000000000 | 0000ffffcb007100
            ::                                      | 0000000000000000 | 0000000000000000
            ::1                                     | 0000000000000000 | 0000000000000001
            1::                                     | 0001000000000000 | 0000000000000000
            2001:db8::1                             | 20010db800000000 | 0000000000000001
            2001:DB8::1                             | 20010db800000000 | 0000000000000001
            2001:0db8:0000:0000:0000:0000:0000:0001 | 20010db800000000 | 0000000000000001
            2001:db8:0:0:1:0:0:1                    | 20010db800000000 | 0001000000000001
            2001:db8::1:0:0:1                       | 20010db800000000 | 0001000000000001
            2001:db8:0:0:1::1                       | 20010db800000000 | 0001000000000001
            1:2:3:4:5:6:7::                         | 0001000200030004 | 0005000600070000
            ::2:3:4:5:6:7:8                         | 0000000200030004 | 0005000600070008
            1:2:3::5:6:7:8                          | 0001000200030000 | 0005000600070008
            ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | ffffffffffffffff | ffffffffffffffff
            FfFf:fFfF:ffff:ffff:ffff:ffff:ffff:FFFF | ffffffffffffffff | ffffffffffffffff
            8000::                                  | 8000000000000000 | 0000000000000000
            ::ffff:192.0.2.1                        | 0000000000000000 | 0000ffffc0000201
            ::FFFF:192.0.2.1                        | 0000000000000000 | 0000ffffc0000201
            0:0:0:0:0:ffff:192.0.2.1                | 0000000000000000 | 0000ffffc0000201
            ::ffff:c000:201                         | 0000000000000000 | 0000ffffc0000201
            ::192.0.2.1                             | 0000000000000000 | 00000000c0000201
            64:ff9b::192.0.2.1                      | 0064ff9b00000000 | 00000000c0000201
            1:2:3:4:5:6:1.2.3.4                     | 0001000200030004 | 0005000601020304
            1:2:3:4:5::1.2.3.4                      | 0001000200030004 | 0005000001020304
            ::0:0:0:0:0:1.2.3.4                     | 0000000000000000 | 0000000001020304
            0001:0002::000a                         | 0001000200000000 | 000000000000000a
            """)
    void parsesValidAddresses(String text, String high, String low) {
        long[] out = {7, 7};
        assertThat(IpParser.parse(text, out)).isTrue();
        assertThat(out[0]).as("high").isEqualTo(Long.parseUnsignedLong(high, 16));
        assertThat(out[1]).as("low").isEqualTo(Long.parseUnsignedLong(low, 16));
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {
        "", ":", ".", "1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.04", "00.1.1.1", "256.0.0.0", "1.2.3.256",
        "1.2.3.4.", ".1.2.3.4", "1..2.3", "1.2.3.-4", "+1.2.3.4", "1.2.3.4 ", " 1.2.3.4", "1.2 .3.4", "1.2.3.4/24",
        "1.2.3.4:80", "0x1.2.3.4", "１.2.3.4", "1.2.3.٤",
        ":::", "::::", "1:::2", "1::2::3", "::1::", ":1::2", "1::2:", ":1", "1:", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1:2:3:4::5:6:7:8", "00001::", "12345::", "::10000",
        "fe80::1%eth0", "fe80::1%1", "[::1]", "[::1]:80", "::1:80 ", "2001:db8::g", "2001:db8:: 1", " ::1",
        "::1.2.3.4:5", "1.2.3.4::", "::1.2.3.4.5", "::1.2.3", "::01.2.3.4", "::256.1.1.1",
        "1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5:6::1.2.3.4", "::ffff:1.2.3.4:1", "1.2.3.4:1::", "::a.2.3.4",
        "::ffff:192.0.2.1/96", "2001:db8::ü", "ａ::1"
    })
    void rejectsMalformedInput(String text) {
        long[] out = {7, 9};
        assertThat(IpParser.parse(text, out)).isFalse();
        assertThat(out).as("out is untouched").containsExactly(7, 9);
    }

    @Test
    void parsesARangeInsideALongerSequence() {
        long[] out = new long[2];
        AsciiString header = AsciiString.of("for=[2001:db8::7]:443;x=192.0.2.9");
        assertThat(IpParser.parse(header, 5, 16, out)).isTrue();
        assertThat(out).containsExactly(0x20010db800000000L, 7L);
        assertThat(IpParser.parse(header, 24, 33, out)).isTrue();
        assertThat(IpParser.format(out[0], out[1])).isEqualTo("192.0.2.9");
        assertThat(IpParser.parse(header, 5, 5, out)).isFalse();
        assertThat(IpParser.parse(header, 6, 5, out)).isFalse();
    }

    @Test
    void theLongestAddressTextParsesAndOneCharMoreIsRefused() {
        long[] out = new long[2];
        String longest = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255";
        assertThat(longest).hasSize(IpParser.MAX_PARSE_LENGTH);
        assertThat(IpParser.parse(longest, out)).isTrue();
        assertThat(out).containsExactly(-1L, -1L);
        assertThat(IpParser.parse(new StringBuilder("0").append(longest), out)).isFalse();
        assertThat(IpParser.parse(new StringBuilder(longest).append(' '), 0, longest.length(), out)).isTrue();
    }

    @Test
    void charsBeyondLatin1AreRefusedNotTruncatedToTheirLowByte() {
        long[] out = {7, 9};
        // U+012E and U+0661 end in 0x2E ('.') and 0x61 ('a'): a byte cast would read them as address text.
        assertThat(IpParser.parse("192\u012E0.2.1", out)).isFalse();
        assertThat(IpParser.parse("2001:db8::\u0661", out)).isFalse();
        assertThat(IpParser.parse("2001:db8::\u0130", out)).isFalse();
        assertThat(out).containsExactly(7, 9);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            192.0.2.1                  | 192.0.2.1
            ::ffff:192.0.2.1           | 192.0.2.1
            ::                         | ::
            ::1                        | ::1
            1::                        | 1::
            2001:DB8:0:0:0:0:0:1       | 2001:db8::1
            2001:db8:0:0:1:0:0:1       | 2001:db8::1:0:0:1
            2001:db8:0:1:0:0:0:1       | 2001:db8:0:1::1
            2001:db8:0:1:1:1:1:1       | 2001:db8:0:1:1:1:1:1
            2001:0:0:1:0:0:0:1         | 2001:0:0:1::1
            0:0:1:0:0:0:0:0            | 0:0:1::
            1:0:0:2:0:0:3:4            | 1::2:0:0:3:4
            ::192.0.2.1                | ::c000:201
            64:ff9b::192.0.2.1         | 64:ff9b::c000:201
            ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff
            """)
    void formatsCanonicalText(String text, String canonical) {
        long[] out = new long[2];
        assertThat(IpParser.parse(text, out)).isTrue();
        assertThat(IpParser.format(out[0], out[1])).isEqualTo(canonical);
    }

    @Test
    void mappedIpv4IsExactlyTheFfffSlash96() {
        assertThat(IpParser.isMappedIpv4(0, 0x0000_ffff_0000_0000L)).isTrue();
        assertThat(IpParser.isMappedIpv4(0, 0x0000_ffff_ffff_ffffL)).isTrue();
        assertThat(IpParser.isMappedIpv4(0, 0x0000_fffe_ffff_ffffL)).isFalse();
        assertThat(IpParser.isMappedIpv4(0, 0x0001_ffff_0000_0000L)).isFalse();
        assertThat(IpParser.isMappedIpv4(1, 0x0000_ffff_0000_0000L)).isFalse();
    }
}
