package io.paduraksa.policy.attack;

import static io.paduraksa.policy.attack.AttacksBodyTest.DENIED;
import static io.paduraksa.policy.attack.AttacksBodyTest.lastLog;
import static io.paduraksa.policy.attack.AttacksBodyTest.request;
import static io.paduraksa.policy.attack.AttacksBodyTest.scan;
import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.policy.PolicyDecision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** multipart/form-data bodies: names, file names and contents inspected wherever the chunks are cut; hostile framing scored. */
class AttacksMultipartTest {
    static final String TYPE = "multipart/form-data; boundary=----WebKitFormBoundaryx1y2";
    static final String B = "------WebKitFormBoundaryx1y2";

    static AttacksPolicy policy(long fileBytes) {
        return new AttacksPolicy("waf", 1, 5, true, true, true, List.of("User-Agent", "Referer"), false, List.of(), DENIED,
                1024 * 1024, false, TimeUnit.SECONDS.toNanos(10), fileBytes);
    }

    static String field(String name, String value) {
        return B + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
    }

    static String file(String name, String fileName, String content) {
        return B + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n";
    }

    static String body(String... parts) {
        return String.join("", parts) + B + "--\r\n";
    }

    private static int length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            SQLi in a value          | comment | 1 union select password from users | 942
            XSS in a value           | comment | <script>alert(1)</script>           | 941
            Java in a value          | payload | {"ProcessBuilder.evil.clonetransformer": "java.lang.Runtime"} | 944
            XSS in a name            | <script>alert(1)</script> | x                     | 941
            CR LF dash in a value    | comment | a\\r\\n-not-the-boundary\\r\\n--x union select 1 | 942
            """)
    void attacksInPartsAreDeniedWhereverTheChunksAreCut(String what, String name, String value, String group) {
        AttacksPolicy policy = policy(0);
        String body = body(field("name", "Ann"), field(name, value.replace("\\r\\n", "\r\n")), field("last", "x"));
        assertThat(scan(policy, request(TYPE), body)).as("whole").isSameAs(DENIED);
        assertThat(lastLog()).contains(group).contains(" body");
        for (int cut = 0; cut <= length(body); cut++) {
            assertThat(scan(policy, request(TYPE), body, cut)).as("cut at " + cut).isSameAs(DENIED);
        }
    }

    @Test
    void aCleanFormWithAFileContinuesWhereverTheChunksAreCut() {
        AttacksPolicy policy = policy(1024);
        String body = body(field("name", "Siobhán O'Brien"), field("email", "ann+tag@example.test"),
                file("avatar", "me & my cat.png", "PNG-but-text\r\n--almost a delimiter\r\n"), field("empty", ""));
        for (int cut = 0; cut <= length(body); cut++) {
            assertThat(scan(policy, request(TYPE), body, cut)).as("cut at " + cut + ": " + lastLog()).isSameAs(PolicyDecision.CONTINUE);
        }
        String quoted = "multipart/form-data; boundary=\"a'()+_,-./:=?\"";
        assertThat(scan(policy, request(quoted), "--a'()+_,-./:=?\r\nContent-Disposition: form-data; name=q\r\n\r\nhi\r\n--a'()+_,-./:=?--"))
                .as(lastLog()).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void aFilePartIsInspectedByItsNameAndOnlyItsFirstBytes() {
        String attack = file("upload", "a.txt", "x".repeat(100) + " union select password from users");
        assertThat(scan(policy(0), request(TYPE), body(attack))).as("content not inspected: " + lastLog()).isSameAs(PolicyDecision.CONTINUE);
        assertThat(scan(policy(64), request(TYPE), body(attack))).as("attack after the first 64 bytes").isSameAs(PolicyDecision.CONTINUE);
        assertThat(scan(policy(1024), request(TYPE), body(attack))).isSameAs(DENIED);
        // A file ending in CR LF, then CR LF and the delimiter: the next field is its own part, not hidden in the file.
        assertThat(scan(policy(0), request(TYPE), body(file("upload", "a.txt", "text\r\n"), field("q", "1 union select password from users"))))
                .isSameAs(DENIED);
        assertThat(scan(policy(0), request(TYPE), body(file("upload", "shell.php", "x")))).isSameAs(DENIED);
        assertThat(lastLog()).contains("933111 file_name");
        assertThat(scan(policy(0), request(TYPE), body(file("upload", "<script>alert(1)</script>.txt", "x")))).isSameAs(DENIED);
        assertThat(lastLog()).contains("941");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            = in a field name     | form-data; name="fi=le"; filename="test"
            ; in a field name     | form-data; name="fi;le"
            = in a file name      | form-data; name="f"; filename="file=.txt"
            quote in a file name  | form-data; name="f"; filename="a\\"b.txt"
            """)
    void quotesEqualsAndSemicolonsInNamesAreCrs920120(String what, String disposition) {
        String body = B + "\r\nContent-Disposition: " + disposition + "\r\n\r\nv\r\n" + B + "--";
        assertThat(scan(policy(0), request(TYPE), body)).isSameAs(DENIED);
        assertThat(lastLog()).contains("920120");
        String entity = B + "\r\nContent-Disposition: form-data; name=\"f\"; filename=\"caf&eacute;.txt\"\r\n\r\nv\r\n" + B + "--";
        assertThat(scan(policy(0), request(TYPE), entity)).as("an HTML entity's ; " + lastLog()).isSameAs(PolicyDecision.CONTINUE);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            no boundary            | multipart/form-data                                | no close delimiter
            empty boundary         | multipart/form-data; boundary=                     | x
            two boundaries         | multipart/form-data; boundary=a; boundary=b        | x
            boundary over 70       | multipart/form-data; boundary=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | x
            boundary with a bad byte | multipart/form-data; boundary=a[b                | x
            """)
    void aMissingOrMalformedBoundaryIsScoredInTheHead(String what, String type, String ignored) {
        assertThat(policy(0).evaluate(request(type))).isSameAs(DENIED);
        // A threshold nothing reaches, so 920470 (which some of these also break) does not stop the checks first.
        AttacksPolicy everyCheck = new AttacksPolicy("waf", 1, 1000, true, true, true, List.of(), false, List.of(), DENIED);
        everyCheck.evaluate(request(type));
        assertThat(AttacksPolicy.lastMatchesOnThisThread()).contains("920900");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            unterminated             | <f>                 | no close delimiter
            data before the first    | junk<f>             | data before the first boundary
            boundary inside a part   | <b>xyz<f>           | boundary followed by data
            no name                  | <nn>                | part without a Content-Disposition name
            two dispositions         | <dd>                | malformed Content-Disposition
            unclosed quote           | <uq>                | malformed Content-Disposition
            bare CR in a header      | <cr>                | CR without LF
            data after the close     | <f><end>tail        | data after the close delimiter
            empty body               |                     | no close delimiter
            """)
    void hostileFramingIsScored(String what, String shape, String why) {
        String body = (shape == null ? "" : shape).replace("<f>", field("a", "b")).replace("<b>", B).replace("<end>", B + "--\r\n")
                .replace("<nn>", B + "\r\nContent-Type: text/plain\r\n\r\nv\r\n" + B + "--")
                .replace("<dd>", B + "\r\nContent-Disposition: form-data; name=a\r\nContent-Disposition: form-data; name=b\r\n\r\nv\r\n" + B + "--")
                .replace("<uq>", B + "\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n" + B + "--")
                .replace("<cr>", B + "\r\nContent-Disposition: form-data; name=a\rX\r\n\r\nv\r\n" + B + "--");
        assertThat(scan(policy(0), request(TYPE), body)).isSameAs(DENIED);
        assertThat(lastLog()).contains("920900").contains(why);
    }

    @Test
    void hugePartHeadersAndTooManyHeadersOrPartsAreScored() {
        String huge = B + "\r\nContent-Disposition: form-data; name=\"" + "a".repeat(4000) + "\"\r\n\r\nv\r\n" + B + "--";
        assertThat(scan(policy(0), request(TYPE), huge)).isSameAs(DENIED);
        assertThat(lastLog()).contains("part header line over 2048 bytes");
        String many = B + "\r\nContent-Disposition: form-data; name=a\r\n" + "X-A: b\r\n".repeat(16) + "\r\nv\r\n" + B + "--";
        assertThat(scan(policy(0), request(TYPE), many)).isSameAs(DENIED);
        assertThat(lastLog()).contains("more than 16 part header lines");
        StringBuilder parts = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            parts.append(field("f" + i, "v"));
        }
        assertThat(scan(policy(0), request(TYPE), parts + B + "--")).isSameAs(DENIED);
        assertThat(lastLog()).contains("more than 1024 parts");
        StringBuilder allowed = new StringBuilder();
        for (int i = 0; i < 1024; i++) {
            allowed.append(field("f" + i, "v"));
        }
        assertThat(scan(policy(0), request(TYPE), allowed + B + "--")).as(lastLog()).isSameAs(PolicyDecision.CONTINUE);
    }
}
