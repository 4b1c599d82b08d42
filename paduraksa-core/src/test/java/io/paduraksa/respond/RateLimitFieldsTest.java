package io.paduraksa.respond;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RateLimitFieldsTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {0, 1, 9, 10, 99, 100, 1023, 1024, 65_535, 1_000_000_000, Integer.MAX_VALUE})
    void numbersAreWrittenAsDecimalDigits(int value) {
        ByteBuf out = Unpooled.buffer(RateLimitFields.MAX_HTTP1_LENGTH);
        try {
            RateLimitFields.writeHttp1(out, value, value, value);
            String v = Integer.toString(value);
            assertThat(out.toString(StandardCharsets.US_ASCII))
                    .isEqualTo("RateLimit-Limit: " + v + "\r\nRateLimit-Remaining: " + v + "\r\nRateLimit-Reset: " + v + "\r\n");
            assertThat(out.readableBytes()).isLessThanOrEqualTo(RateLimitFields.MAX_HTTP1_LENGTH);
            assertThat(RateLimitFields.ascii(value).toString()).isEqualTo(v);
        } finally {
            out.release();
        }
    }

    @Test
    void smallValuesShareOneString() {
        assertThat((Object) RateLimitFields.ascii(7)).isSameAs(RateLimitFields.ascii(7));
    }

    @Test
    void theFieldNamesAreRecognisedInAnyCase() {
        assertThat(RateLimitFields.isField("RateLimit-Remaining")).isTrue();
        assertThat(RateLimitFields.isField("ratelimit-limit")).isTrue();
        assertThat(RateLimitFields.isField("RATELIMIT-RESET")).isTrue();
        assertThat(RateLimitFields.isField("RateLimit-Policy")).isFalse();
        assertThat(RateLimitFields.isField("X-RateLimit-Remaining")).isFalse();
    }
}
