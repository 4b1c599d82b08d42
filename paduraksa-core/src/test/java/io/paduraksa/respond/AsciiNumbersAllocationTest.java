package io.paduraksa.respond;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.testing.AllocationAssert;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Content-Length values and chunk sizes are written per forwarded request: 0 B per number. */
@Tag("allocation")
class AsciiNumbersAllocationTest {

    static final class Target {
        final ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        long value = 1;
    }

    @Test
    void writingDecimalAndHexAllocatesNothing() {
        Target t = new Target();
        try {
            AllocationAssert.assertZero("AsciiNumbers.writeDecimal + writeHex16 + writeHex", t, s -> {
                s.out.clear();
                s.value = s.value * 31 + 7 & Long.MAX_VALUE;
                AsciiNumbers.writeDecimal(s.out, s.value);
                AsciiNumbers.writeHex16(s.out, s.value);
                AsciiNumbers.writeHex(s.out, s.value);
            });
            // The last call's work: the decimal digits, then 16 and then unpadded hex digits of the same value.
            String written = t.out.toString(java.nio.charset.StandardCharsets.US_ASCII);
            org.assertj.core.api.Assertions.assertThat(written).startsWith(Long.toString(t.value))
                    .endsWith(Long.toHexString(t.value));
        } finally {
            t.out.release();
        }
    }
}
