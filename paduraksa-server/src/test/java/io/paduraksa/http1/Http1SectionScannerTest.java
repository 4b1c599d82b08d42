package io.paduraksa.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The section scanner against a plain reading of its contract, byte by byte: random sections (CRLF and bare LF
 * line ends, lone CRs, empty first lines, lines across the scanner's 1,024-byte chunks, sections longer than the
 * limit) behind a random prefix, arriving in random pieces, so that LFs fall on the first and second byte of a
 * chunk and a piece. After every piece the scanner answers what the reference does for the bytes so far.
 */
class Http1SectionScannerTest {

    @Test
    void agreesWithAByteByByteReadingForSectionsArrivingInPieces() {
        SplittableRandom random = new SplittableRandom(1_024);
        String[] pieces = {"\r\n", "\r\n", "\r\n", "\n", "\r", "a", "Host: x", "\r\n\r\n", "y".repeat(300), "z".repeat(1_100)};
        int ends = 0;
        for (int round = 0; round < 20_000; round++) {
            StringBuilder text = new StringBuilder();
            for (int k = random.nextInt(1, 20); k > 0; k--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            byte[] section = text.toString().getBytes(ISO_8859_1);
            int maxSize = random.nextBoolean() ? 64 * 1_024 : random.nextInt(1, 3_000);
            int maxFirstLine = random.nextBoolean() ? Integer.MAX_VALUE : random.nextInt(0, 1_500);
            int start = random.nextInt(0, 40);
            Http1SectionScanner scanner = new Http1SectionScanner(maxSize, maxFirstLine);
            ByteBuf in = Unpooled.buffer(start + section.length);
            try {
                in.writeZero(start);
                in.readerIndex(start);
                int available = 0;
                while (available < section.length) {
                    int piece = random.nextInt(4) == 0 ? random.nextInt(1, 2_000) : random.nextInt(1, 8);
                    int n = Math.min(piece, section.length - available);
                    in.writeBytes(section, available, n);
                    available += n;
                    long expected = reference(section, available, maxSize, maxFirstLine);
                    int result = scanner.scan(in, start);
                    int want = (int) (expected >> 32);
                    assertThat(result).as("round %d, %d of %d bytes", round, available, section.length)
                            .isEqualTo(want > 0 ? start + want : want);
                    if (want == Http1SectionScanner.NEED_MORE) {
                        assertThat(scanner.scanned()).isEqualTo(Math.min(available, maxSize));
                        assertThat(scanner.firstLineEnd()).isEqualTo((int) expected);
                    } else {
                        ends += want > 0 ? 1 : 0;
                        break;
                    }
                }
            } finally {
                in.release();
            }
        }
        assertThat(ends).as("sections whose end was found").isBetween(2_000, 18_000);
    }

    /** Two sections back to back: the scanner starts the second afresh after the first's end. */
    @Test
    void aNewSectionStartsAfterAnEnd() {
        ByteBuf in = Unpooled.copiedBuffer("GET / HTTP/1.1\r\nA: b\r\n\r\nGET /2 HTTP/1.1\r\n\r\n", ISO_8859_1);
        try {
            Http1SectionScanner scanner = new Http1SectionScanner(1_000, 100);
            int end = scanner.scan(in, 0);
            assertThat(end).isEqualTo(24);
            assertThat(scanner.firstLineEnd()).isEqualTo(15);
            assertThat(scanner.scanned()).isZero();
            assertThat(scanner.scan(in, end)).isEqualTo(in.writerIndex());
            assertThat(scanner.firstLineEnd()).isEqualTo(16);
        } finally {
            in.release();
        }
    }

    /**
     * What a scan of the first {@code available} bytes of {@code s} answers, read byte by byte: the index after
     * the empty line, {@code BARE_LF} or {@code FIRST_LINE_TOO_LONG} in the high half; while more is needed, the
     * first line's LF offset (or -1) in the low half.
     */
    private static long reference(byte[] s, int available, int maxSize, int maxFirstLine) {
        int firstLineEnd = -1;
        for (int j = 0, limit = Math.min(available, maxSize); j < limit; j++) {
            if (s[j] != '\n') {
                continue;
            }
            if (j == 0 || s[j - 1] != '\r') {
                return (long) Http1SectionScanner.BARE_LF << 32;
            }
            if (firstLineEnd < 0) {
                if (j - 1 > maxFirstLine) {
                    return (long) Http1SectionScanner.FIRST_LINE_TOO_LONG << 32;
                }
                firstLineEnd = j;
            }
            if (j == 1 || j != firstLineEnd && s[j - 2] == '\n') {
                return (long) (j + 1) << 32;
            }
        }
        return (long) Http1SectionScanner.NEED_MORE << 32 | firstLineEnd & 0xFFFFFFFFL;
    }
}
