package io.paduraksa.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The line grammar both decoders share, once: each row is a field line or chunk-size line (without
 * its CRLF) and the error each side reports (null: accepted). The decoder tests cover the same
 * bytes through the request and response decoders.
 */
class Http1LineParserTest {

    static Stream<Arguments> fieldLines() {
        return Stream.of(
                row("Name: value", null, null),
                row("Name:value  ", null, null),
                row("Name:", null, null),
                row(" folded", Http1Error.OBS_FOLD, Http1Error.OBS_FOLD),
                row(": empty name", Http1Error.EMPTY_HEADER_NAME, Http1Error.EMPTY_HEADER_NAME),
                row("Name : value", Http1Error.WHITESPACE_BEFORE_COLON, Http1Error.WHITESPACE_BEFORE_COLON),
                row("No colon", Http1Error.WHITESPACE_BEFORE_COLON, Http1Error.WHITESPACE_BEFORE_COLON),
                row("Nocolon", Http1Error.INVALID_HEADER_NAME, Http1Error.INVALID_HEADER_NAME),
                row("Na(me: value", Http1Error.INVALID_HEADER_NAME, Http1Error.INVALID_HEADER_NAME),
                row("Na\rme: value", Http1Error.BARE_CR, Http1Error.BARE_CR),
                row("Na\0me: value", Http1Error.INVALID_HEADER_NAME, Http1Error.NUL),
                row("Name: a\rb", Http1Error.BARE_CR, Http1Error.BARE_CR),
                row("Name: a\0b", Http1Error.INVALID_HEADER_VALUE, Http1Error.NUL),
                row("Name: a\u0001b", Http1Error.INVALID_HEADER_VALUE, Http1Error.INVALID_HEADER_VALUE),
                row("Name: a\u007fb", Http1Error.INVALID_HEADER_VALUE, Http1Error.INVALID_HEADER_VALUE));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("fieldLines")
    void fieldLineErrorsPerSide(String line, Http1Error request, Http1Error response) {
        assertThat(parseField(Http1LineParser.forRequests(), line)).isEqualTo(request);
        assertThat(parseField(Http1LineParser.forResponses(), line)).isEqualTo(response);
    }

    @Test
    void fieldPositionsAreAbsoluteAndTheValueIsTrimmed() {
        ByteBuf buf = Unpooled.copiedBuffer("xxName: \t v a l \t", ISO_8859_1);
        try {
            Http1LineParser lines = Http1LineParser.forRequests();
            assertThat(lines.parseField(buf, 2, buf.writerIndex())).isNull();
            assertThat(lines.nameEnd()).isEqualTo(6);
            assertThat(buf.toString(lines.valueStart(), lines.valueEnd() - lines.valueStart(), ISO_8859_1)).isEqualTo("v a l");
        } finally {
            buf.release();
        }
    }

    /** The LF search over a section's copy, eight bytes a step, against a plain loop: bytes near LF in value (0x09-0x0B, 0x8A, 0x00), every start and end. */
    @Test
    void indexOfLfFindsTheFirstLfOfTheRange() {
        byte[] alphabet = {0x0A, 0x0B, 0x09, 0x00, (byte) 0x8A, 0x0D, 'a', (byte) 0xFF, 0x01};
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 20_000; round++) {
            byte[] a = new byte[random.nextInt(40)];
            int density = 1 + random.nextInt(40);
            for (int i = 0; i < a.length; i++) {
                a[i] = random.nextInt(density) == 0 ? 0x0A : alphabet[1 + random.nextInt(alphabet.length - 1)];
            }
            int from = a.length == 0 ? 0 : random.nextInt(a.length + 1);
            int to = from + random.nextInt(a.length - from + 1);
            int expected = from;
            while (expected < to && a[expected] != 0x0A) {
                expected++;
            }
            assertThat(Http1LineParser.indexOfLf(a, from, to)).as("round %d", round).isEqualTo(expected);
        }
    }

    /**
     * A section parsed in one copy ({@code parseFields}) records what each line parsed alone
     * ({@code parseField}) does: the same error or the same positions, for random sections of up to
     * 30 lines (some longer than the copy's first 1,024 bytes) at an offset inside a bigger buffer; and the
     * section knows whether a name it took has a {@code _}.
     */
    @Test
    void aSectionParsedInOneCopyAgreesWithItsLinesParsedAlone() {
        String[] pieces = {"Host", "x-a", "Content-Length", ":", ": ", ":\t", " ", "\t", "v", "value with spaces",
            "\u00e9", "\u0001", "\u007f", "(", "\u0000", "12345678", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "x_b", "_"};
        SplittableRandom random = new SplittableRandom(11);
        for (boolean requests : new boolean[] {true, false}) {
            Http1LineParser lines = requests ? Http1LineParser.forRequests() : Http1LineParser.forResponses();
            Http1LineParser each = requests ? Http1LineParser.forRequests() : Http1LineParser.forResponses();
            for (int round = 0; round < 3_000; round++) {
                StringBuilder section = new StringBuilder();
                int count = random.nextInt(31);
                for (int i = 0; i < count; i++) {
                    for (int k = random.nextInt(6); k >= 0; k--) {
                        section.append(pieces[random.nextInt(pieces.length)]);
                    }
                    if (random.nextInt(50) == 0) {
                        section.append("y".repeat(1_100));
                    }
                    section.append("\r\n");
                }
                section.append("\r\n");
                String before = "GET / HTTP/1.1\r\n".substring(0, random.nextInt(17));
                ByteBuf buf = Unpooled.copiedBuffer(before + section + "body", ISO_8859_1);
                try {
                    List<String> inOneCopy = new ArrayList<>();
                    TestSection fields = new TestSection();
                    Http1Error error = lines.parseFields(buf, before.length(), before.length() + section.length(), fields, 0,
                            (in, lineStart, index) -> {
                                inOneCopy.add(lineStart + " " + lines.nameEnd() + " " + lines.valueStart() + " " + lines.valueEnd());
                                return null;
                            });
                    if (error != null) {
                        inOneCopy.add(error.name());
                    }
                    List<String> lineByLine = new ArrayList<>();
                    boolean underscore = false;
                    for (int p = before.length(); ; ) {
                        int cr = buf.indexOf(p, buf.writerIndex(), (byte) '\n') - 1;
                        if (cr == p) {
                            break;
                        }
                        Http1Error lineError = each.parseField(buf, p, cr);
                        if (lineError != null) {
                            lineByLine.add(lineError.name());
                            break;
                        }
                        lineByLine.add(p + " " + each.nameEnd() + " " + each.valueStart() + " " + each.valueEnd());
                        underscore |= buf.toString(p, each.nameEnd() - p, ISO_8859_1).contains("_");
                        p = cr + 2;
                    }
                    assertThat(inOneCopy).as("%s", section).isEqualTo(lineByLine);
                    assertThat(fields.hasUnderscoreNames()).as("a name with _ in %s", section).isEqualTo(underscore);
                } finally {
                    buf.release();
                }
            }
        }
    }

