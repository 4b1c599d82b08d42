package io.paduraksa.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link FieldPositions#find} against a plain pass over the names (the oracle): seeded random field
 * sections of names that share lengths and first letters (so keys and presence bits collide), in
 * mixed case, looked up by every name of the pool, present or not, from every start index, and
 * again after a reset (no name of the previous message may still be found).
 */
class FieldPositionsTest {
    private static final String[] POOL = {"accept", "Accept-Encoding", "accept-language", "accept-charset", "host", "Cookie",
        "content-type", "content-length", "connection", "range", "request-range", "referer", "user-agent", "x-filename",
        "x_filename", "x-file-name", "if", "proxy", "lock-token", "content-range", "content-encoding", "sec-ch-ua",
        "sec-fetch-site", "sec-fetch-mode", "priority", "a", "b", "ab", "ba", "x-a", "x-b", "te", "upgrade", "via"};

    @Test
    void findAgreesWithAPassOverTheNames() {
        SplittableRandom random = new SplittableRandom(20261206);
        FieldPositions fields = new FieldPositions(64, 4);
        for (int round = 0; round < 20_000; round++) {
            fields.reset();
            int count = random.nextInt(0, 20);
            List<String> names = new ArrayList<>();
            StringBuilder text = new StringBuilder();
            List<int[]> spans = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = POOL[random.nextInt(POOL.length)];
                if (random.nextBoolean()) {
                    name = name.toUpperCase(Locale.ROOT);
                }
                int start = text.length();
                text.append(name).append(": v\r\n");
                names.add(name.toLowerCase(Locale.ROOT));
                spans.add(new int[] {start, start + name.length()});
            }
            ByteBuf buffer = Unpooled.copiedBuffer(text, ISO_8859_1);
            try {
                for (int[] span : spans) {
                    assertThat(fields.add(span[0], span[1], span[1] + 2, span[1] + 3, buffer.getByte(span[0]))).isTrue();
                }
                for (String candidate : POOL) {
                    String lower = candidate.toLowerCase(Locale.ROOT);
                    AsciiString name = AsciiString.of(lower);
                    for (int from = 0; from <= count; from++) {
                        int expected = names.subList(from, count).indexOf(lower);
                        assertThat(fields.find(buffer, name, from)).as("%s from %d in %s", lower, from, names)
                                .isEqualTo(expected < 0 ? -1 : expected + from);
                    }
                }
            } finally {
                buffer.release();
            }
        }
    }

    @Test
    void aResetForgetsThePreviousMessagesNames() {
        ByteBuf buffer = Unpooled.copiedBuffer("accept: v\r\n", ISO_8859_1);
        try {
            FieldPositions fields = new FieldPositions(8, 2);
            fields.add(0, 6, 8, 9, 'a');
            assertThat(fields.find(buffer, AsciiString.of("accept"), 0)).isZero();
            fields.reset();
            assertThat(fields.find(buffer, AsciiString.of("accept"), 0)).isEqualTo(-1);
        } finally {
            buffer.release();
        }
    }
}
