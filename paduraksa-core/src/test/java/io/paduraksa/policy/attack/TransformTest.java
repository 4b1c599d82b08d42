package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The CRS transformation chain, in place on a scratch buffer. */
class TransformTest {

    private static String run(String input, int part) {
        byte[] b = input.getBytes(StandardCharsets.ISO_8859_1);
        int n = AttacksPolicy.transform(b, b.length, part);
        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            a+b%20c                     | a b c
            %253Cscript%253E            | <script>
            %u003Cscript%u003E          | <script>
            %uFF1Cscript%uFF1E          | <script>
            &lt;SCRIPT&gt;              | <script>
            &#60;&#x3C;&#x3c            | <<<
            &colon;&LPAR;&rpar;         | :()
            UN/**/ION SEL/* x */ECT     | un ion sel ect
            /*!50000UnIoN*/SeLeCt       | union select
            a/* never closed            | a<SP>
            a%09%09%20b                 | a b
            a%0d%0ab                    | a<LF>b
            %zz%4                       | %zz%4
            &unknown;&#;&               | &unknown;&#;&
            """)
    void queryValuesAreDecodedTwiceFoldedAndCompressed(String input, String expected) {
        assertThat(run(input, Part.QUERY)).isEqualTo(expected.replace("<LF>", "\n").replace("<SP>", " "));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            /a//b/./c                   | /a/b/c
            /a\\b                       | /a/b
            /a/%2e%2e/b                 | /a/../b
            /a+b                        | /a+b
            """)
    void pathsAreNormalisedButKeepDotDot(String input, String expected) {
        assertThat(run(input, Part.PATH)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            w'h'o^am\\i                 | whoami
            FOR   /F "x" %a IN (y) DO z | for/f x %a in(y) do z
            a,b;c  d                    | a b c d
            %22ca%22t+/etc/passwd       | cat/etc/passwd
            """)
    void cmdLineDropsQuotesAndCaretsAndJoinsSlashesAndParentheses(String input, String expected) {
        byte[] b = input.getBytes(StandardCharsets.ISO_8859_1);
        int n = AttacksPolicy.transformCmdLine(b, b.length, Part.QUERY);
        assertThat(new String(b, 0, n, StandardCharsets.ISO_8859_1)).isEqualTo(expected);
    }

    /**
     * The shortcut chains (steps a value cannot need are skipped, from {@link Transform#classify}) give
     * the same bytes as every step run in turn, on 200,000 seeded random values over the characters the
     * steps react to; and where {@link AttacksPolicy} walks the command-line rules over the main form
     * (no {@code % & * +}, whitespace or cmdLine characters), both forms are equal.
     */
    /**
     * Full-width forms fold to ASCII (U+FF1C is {@code <}); a truncated or invalid sequence, a code
     * point outside U+FF01..U+FF5E and an {@code EF} at the end stay as they are. Bytes as the wire
     * carries them (UTF-8), one char per byte.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            \u00ef\u00bc\u009cscript\u00ef\u00bc\u009e       | <script>
            \u00ef\u00bc\u0081\u00ef\u00bd\u009e            | !~
            \u00ef\u00bc\u00a1\u00ef\u00bc\u00a2            | ab
            \u00ef\u00bc\u0080x                  | \u00ef\u00bc\u0080x
            \u00ef\u00bd\u009fx                  | \u00ef\u00bd\u009fx
            \u00ef\u00bf\u00bdx                  | \u00ef\u00bf\u00bdx
            a\u00ef\u00bc                        | a\u00ef\u00bc
            a\u00ef                              | a\u00ef
            \u00ef\u00ef\u00bc\u009c                 | \u00ef<
            \u00ef\u003c\u009c                     | \u00ef<\u009c
            """)
    void fullWidthFormsFoldAndBrokenSequencesStay(String input, String expected) {
        assertThat(run(input, Part.HEADER)).isEqualTo(expected);
    }

    @Test
    void shortcutChainsEqualTheFullChains() {
        String alphabet = "aZ09%+&*/ \t\n\u00a0\\\"'^,;#!-.<>()x2eFuU;lt\u00ef\u00bc\u00bd\u009c\u00bf";
        Random random = new Random(7);
        int[] parts = {Part.PATH, Part.QUERY, Part.COOKIE, Part.HEADER, Part.USER_AGENT};
        for (int i = 0; i < 200_000; i++) {
            byte[] value = new byte[random.nextInt(12)];
            for (int k = 0; k < value.length; k++) {
                value[k] = (byte) alphabet.charAt(random.nextInt(alphabet.length()));
            }
            int part = parts[i % parts.length];
            String what = new String(value, StandardCharsets.ISO_8859_1) + " as " + Part.name(part);
            byte[] fast = value.clone();
            byte[] full = value.clone();
            int n = AttacksPolicy.transform(fast, fast.length, part);
            int m = AttacksPolicy.transformFully(full, full.length, part);
            assertThat(Arrays.copyOf(fast, n)).as("main chain of %s", what).isEqualTo(Arrays.copyOf(full, m));
            byte[] cmdFast = value.clone();
            byte[] cmdFull = value.clone();
            int cn = AttacksPolicy.transformCmdLine(cmdFast, cmdFast.length, part);
            int cm = AttacksPolicy.transformCmdLineFully(cmdFull, cmdFull.length, part);
            assertThat(Arrays.copyOf(cmdFast, cn)).as("cmdLine chain of %s", what).isEqualTo(Arrays.copyOf(cmdFull, cm));
            if ((Transform.classify(value, 0, value.length) & ~Transform.UPPER) == 0 && part != Part.PATH) {
                assertThat(Arrays.copyOf(cmdFull, cm)).as("both forms of %s", what).isEqualTo(Arrays.copyOf(full, m));
            }
        }
    }
}
