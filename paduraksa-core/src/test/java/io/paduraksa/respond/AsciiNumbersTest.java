package io.paduraksa.respond;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AsciiNumbersTest {

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 9, 10, 99, 100, 16_384, 1_073_741_824, Integer.MAX_VALUE, Long.MAX_VALUE})
    void decimalAndHexMatchTheJdk(long value) {
        ByteBuf out = Unpooled.buffer();
        try {
            AsciiNumbers.writeDecimal(out, value);
            assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(Long.toString(value));
            out.clear();
            AsciiNumbers.writeHex(out, value);
            assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(Long.toHexString(value));
        } finally {
            out.release();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 0xF, 0x10, 0xABCDEF, 0xFFFF_FFFFL, 0x1_0000_0000L, 0x0123_4567_89AB_CDEFL, Long.MAX_VALUE, Long.MIN_VALUE, -1})
    void sixteenDigitHexIsZeroPaddedAndMatchesTheJdk(long value) {
        ByteBuf out = Unpooled.buffer();
        try {
            out.writeByte('<');
            AsciiNumbers.writeHex16(out, value);
            out.writeByte('>');
            assertThat(out.toString(StandardCharsets.US_ASCII))
                    .isEqualTo("<" + "0".repeat(16 - Long.toHexString(value).length()) + Long.toHexString(value) + ">");
        } finally {
            out.release();
        }
    }

    @Test
    void sixteenDigitHexOfSeededRandomValues() {
        SplittableRandom random = new SplittableRandom(20261203);
        ByteBuf out = Unpooled.buffer();
        byte[] array = new byte[20];
        try {
            for (int i = 0; i < 100_000; i++) {
                long v = random.nextLong();
                out.clear();
                AsciiNumbers.writeHex16(out, v);
                assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(String.format("%016x", v));
                int at = i % 5;
                Arrays.fill(array, (byte) '.');
                AsciiNumbers.writeHex16(array, at, v);
                assertThat(new String(array, StandardCharsets.US_ASCII))
                        .isEqualTo(".".repeat(at) + String.format("%016x", v) + ".".repeat(4 - at));
            }
        } finally {
            out.release();
        }
    }

    @Test
    void sixteenDigitHexIntoAnArrayThatIsTooShortThrowsAndWritesNothing() {
        byte[] array = new byte[20];
        assertThatThrownBy(() -> AsciiNumbers.writeHex16(array, 5, -1L)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(array).containsOnly(0);
    }
}
