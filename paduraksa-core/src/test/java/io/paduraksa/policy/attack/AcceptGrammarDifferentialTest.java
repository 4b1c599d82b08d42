package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ProtocolChecks#isAcceptGrammar} (920600, read in one pass) against CRS 3.3.4's own regex for
 * the rule, run here by {@code java.util.regex} (a backtracking engine, fine in a test). The pattern is
 * copied from {@code rules/REQUEST-920-PROTOCOL-ENFORCEMENT.conf} of coreruleset v3.3.4 (Apache-2.0);
 * ModSecurity applies it after {@code t:lowercase}, and fires when it does not match. One change for
 * Java's syntax: a {@code [} inside a class, literal in PCRE, is escaped ({@code \\[}), since Java reads
 * it as a nested class.
 */
class AcceptGrammarDifferentialTest {
    private static final Pattern CRS_920600 = Pattern.compile("^(?:(?:\\*|[^\"(),\\/:;<=>?!\\[\\x5c\\]{}]+)\\/(?:\\*|[^\"(),\\/:;<=>?!\\[\\x5c\\]{}]+))(?:\\s*+;\\s*+(?:(?:charset\\s*+=\\s*+(?:\"?(?:iso-8859-15?|windows-1252|utf-8)\\b\"?))|(?:(?:c(?:h(?:a(?:r(?:s(?:e[^t\"(),\\/:;<=>?!\\[\\x5c\\]{}]|[^e\"(),/:;<=>?!\\[\\x5c\\]{}])|[^s\"(),/:;<=>?!\\[\\x5c\\]{}])|[^r\"(),/:;<=>?!\\[\\x5c\\]{}])|[^a\"(),/:;<=>?!\\[\\x5c\\]{}])|[^h\"(),/:;<=>?!\\[\\x5c\\]{}])|[^c\"(),/:;<=>?!\\[\\x5c\\]{}])[^\"(),/:;<=>?!\\[\\x5c\\]{}]*(?:)\\s*+=\\s*+[^(),/:;<=>?!\\[\\x5c\\]{}]+)|;?))*(?:\\s*+,\\s*+(?:(?:\\*|[^\"(),\\/:;<=>?!\\[\\x5c\\]{}]+)\\/(?:\\*|[^\"(),\\/:;<=>?!\\[\\x5c\\]{}]+))(?:\\s*+;\\s*+(?:(?:charset\\s*+=\\s*+(?:\"?(?:iso-8859-15?|windows-1252|utf-8)\\b\"?))|(?:(?:c(?:h(?:a(?:r(?:s(?:e[^t\"(),\\/:;<=>?!\\[\\x5c\\]{}]|[^e\"(),/:;<=>?!\\[\\x5c\\]{}])|[^s\"(),/:;<=>?!\\[\\x5c\\]{}])|[^r\"(),/:;<=>?!\\[\\x5c\\]{}])|[^a\"(),/:;<=>?!\\[\\x5c\\]{}])|[^h\"(),/:;<=>?!\\[\\x5c\\]{}])|[^c\"(),/:;<=>?!\\[\\x5c\\]{}])[^\"(),/:;<=>?!\\[\\x5c\\]{}]*(?:)\\s*+=\\s*+[^(),/:;<=>?!\\[\\x5c\\]{}]+)|;?))*)*$");
    private static final String[] PIECES = {"text", "html", "*", "/", ",", ";", " ", "\t", "=", "q", "0.9", "charset", "CharSet",
        "utf-8", "UTF-8", "iso-8859-1", "iso-8859-15", "windows-1252", "utf-16", "\"", "chars", "char", "x", "5", "(", "!", "\\",
        "]", "{", "a", "_", "level", "ch", "c", "e", "t", "-", "[", ".", "\r\n", "\u00e9", "application/json", "*/*", ";q=0.8"};
    private static final String[] TYPES = {"text", "html", "*", "application", "xhtml+xml", "image", "webp", "Audio", "x y"};
    private static final String[] PARAMETERS = {";q=0.9", "; q=1", ";charset=utf-8", "; charset = \"ISO-8859-15\"", ";charset=iso-8859-1",
        ";charset=windows-1252", ";charset=utf-16", ";charset=utf-8_", ";level=1", ";", " ;", ";chars =x", ";char=1", ";charsetx=1",
        ";v=b3", ";a=\"b c\"", ";x=", ";=1"};
    private static final String[] SEPARATORS = {",", ", ", " ,", ",\t", ",,"};
    private static final int INPUTS = 200_000;

    @Test
    void agreesWithCrsRegexOnGeneratedValues() {
        Random random = new Random(0x920600L);
        int outside = 0;
        for (int n = 0; n < INPUTS; n++) {
            StringBuilder b = new StringBuilder();
            if (random.nextBoolean()) {
                for (int k = 1 + random.nextInt(12); k > 0; k--) {
                    b.append(PIECES[random.nextInt(PIECES.length)]);
                }
            } else { // a well-formed list, then up to two pieces inserted anywhere
                for (int m = 1 + random.nextInt(4); m > 0; m--) {
                    b.append(TYPES[random.nextInt(TYPES.length)]).append('/').append(TYPES[random.nextInt(TYPES.length)]);
                    for (int k = random.nextInt(3); k > 0; k--) {
                        b.append(PARAMETERS[random.nextInt(PARAMETERS.length)]);
                    }
                    b.append(m > 1 ? SEPARATORS[random.nextInt(SEPARATORS.length)] : "");
                }
                for (int k = random.nextInt(3); k > 0; k--) {
                    b.insert(random.nextInt(b.length() + 1), PIECES[random.nextInt(PIECES.length)]);
                }
            }
            String value = b.toString();
            boolean crs = CRS_920600.matcher(value.toLowerCase(Locale.ROOT)).matches();
            assertThat(ProtocolChecks.isAcceptGrammar(value)).as("input #%d '%s'", n, value).isEqualTo(crs);
            outside += crs ? 0 : 1;
        }
        // the generator reaches both sides often: a test that only ever sees one answer proves nothing
        assertThat(outside).isBetween(INPUTS / 10, INPUTS - INPUTS / 10);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        "*/*", "application/json, text/plain, */*", "text/html;level=1", "text/html; charset=UTF-8", "text/plain;charset=\"iso-8859-15\"",
        "image/webp,*/*", "text/html;", "text/html;;q=1", "audio/*; q=0.2, audio/basic"})
    void browserAndApiValuesAreInTheGrammar(String value) {
        assertThat(ProtocolChecks.isAcceptGrammar(value)).isTrue();
        assertThat(CRS_920600.matcher(value.toLowerCase(Locale.ROOT)).matches()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "*", "text", "text/", "text/html;q", "text/html;charset=utf-16", "text/html;charset=utf-8x",
        "text/html;chars=1", "text/html,", "text/html;q=(1)", "text/html;\"q\"=1"})
    void valuesOutsideItAreFound(String value) {
        assertThat(ProtocolChecks.isAcceptGrammar(value)).isFalse();
        assertThat(CRS_920600.matcher(value.toLowerCase(Locale.ROOT)).matches()).isFalse();
    }
}
