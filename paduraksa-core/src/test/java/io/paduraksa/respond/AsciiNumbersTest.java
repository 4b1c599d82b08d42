package io.paduraksa.respond;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
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
}
