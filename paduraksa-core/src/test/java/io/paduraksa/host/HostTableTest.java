package io.paduraksa.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.AsciiString;
import io.paduraksa.testing.BulkText;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostTableTest {
    private static final HostTable<String> TABLE = HostTable.<String>builder()
            .add("example.test", "example")
            .add("www.example.test", "www")
            .add("bücher.test", "books")
            .add("*.w3.test", "w3-wild")
            .add("exact.w3.test", "w3-exact")
            .add("*.localhost", "local-wild")
            .add("192.0.2.10", "v4")
            .add("[2001:db8::1]", "v6")
            .add("[::ffff:192.0.2.1]", "v6-mapped")
            .build();

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            example.test                   | example
            EXAMPLE.Test                   | example
            example.test:8443              | example
            example.test:                  | example
            example.test:0                 | example
            example.test:65535             | example
            example.test.                  | example
            example.test.:8443             | example
            www.example.test               | www
            xn--bcher-kva.test             | books
            XN--BCHER-KVA.TEST:80          | books
            bücher.test                    | -
            a.w3.test                      | w3-wild
            A-1.W3.TEST:8080               | w3-wild
            a.w3.test.                     | w3-wild
            exact.w3.test                  | w3-exact
            a.b.w3.test                    | w3-wild
            A.B.C.W3.TEST:443              | w3-wild
            a.exact.w3.test                | w3-wild
            a..w3.test                     | -
            w3.test                        | -
            .w3.test                       | -
            a_b.w3.test                    | -
            a b.w3.test                    | -
            a:1.w3.test                    | -
            dev.localhost                  | local-wild
            a.dev.localhost                | local-wild
            192.0.2.10                     | v4
            192.0.2.10:8080                | v4
            192.0.2.010                    | -
            [2001:db8::1]                  | v6
            [2001:DB8:0:0:0:0:0:1]         | v6
            [2001:0db8::0001]:8443         | v6
            [2001:db8::1]:                 | v6
            [::ffff:192.0.2.1]             | v6-mapped
            [::ffff:c000:201]:443          | v6-mapped
            [192.0.2.1]                    | -
            [2001:db8::2]                  | -
            [2001:db8::1                   | -
            [2001:db8::1]x                 | -
            [2001:db8::1].                 | -
            [2001:db8::1]:99999            | -
            [2001:db8::1]:123456           | -
            [fe80::1%eth0]                 | -
            [2001:db8::1]]                 | -
            unknown.test                   | -
            example.tes                    | -
            example.test:99999             | -
            example.test:65536             | -
            example.test:123456            | -
            host:99999x                    | -
            example.test:80:80             | -
            example.test:8x                | -
            example.test..                 | -
            a b                            | -
            .                              | -
            :80                            | -
            [                              | -
            ]                              | -
            """)
    void findsEveryInputShape(String host, String expected) {
        assertThat(TABLE.find(host)).isEqualTo(expected);
        assertThat(TABLE.find(new AsciiString(host.getBytes(java.nio.charset.StandardCharsets.UTF_8), false)))
                .as("as AsciiString bytes").isEqualTo(host.equals("bücher.test") ? null : expected);
        String framed = "Host: " + host + "\r\n";
        assertThat(TABLE.find(framed, 6, 6 + host.length())).as("inside a longer sequence").isEqualTo(expected);
    }

    /** Precedence: exact, then the longest wildcard parent, then the catch-all; malformed names reach none of them. */
    private static final HostTable<String> LAYERED = HostTable.<String>builder()
            .add("example.test", "exact")
            .add("*.example.test", "wild")
            .add("*.deep.example.test", "deep-wild")
            .add("exact.deep.example.test", "deep-exact")
            .add("*.test", "tld-wild")
            .add("*", "any")
            .add("192.0.2.10", "v4")
            .add("[2001:db8::1]", "v6")
            .build();

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            example.test                   | exact
            EXAMPLE.TEST.:8443             | exact
            a.example.test                 | wild
            a.b.example.test               | wild
            deep.example.test              | wild
            a.deep.example.test            | deep-wild
            X.Y.DEEP.EXAMPLE.TEST.         | deep-wild
            exact.deep.example.test        | deep-exact
            a.exact.deep.example.test      | deep-wild
            deep.example.test.other.test   | tld-wild
            other.test                     | tld-wild
            test                           | any
            localhost                      | any
            unknown.example                | any
            UNKNOWN.Example:8080           | any
            unknown.example.               | any
            xn--bcher-kva.example          | any
            a-b.c1.example                 | any
            192.0.2.10                     | v4
            192.0.2.10:80                  | v4
            192.0.2.11                     | any
            203.0.113.7:443                | any
            [2001:db8::1]                  | v6
            [2001:DB8::0:1]:8443           | v6
            [2001:db8::2]                  | any
            [::ffff:192.0.2.10]:443        | any
            unknown.example..              | -
            a..b.example.test              | -
            ..example.test                 | -
            .example.test                  | -
            .                              | -
            -a.example.test                | -
            a-.example.test                | -
            a.-b.example.test              | -
            a_b.example.test               | -
            a b.example.test               | -
            a:b.example.test               | -
            bücher.example                 | -
            *                              | -
            *.example.test                 | -
            192.0.2.011                    | -
            192.0.2.256                    | -
            1.2.3                          | -
            example.123                    | -
            [2001:db8::g]                  | -
            [192.0.2.1]                    | -
            [fe80::1%eth0]                 | -
            [2001:db8::1                   | -
            [2001:db8::2]:99999            | -
            example.test:99999             | -
            host:99999x                    | -
            :80                            | -
            """)
    void exactThenLongestWildcardThenCatchAll(String host, String expected) {
        assertThat(LAYERED.find(host)).isEqualTo(expected);
        assertThat(LAYERED.find(new AsciiString(host.getBytes(java.nio.charset.StandardCharsets.UTF_8), false)))
                .as("as AsciiString bytes").isEqualTo(expected);
        String framed = "Host: " + host + "\r\n";
        assertThat(LAYERED.find(framed, 6, 6 + host.length())).as("inside a longer sequence").isEqualTo(expected);
    }

    @Test
    void labelsOf63CharactersMatchAndLongerOnesAreMalformed() {
        String label63 = "a".repeat(63);
        assertThat(LAYERED.find(label63 + ".example.test")).isEqualTo("wild");
        assertThat(LAYERED.find(label63 + ".unknown.example")).isEqualTo("any");
        assertThat(LAYERED.find("a" + label63 + ".example.test")).isNull();
        assertThat(LAYERED.find("x." + "a" + label63 + ".example.test")).isNull();
        assertThat(LAYERED.find("a" + label63)).isNull();
    }

    @Test
    void manyLabelsUpTo253CharactersStillMatch() {
        String deep = "a.".repeat(120) + "example.test";
        assertThat(deep).hasSize(252);
        assertThat(LAYERED.find(deep)).isEqualTo("wild");
        assertThat(LAYERED.find(deep + ".")).as("trailing dot").isEqualTo("wild");
        assertThat(LAYERED.find("b." + deep)).as("254 characters").isNull();
        String unknown = "a.".repeat(126) + "b";
        assertThat(unknown).hasSize(253);
        assertThat(LAYERED.find(unknown)).isEqualTo("any");
        assertThat(LAYERED.find("a." + unknown)).isNull();
        assertThat(LAYERED.find("a.".repeat(5_000) + "example.test")).isNull();
    }

    /**
     * The longest text a lookup reads is a 253-character name, one trailing dot and {@code :65535} (260): it
     * still matches, through every text shape (a request view is copied into a 260-byte scratch); one more
     * character, or a header of thousands, names nothing, whatever the shape.
     */
    @Test
    void theLongestNameWithADotAndAPortStillMatchesThroughEveryShape() {
        String unknown = "a.".repeat(126) + "b";
        String longest = unknown + ".:65535";
        assertThat(longest).hasSize(HostTable.MAX_TEXT);
        for (CharSequence shape : new CharSequence[] {longest, new AsciiString(longest), BulkText.of(longest)}) {
            assertThat(LAYERED.find(shape)).as("%s", shape.getClass().getSimpleName()).isEqualTo("any");
        }
        for (String tooLong : new String[] {unknown + ".:065535", "a" + longest, "a.".repeat(5_000) + "example.test:443"}) {
            for (CharSequence shape : new CharSequence[] {tooLong, new AsciiString(tooLong), BulkText.of(tooLong)}) {
                assertThat(LAYERED.find(shape)).as("%d characters, %s", tooLong.length(), shape.getClass().getSimpleName())
                        .isNull();
            }
        }
    }

    @Test
    void describeSaysHowTheEntryMatched() {
        assertThat(LAYERED.describe("EXAMPLE.test:443")).isEqualTo(new HostTable.Found<>("exact", HostTable.Match.EXACT, "example.test"));
        assertThat(LAYERED.describe("a.b.Deep.example.test."))
                .isEqualTo(new HostTable.Found<>("deep-wild", HostTable.Match.WILDCARD, "*.deep.example.test"));
        assertThat(LAYERED.describe("unknown.example")).isEqualTo(new HostTable.Found<>("any", HostTable.Match.CATCH_ALL, "*"));
        assertThat(LAYERED.describe("[2001:db8:0::1]:443")).isEqualTo(new HostTable.Found<>("v6", HostTable.Match.EXACT, "[2001:db8::1]"));
        assertThat(LAYERED.describe("[2001:db8::2]")).isEqualTo(new HostTable.Found<>("any", HostTable.Match.CATCH_ALL, "*"));
        assertThat(LAYERED.describe("a..b")).isNull();
        assertThat(LAYERED.describe(null)).isNull();
        assertThat(TABLE.describe("unknown.example")).as("no catch-all").isNull();
        assertThat(LAYERED.hasCatchAll()).isTrue();
        assertThat(TABLE.hasCatchAll()).isFalse();
    }

    @Test
    void aCatchAllAloneTakesEveryValidName() {
        HostTable<String> t = HostTable.<String>builder().add("*", "any").build();
        assertThat(t.find("x.test")).isEqualTo("any");
        assertThat(t.find("X.TEST.:80")).isEqualTo("any");
        assertThat(t.find("[::1]")).isEqualTo("any");
        assertThat(t.find("192.0.2.1")).isEqualTo("any");
        assertThat(t.find("a b")).isNull();
        assertThat(t.find("")).isNull();
        assertThat(t.find("[::1")).isNull();
        assertThat(t.names()).containsExactly("*");
    }

    @Test
    void thereIsAtMostOneCatchAll() {
        HostTable.Builder<String> b = HostTable.<String>builder().add("*", "1");
        assertThatThrownBy(() -> b.add("*", "2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a second catch-all '*' (expected at most one catch-all entry)");
        assertThat(b.build().find("x.test")).isEqualTo("1");
    }

    @Test
    void emptyAndNullAreMisses() {
        assertThat(TABLE.find("")).isNull();
        assertThat(TABLE.find(null)).isNull();
        assertThat(TABLE.find("example.test", 3, 3)).isNull();
    }

    @Test
    void anOverlongHostIsAMiss() {
        assertThat(TABLE.find("a".repeat(10_000) + ".example.test")).isNull();
    }

    @Test
    void aTableWithoutWildcardsOrLiteralsStillAnswers() {
        HostTable<String> t = HostTable.<String>builder().add("example.test", "e").build();
        assertThat(t.find("a.example.test")).isNull();
        assertThat(t.find("[::1]")).isNull();
        assertThat(t.find("EXAMPLE.TEST")).isEqualTo("e");
        assertThat(HostTable.<String>builder().build().find("example.test")).isNull();
    }

    @Test
    void sizeAndNamesListEveryEntry() {
        assertThat(TABLE.size()).isEqualTo(9);
        assertThat(TABLE.names()).containsExactly("example.test", "www.example.test", "xn--bcher-kva.test", "*.w3.test",
                "exact.w3.test", "*.localhost", "192.0.2.10", "[2001:db8::1]", "[::ffff:192.0.2.1]");
    }

    @ParameterizedTest(name = "{0} then {1}")
    @CsvSource(delimiter = '|', textBlock = """
            example.test       | example.test      | duplicate host name 'example.test'
            example.test       | EXAMPLE.test      | host name 'EXAMPLE.test' is the same as 'example.test', added before (both are 'example.test')
            example.test       | example.test.     | host name 'example.test.' is the same as 'example.test', added before (both are 'example.test')
            bücher.test        | xn--bcher-kva.test | host name 'xn--bcher-kva.test' is the same as 'bücher.test', added before (both are 'xn--bcher-kva.test')
            XN--BCHER-KVA.test | Bücher.test.      | host name 'Bücher.test.' is the same as 'XN--BCHER-KVA.test', added before (both are 'xn--bcher-kva.test')
            *.w3.test          | *.W3.test         | host name '*.W3.test' is the same as '*.w3.test', added before (both are '*.w3.test')
            [2001:db8::1]      | [2001:DB8:0::0:1] | host name '[2001:DB8:0::0:1]' is the same as '[2001:db8::1]', added before (both are '[2001:db8::1]')
            [::ffff:192.0.2.1] | [::ffff:c000:201] | host name '[::ffff:c000:201]' is the same as '[::ffff:192.0.2.1]', added before (both are '[::ffff:192.0.2.1]')
            """)
    void collisionsAreRejectedNamingBothNames(String first, String second, String message) {
        HostTable.Builder<String> b = HostTable.<String>builder().add(first, "1");
        assertThatThrownBy(() -> b.add(second, "2")).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        HostTable<String> t = b.build();
        assertThat(t.size()).as("the failed add changed nothing").isOne();
    }

    @Test
    void differentKindsOfTheSameTextDoNotCollide() {
        HostTable<String> t = HostTable.<String>builder()
                .add("w3.test", "exact").add("*.w3.test", "wild")
                .add("192.0.2.1", "v4").add("[::ffff:192.0.2.1]", "mapped")
                .build();
        assertThat(t.find("w3.test")).isEqualTo("exact");
        assertThat(t.find("x.w3.test")).isEqualTo("wild");
        assertThat(t.find("192.0.2.1")).isEqualTo("v4");
        assertThat(t.find("[::ffff:192.0.2.1]")).isEqualTo("mapped");
    }

    /** What a snapshot compiler does: add everything, catching each problem with its position. */
    @Test
    void everyProblemCanBeReportedInOnePass() {
        String[] configured = {"a.test", "A.test", "b*.test", "c.test", "c.test.", "[::1]", "[0::1]", "d.test"};
        HostTable.Builder<Integer> b = HostTable.builder();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < configured.length; i++) {
            try {
                b.add(configured[i], i);
            } catch (IllegalArgumentException e) {
                problems.add("names[" + i + "]: " + e.getMessage());
            }
        }
        assertThat(problems).hasSize(4);
        assertThat(problems.get(0)).startsWith("names[1]: host name 'A.test' is the same as 'a.test'");
        assertThat(problems.get(1)).startsWith("names[2]: invalid host name 'b*.test'");
        assertThat(problems.get(2)).startsWith("names[4]: host name 'c.test.' is the same as 'c.test'");
        assertThat(problems.get(3)).startsWith("names[6]: host name '[0::1]' is the same as '[::1]'");
        assertThat(b.build().size()).isEqualTo(4);
    }

    @Test
    void valuesMustNotBeNull() {
        assertThatThrownBy(() -> HostTable.<String>builder().add("a.test", null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void findsEachOfManyNames() {
        HostTable.Builder<Integer> b = HostTable.builder();
        for (int i = 0; i < 5_000; i++) {
            b.add("host-" + i + ".example", i);
        }
        HostTable<Integer> t = b.build();
        for (int i = 0; i < 5_000; i++) {
            assertThat(t.find("HOST-" + i + ".example:443")).isEqualTo(i);
            assertThat(t.find("host-" + i + ".exampl")).isNull();
        }
    }
}
