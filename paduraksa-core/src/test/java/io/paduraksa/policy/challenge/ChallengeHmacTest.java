package io.paduraksa.policy.challenge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.SplittableRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The hand-written HMAC-SHA-256 against RFC 4231's vectors and the JDK's {@code Mac}. */
class ChallengeHmacTest {
    private static final HexFormat HEX = HexFormat.of();

    private static byte[] mac(byte[] key, byte[] message) {
        ChallengeHmac h = ChallengeHmac.get();
        assertThat(h.put(message)).isTrue();
        return h.mac(new ChallengeKey("t", key, 1)).clone();
    }

    /** RFC 4231 section 4, test cases 1-4, 6 and 7 (full output) and 5 (first 128 bits, as the cookie keeps). */
    @ParameterizedTest(name = "RFC 4231 case {0}")
    @CsvSource(delimiter = '|', textBlock = """
            1 | 0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b | 4869205468657265 | b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7
            2 | 4a656665 | 7768617420646f2079612077616e7420666f72206e6f7468696e673f | 5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843
            3 | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd | 773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe
            4 | 0102030405060708090a0b0c0d0e0f10111213141516171819 | cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd | 82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b
            5 | 0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c | 546573742057697468205472756e636174696f6e | a3b6167473100ee06e0c796c2955552b
            6 | aa*131 | 54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374 | 60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54
            7 | aa*131 | 5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e | 9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2
            """)
    void matchesTheRfc4231Vectors(int testCase, String key, String data, String expected) {
        String keyHex = key.contains("*") ? key.substring(0, 2).repeat(Integer.parseInt(key.substring(3))) : key;
        byte[] mac = mac(HEX.parseHex(keyHex), HEX.parseHex(data));
        assertThat(HEX.formatHex(mac, 0, expected.length() / 2)).isEqualTo(expected);
    }

    /** Random keys (1 to 200 bytes: shorter and longer than the 64-byte block) and messages up to the scratch size. */
    @Test
    void agreesWithTheJdkMacOnRandomKeysAndMessages() throws Exception {
        SplittableRandom random = new SplittableRandom(4231);
        Mac reference = Mac.getInstance("HmacSHA256");
        for (int i = 0; i < 5_000; i++) {
            byte[] key = new byte[1 + random.nextInt(200)];
            byte[] message = new byte[random.nextInt(385)];
            random.nextBytes(key);
            random.nextBytes(message);
            reference.init(new SecretKeySpec(key, "HmacSHA256"));
            assertThat(mac(key, message)).as("key %s message %s", HEX.formatHex(key), HEX.formatHex(message))
                    .isEqualTo(reference.doFinal(message));
        }
    }

    @Test
    void aMessageLongerThanTheScratchIsRefusedNotTruncated() {
        ChallengeHmac h = ChallengeHmac.get();
        assertThat(h.put(new byte[384])).isTrue();
        assertThat(h.put((byte) 1)).isFalse();
        assertThat(h.put("x", 0, 1)).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            shop.example            | shop.example
            SHOP.Example            | shop.example
            shop.example:8443       | shop.example
            shop.example.           | shop.example
            shop.example.:443       | shop.example
            [2001:db8::1]:443       | [2001:db8::1]
            [2001:db8::1]           | [2001:db8::1]
            192.0.2.1:80            | 192.0.2.1
            """)
    void theBoundHostIsTheNameWithoutPortOrTrailingDot(String authority, String expected) {
        ChallengeHmac a = ChallengeHmac.get();
        a.putHost(authority);
        byte[] fromAuthority = a.sha256().clone();
        ChallengeHmac b = ChallengeHmac.get();
        b.putHost(expected);
        assertThat(fromAuthority).isEqualTo(b.sha256());
    }
}