    static Stream<Arguments> chunkLines() {
        return Stream.of(
                chunk("a", 10, 10),
                chunk("A;name=value", 10, 10),
                chunk("1 ; name = \"quoted \\\" value\"", 1, 1),
                chunk("", -1, -1),
                chunk("x", -1, -1),
                chunk("7fffffffffffffff", Long.MAX_VALUE, Long.MAX_VALUE),
                // requests: at most 16 digits, a size beyond a long saturates (the body limit refuses it)
                chunk("8000000000000000", Long.MAX_VALUE, -1),
                chunk("00000000000000001", -1, 1),
                chunk("1;", -1, -1),
                chunk("1 x", -1, -1),
                chunk("1;a=\"open", -1, -1));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("chunkLines")
    void chunkSizesPerSide(String line, long request, long response) {
        assertThat(parseChunkLine(Http1LineParser.forRequests(), line)).isEqualTo(request);
        assertThat(parseChunkLine(Http1LineParser.forResponses(), line)).isEqualTo(response);
    }

    @Test
    void chunkLineErrorsSayWhy() {
        Http1LineParser requests = Http1LineParser.forRequests();
        Http1LineParser responses = Http1LineParser.forResponses();
        assertThat(chunkError(requests, "zz")).isEqualTo(Http1Error.INVALID_CHUNK_SIZE);
        assertThat(chunkError(requests, "1;a\0")).isEqualTo(Http1Error.INVALID_CHUNK_EXTENSION);
        assertThat(chunkError(responses, "1;a\0")).isEqualTo(Http1Error.NUL);
        assertThat(chunkError(requests, "1;a\rb")).isEqualTo(Http1Error.BARE_CR);
        assertThat(chunkError(requests, "1\0")).isEqualTo(Http1Error.INVALID_CHUNK_EXTENSION);
        assertThat(chunkError(responses, "1\0")).isEqualTo(Http1Error.NUL);
        assertThat(chunkError(responses, "1\r")).isEqualTo(Http1Error.BARE_CR);
    }

    @Test
    void everyErrorBelongsToAtLeastOneSide() {
        for (Http1Error e : Http1Error.values()) {
            assertThat(e.isRequestError() || e.isResponseError()).as(e.name()).isTrue();
            assertThat(e.reason()).isNotBlank();
        }
    }

    @Test
    void asciiViewReadsBytesAsChars() {
        ByteBuf buf = Unpooled.copiedBuffer("xxHeLLo\u00e9yy", ISO_8859_1);
        try {
            AsciiView v = new AsciiView().point(buf, 2, 8);
            assertThat(v.length()).isEqualTo(6);
            assertThat(v.charAt(5)).isEqualTo('\u00e9');
            assertThat(v).hasToString("HeLLo\u00e9");
            assertThat(v.subSequence(1, 3).toString()).isEqualTo("eL");
            assertThat(new AsciiView().point(buf, 2, 7).contentEqualsIgnoreCase(AsciiString.of("hello"))).isTrue();
            assertThat(new AsciiView().point(buf, 2, 7).contentEquals(AsciiString.of("hello"))).isFalse();
            assertThatThrownBy(() -> v.charAt(6)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(v.clear().length()).isZero();
            assertThat(v.toString()).isEmpty();
        } finally {
            buf.release();
        }
    }

    private static Arguments row(String line, Http1Error request, Http1Error response) {
        return Arguments.of(line, request, response);
    }

    private static Arguments chunk(String line, long request, long response) {
        return Arguments.of(line, request, response);
    }

    /** The line followed by CRLF, parsed up to its CR (as the decoders do). */
    private static Http1Error parseField(Http1LineParser lines, String line) {
        ByteBuf buf = Unpooled.copiedBuffer(line + "\r\n", ISO_8859_1);
        try {
            return lines.parseField(buf, 0, line.length());
        } finally {
            buf.release();
        }
    }

    private static long parseChunkLine(Http1LineParser lines, String line) {
        ByteBuf buf = Unpooled.copiedBuffer(line + "\r\n", ISO_8859_1);
        try {
            return lines.parseChunkLine(buf, 0, line.length());
        } finally {
            buf.release();
        }
    }

    private static final class TestSection extends Http1FieldSection {
        TestSection() {
            super(64, 16);
        }
    }

    private static Http1Error chunkError(Http1LineParser lines, String line) {
        assertThat(parseChunkLine(lines, line)).isEqualTo(-1);
        return lines.chunkLineError();
    }
}
