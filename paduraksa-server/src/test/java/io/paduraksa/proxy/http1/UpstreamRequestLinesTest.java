package io.paduraksa.proxy.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The upstream head's line writer ({@link UpstreamRequestHead.Lines}) copies a client's field lines
 * that follow one another, each ended by CRLF, as one run: checked against writing every offered
 * line on its own ({@code name..value} then CRLF), over random heads whose lines end in CRLF or a
 * bare LF, with trailing whitespace or not, offered in order with some left out, some offered out of
 * order, and computed fields and HTTP/2-style fields in between.
 */
class UpstreamRequestLinesTest {
    private static final String[] NAMES = {"Accept", "User-Agent", "x-a", "Cookie", "Referer", "sec-fetch-mode", "X-Custom-Name"};
    private static final String[] VALUES = {"", "v", "text/html,application/xhtml+xml", "Mozilla/5.0 (X11)", "a=b; c=d", "\t"};
    private static final AsciiString VIA = AsciiString.cached("Via");

    @Test
    void runsOfLinesAreWrittenAsEachLineOnItsOwn() {
        Random random = new Random(20261206);
        UpstreamRequestHead.Lines lines = new UpstreamRequestHead.Lines();
        for (int round = 0; round < 5_000; round++) {
            StringBuilder source = new StringBuilder();
            List<int[]> positions = new ArrayList<>();
            int count = 1 + random.nextInt(12);
            for (int i = 0; i < count; i++) {
                int nameStart = source.length();
                source.append(NAMES[random.nextInt(NAMES.length)]);
                int nameEnd = source.length();
                source.append(random.nextInt(4) == 0 ? ":" : ": ");
                int valueStart = source.length();
                source.append(VALUES[random.nextInt(VALUES.length - 1)]);
                int valueEnd = source.length();
                switch (random.nextInt(6)) {
                    case 0 -> source.append(" \n"); // trailing OWS and a bare LF: two bytes, not CRLF
                    case 1 -> source.append("\n");
                    case 2 -> source.append(" \r\n");
                    default -> source.append("\r\n");
                }
                positions.add(new int[] {nameStart, nameEnd, valueStart, valueEnd});
            }
            byte[] bytes = source.toString().getBytes(ISO_8859_1);
            ByteBuf head = random.nextBoolean() ? Unpooled.wrappedBuffer(bytes)
                    : PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
            ByteBuf out = Unpooled.buffer();
            StringBuilder expected = new StringBuilder();
            try {
                lines.begin(out);
                for (int i = 0; i < count; i++) {
                    int pick = random.nextInt(10) == 0 ? random.nextInt(count) : i; // now and then out of order
                    if (random.nextInt(4) == 0) {
                        continue; // a field the rules removed
                    }
                    int[] p = positions.get(pick);
                    lines.line(head, p[0], p[1], p[2], p[3]);
                    expected.append(source, p[0], p[3]).append("\r\n");
                    switch (random.nextInt(12)) {
                        case 0 -> {
                            lines.field("x-h2", "w");
                            expected.append("x-h2: w\r\n");
                        }
                        case 1 -> {
                            lines.name(VIA, VIA);
                            lines.value("1.1 p");
                            lines.end();
                            expected.append("Via: 1.1 p\r\n");
                        }
                        default -> {
                        }
                    }
                }
                lines.writeCookies();
                assertThat(out.toString(ISO_8859_1)).as("round %d, head %s", round, source).isEqualTo(expected.toString());
            } finally {
                head.release();
                out.release();
            }
        }
    }

    @Test
    void aHeadLeftUnfinishedIsNotContinuedByTheNext() {
        byte[] bytes = "A: 1\r\nB: 2\r\n".getBytes(ISO_8859_1);
        ByteBuf head = Unpooled.wrappedBuffer(bytes);
        UpstreamRequestHead.Lines lines = new UpstreamRequestHead.Lines();
        ByteBuf first = Unpooled.buffer();
        lines.begin(first);
        lines.line(head, 0, 1, 3, 4); // the writing stops here (an exception): the run is never copied
        ByteBuf second = Unpooled.buffer();
        lines.begin(second);
        lines.line(head, 6, 7, 9, 10);
        lines.writeCookies();
        assertThat(second.toString(ISO_8859_1)).isEqualTo("B: 2\r\n");
        assertThat(first.readableBytes()).isZero();
    }
}
