package io.paduraksa.server.connection;

import io.paduraksa.net.IpParser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.unix.DomainSocketAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClientAddressesTest {

    @ParameterizedTest
    @CsvSource({
            "192.0.2.1,           0x0000000000000000, 0x0000ffffc0000201, 192.0.2.1",
            "203.0.113.255,       0x0000000000000000, 0x0000ffffcb0071ff, 203.0.113.255",
            "0.0.0.0,             0x0000000000000000, 0x0000ffff00000000, 0.0.0.0",
            "255.255.255.255,     0x0000000000000000, 0x0000ffffffffffff, 255.255.255.255",
            "::ffff:198.51.100.7, 0x0000000000000000, 0x0000ffffc6336407, 198.51.100.7",
            "2001:db8::1,         0x20010db800000000, 0x0000000000000001, 2001:db8::1",
            "2001:db8:ffff:ffff:ffff:ffff:ffff:fffe, 0x20010db8ffffffff, 0xfffffffffffffffe, 2001:db8:ffff:ffff:ffff:ffff:ffff:fffe",
            "::1,                 0x0000000000000000, 0x0000000000000001, ::1",
    })
    void inetAddressesBecomeTwoLongsWithIpv4Mapped(String literal, String high, String low, String text)
            throws Exception {
        long[] out = new long[2];
        ClientAddresses.toLongs(InetAddress.getByName(literal), out); // literals only: no DNS

        assertThat(out[ClientAddresses.HIGH]).isEqualTo(Long.parseUnsignedLong(high.substring(2), 16));
        assertThat(out[ClientAddresses.LOW]).isEqualTo(Long.parseUnsignedLong(low.substring(2), 16));
        assertThat(IpParser.format(out[0], out[1])).isEqualTo(text);
    }

    @Test
    void socketAddressesOtherThanIpAreRefused() {
        long[] out = {7, 7};
        assertThat(ClientAddresses.toLongs(new DomainSocketAddress("/tmp/x.sock"), out)).isFalse();
        assertThat(ClientAddresses.toLongs(InetSocketAddress.createUnresolved("a.test", 80), out)).isFalse();
        assertThat(out).containsExactly(7, 7);
        assertThat(ClientAddresses.toLongs(new InetSocketAddress("192.0.2.9", 80), out)).isTrue();
        assertThat(out).containsExactly(0, 0x0000ffffc0000209L);
    }

    @Test
    void byteArraysOfOtherLengthsAreRejected() {
        assertThatThrownBy(() -> ClientAddresses.toLongs(new byte[5], new long[2]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an IP address has 4 or 16 bytes, not 5");
    }

    @Test
    void ipv4MappedIsRecognised() {
        assertThat(IpParser.isMappedIpv4(0, 0x0000ffffc0000201L)).isTrue();
        assertThat(IpParser.isMappedIpv4(0, 1)).isFalse();
        assertThat(IpParser.isMappedIpv4(0x20010db800000000L, 0x0000ffffc0000201L)).isFalse();
    }
}
