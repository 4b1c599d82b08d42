package io.paduraksa.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The eight-bytes-a-step field-value check against the byte table it stands in for: the word test
 * ({@link Http1Bytes#isPlainFieldValueWord}) for every byte value at every position and for random
 * words, and {@link Http1LineParser#parseField} against the byte-at-a-time parse it replaced (kept
 * here as the oracle) on seeded random lines at every offset, both sides' NUL rule.
 */
class Http1FieldValueWordTest {
    /** Bytes a field line is drawn from, weighted towards the edges of the classes. */
    private static final int[] ALPHABET = {'a', 'Z', '0', '-', ':', ' ', '\t', '\r', 0, 1, 8, 0x0A, 0x1F, 0x20, 0x21, 0x7E,
        0x7F, 0x80, 0xFF, 'x', 'y', ' ', ';', '='};

    @Test
    void everyByteAtEveryPositionAgreesWithTheTable() {
        for (int position = 0; position < 8; position++) {
            for (int b = 0; b < 256; b++) {
                long word = 0x6161616161616161L; // "aaaaaaaa"
                word &= ~(0xFFL << (8 * position));
                word |= (long) b << (8 * position);
                boolean plain = b >= 0x20 && b != 0x7F;
                assertThat(Http1Bytes.isPlainFieldValueWord(word)).as("byte 0x%02x at %d", b, position).isEqualTo(plain);
            }
        }
    }

    @Test
    void randomWordsAgreeWithTheTable() {
        SplittableRandom random = new SplittableRandom(20261203);
        for (int i = 0; i < 1_000_000; i++) {
            long word = 0;
            boolean plain = true;
            for (int k = 0; k < 8; k++) {
                int b = random.nextInt(4) == 0 ? random.nextInt(256) : ALPHABET[random.nextInt(ALPHABET.length)];
                plain &= b >= 0x20 && b != 0x7F;
                word = word << 8 | b;
            }
            assertThat(Http1Bytes.isPlainFieldValueWord(word)).as("word %016x", word).isEqualTo(plain);
        }
    }

    @Test
    void parseFieldAgreesWithTheByteAtATimeParse() {
        SplittableRandom random = new SplittableRandom(7);
        Http1LineParser[] sides = {Http1LineParser.forRequests(), Http1LineParser.forResponses()};
        boolean[] namesNul = {false, true};
        ByteBuf buf = Unpooled.buffer(128);
        try {
            for (int i = 0; i < 300_000; i++) {
                int offset = random.nextInt(9);
                buf.clear().writeZero(offset);
                int nameLength = random.nextInt(6);
                for (int k = 0; k < nameLength; k++) {
                    buf.writeByte(random.nextInt(8) == 0 ? ALPHABET[random.nextInt(ALPHABET.length)] : 'a' + random.nextInt(26));
                }
                if (random.nextInt(10) != 0) {
                    buf.writeByte(':');
                }
                int valueLength = random.nextInt(40);
                boolean clean = random.nextInt(3) != 0;
                for (int k = 0; k < valueLength; k++) {
                    int b = clean ? (random.nextInt(6) == 0 ? ' ' : random.nextInt(0x21, 0x7F))
                            : random.nextInt(3) == 0 ? random.nextInt(256) : ALPHABET[random.nextInt(ALPHABET.length)];
                    buf.writeByte(b);
                }
                int cr = buf.writerIndex();
                buf.writeByte('\r').writeByte('\n');
                for (int s = 0; s < 2; s++) {
                    Oracle expected = Oracle.parse(buf, offset, cr, namesNul[s]);
                    Http1Error got = sides[s].parseField(buf, offset, cr);
                    String line = buf.toString(offset, cr - offset, ISO_8859_1);
                    assertThat(got).as("side %d, line %s", s, escape(line)).isEqualTo(expected.error);
                    if (got == null) {
                        assertThat(new int[] {sides[s].nameEnd(), sides[s].valueStart(), sides[s].valueEnd()})
                                .as("positions, side %d, line %s", s, escape(line))
                                .containsExactly(expected.nameEnd, expected.valueStart, expected.valueEnd);
                    }
                }
            }
        } finally {
            buf.release();
        }
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            sb.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\x%02x", (int) c));
        }
        return sb.toString();
    }

    /** The parse as it was before the word step: every value byte through the table, trailing OWS tracked forwards. */
    private record Oracle(Http1Error error, int nameEnd, int valueStart, int valueEnd) {
        static Oracle parse(ByteBuf in, int p, int cr, boolean namesNul) {
            int first = in.getByte(p) & 0xFF;
            if (first == ' ' || first == '\t') {
                return new Oracle(Http1Error.OBS_FOLD, 0, 0, 0);
            }
            int q = p;
            while (Http1Bytes.isToken(in.getByte(q))) {
                q++;
            }
            int c = in.getByte(q) & 0xFF;
            if (c != ':') {
                Http1Error e = c == ' ' || c == '\t' ? Http1Error.WHITESPACE_BEFORE_COLON
                        : q == cr ? Http1Error.INVALID_HEADER_NAME : invalid(c, namesNul, Http1Error.INVALID_HEADER_NAME);
                return new Oracle(e, 0, 0, 0);
            }
            if (q == p) {
                return new Oracle(Http1Error.EMPTY_HEADER_NAME, 0, 0, 0);
            }
            int nameEnd = q++;
            while (q < cr && (in.getByte(q) == ' ' || in.getByte(q) == '\t')) {
                q++;
            }
            int valueStart = q;
            int end = q;
            for (; q < cr; q++) {
                int b = in.getByte(q) & 0xFF;
                if (!Http1Bytes.isFieldValue(b)) {
                    return new Oracle(invalid(b, namesNul, Http1Error.INVALID_HEADER_VALUE), 0, 0, 0);
                }
                if (b != ' ' && b != '\t') {
                    end = q + 1;
                }
            }
            return new Oracle(null, nameEnd, valueStart, end);
        }

        private static Http1Error invalid(int b, boolean namesNul, Http1Error otherwise) {
            return b == '\r' ? Http1Error.BARE_CR : b == 0 && namesNul ? Http1Error.NUL : otherwise;
        }
    }
}
