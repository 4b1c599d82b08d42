package io.paduraksa.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.paduraksa.testing.BulkText;
import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link TextBytes#write} appends the same bytes whatever the text is: a view over a heap or a direct
 * buffer (only its own range, not the bytes around it), an {@link AsciiString} with an offset, a
 * String, an AsciiText with neither an array nor a buffer ({@link BulkText}: the interface's own per-char
 * path); and refuses a range outside it.
 */
class TextBytesWriteTest {
    private static final String AROUND = "<<";

    @Test
    void everyKindOfTextWritesTheSameBytesWholeAndInRanges() {
        SplittableRandom random = new SplittableRandom(20261206);
        ByteBuf out = Unpooled.buffer();
        for (int round = 0; round < 2_000; round++) {
            String text = randomLatin1(random, random.nextInt(0, 40));
            Forms forms = forms(text);
            try {
                int from = text.isEmpty() ? 0 : random.nextInt(0, text.length() + 1);
                int to = from + (text.length() == from ? 0 : random.nextInt(0, text.length() - from + 1));
                for (CharSequence form : forms.texts()) {
                    out.clear();
                    out.writeByte('[');
                    TextBytes.write(out, form);
                    out.writeByte('|');
                    TextBytes.write(out, form, from, to);
                    out.writeByte(']');
                    assertThat(out.toString(StandardCharsets.ISO_8859_1))
                            .as("%s over %s", form.getClass().getSimpleName(), text)
                            .isEqualTo("[" + text + "|" + text.substring(from, to) + "]");
                }
            } finally {
                forms.release();
            }
        }
        out.release();
    }

    @Test
    void aRangeOutsideTheTextIsRefusedForEveryKind() {
        Forms forms = forms("host.test");
        ByteBuf out = Unpooled.buffer();
        try {
            for (CharSequence form : forms.texts()) {
                assertThatThrownBy(() -> TextBytes.write(out, form, 3, 10)).as(form.getClass().getSimpleName())
                        .isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> TextBytes.write(out, form, -1, 2)).as(form.getClass().getSimpleName())
                        .isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> TextBytes.write(out, form, 5, 4)).as(form.getClass().getSimpleName())
                        .isInstanceOf(IndexOutOfBoundsException.class);
            }
            assertThat(out.readableBytes()).isZero();
        } finally {
            out.release();
            forms.release();
        }
    }

    @Test
    void bytesOfEveryKindOfShortTextAndNoneForLongOrNonLatin1Text() {
        Forms forms = forms("Host-\u00e9");
        try {
            for (CharSequence form : forms.texts()) {
                byte[] a = TextBytes.bytes(form);
                assertThat(a).as(form.getClass().getSimpleName()).isNotNull();
                int offset = TextBytes.offset(form, a);
                assertThat(new String(a, offset, form.length(), StandardCharsets.ISO_8859_1)).isEqualTo("Host-\u00e9");
            }
        } finally {
            forms.release();
        }
        assertThat(TextBytes.bytes("GE\u0100")).as("a char above 0xFF").isNull();
        assertThat(TextBytes.bytes("x".repeat(TextBytes.SCRATCH_LENGTH + 1))).as("longer than the scratch").isNull();
        assertThat(TextBytes.bytes(AsciiString.of("x".repeat(500)))).as("an array is read in place, whatever its length").isNotNull();
    }

    @Test
    void indexOfFindsTheFirstCharInsideTheTextOnlyForEveryKind() {
        SplittableRandom random = new SplittableRandom(20261207);
        for (int round = 0; round < 2_000; round++) {
            String text = randomLatin1(random, random.nextInt(0, 24));
            Forms forms = forms(text);
            try {
                char[] wanted = {'<', (char) random.nextInt(0, 256), text.isEmpty() ? '_' : text.charAt(random.nextInt(0, text.length())),
                        (char) ('<' + 0x100)};
                for (CharSequence form : forms.texts()) {
                    for (char c : wanted) {
                        assertThat(TextBytes.indexOf(form, c)).as("%s over %s, char %s", form.getClass().getSimpleName(), text, (int) c)
                                .isEqualTo(text.indexOf(c));
                    }
                }
            } finally {
                forms.release();
            }
        }
    }

    /** The text as a heap view, a direct view, an offset AsciiString, a String and a bare AsciiText; bytes around each. */
    private static Forms forms(String text) {
        byte[] bytes = (AROUND + text + AROUND).getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf heap = Unpooled.wrappedBuffer(bytes);
        ByteBuf direct = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
        int from = AROUND.length();
        int to = from + text.length();
        return new Forms(List.of(new AsciiView().point(heap, from, to), new AsciiView().point(direct, from, to),
                new AsciiString(bytes, from, text.length(), false), text, BulkText.readable(text)), heap, direct);
    }

    private record Forms(List<CharSequence> texts, ByteBuf heap, ByteBuf direct) {
        void release() {
            heap.release();
            direct.release();
        }
    }

    private static String randomLatin1(SplittableRandom random, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) random.nextInt(0, 256));
        }
        return b.toString();
    }
}
