package io.paduraksa.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.testing.AllocationAssert;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link HostTable#find} allocates nothing for any input shape, on a 520-entry table and on the
 * same table with a catch-all entry (which makes every miss check the whole name).
 */
@Tag("allocation")
class HostTableAllocationTest {
    private static HostTable<String> table;
    private static HostTable<String> withCatchAll;

    /** Shape, Host value, expected entry without the catch-all and with it (null for a miss). */
    private static final String[][] SHAPES = {
        {"exact", "host-250.example", "exact-250", "exact-250"},
        {"upper case", "HOST-250.EXAMPLE", "exact-250", "exact-250"},
        {"port", "host-250.example:8443", "exact-250", "exact-250"},
        {"trailing dot", "host-250.example.", "exact-250", "exact-250"},
        {"trailing dot and port", "host-250.example.:8443", "exact-250", "exact-250"},
        {"IDN as punycode", "xn--bcher-7-n2a.test", "idn-7", "idn-7"},
        {"raw Unicode", "bücher-7.test", null, null},
        {"wildcard hit", "api.w3-12.test", "wild-12", "wild-12"},
        {"wildcard, two labels", "a.b.w3-12.test", "wild-12", "wild-12"},
        {"wildcard, five labels", "a.b.c.d.api.w3-12.test", "wild-12", "wild-12"},
        {"wildcard, longest parent", "x.y.deep.w3-3.test", "deep-3", "deep-3"},
        {"wildcard, 120 labels", "a.".repeat(120) + "w3-12.test", "wild-12", "wild-12"},
        {"wildcard miss, parent", "w3-12.test", null, "any"},
        {"empty label", "a..b.w3-12.test", null, null},
        {"64-character label", "a".repeat(64) + ".w3-12.test", null, null},
        {"IPv6 literal", "[2001:db8::10]", "v6", "v6"},
        {"IPv6 literal, other spelling and port", "[2001:DB8:0:0::0010]:8443", "v6", "v6"},
        {"IPv6 literal, unknown", "[2001:db8::11]", null, "any"},
        {"IPv4, unknown", "192.0.2.99:80", null, "any"},
        {"IPv4, malformed", "192.0.2.099", null, null},
        {"unknown", "unknown.example", null, "any"},
        {"unknown, deep", "a.b.c.d.e.f.unknown.example", null, "any"},
        {"empty", "", null, null},
        {"garbage", "a b", null, null},
        {"unclosed literal", "[::1", null, null},
        {"bad port", "host:99999x", null, null},
    };

    static final class State {
        final HostTable<String> table;
        final CharSequence host;
        String found;

        State(HostTable<String> table, CharSequence host) {
            this.table = table;
            this.host = host;
        }
    }

    @BeforeAll
    static void build() {
        HostTable.Builder<String> b = HostTable.builder();
        for (int i = 0; i < 490; i++) {
            b.add("host-" + i + ".example", "exact-" + i);
        }
        for (int i = 0; i < 10; i++) {
            b.add("bücher-" + i + ".test", "idn-" + i);
        }
        for (int i = 0; i < 18; i++) {
            b.add("*.w3-" + i + ".test", "wild-" + i);
        }
        b.add("*.deep.w3-3.test", "deep-3");
        b.add("[2001:db8::10]", "v6");
        table = b.build();
        assertThat(table.size()).isEqualTo(520);
        withCatchAll = b.add("*", "any").build();
        State[] all = Stream.of(SHAPES).flatMap(s -> Stream.of(new State(table, s[1]), new State(table, ascii(s[1])),
                        new State(withCatchAll, s[1]), new State(withCatchAll, ascii(s[1]))))
                .toArray(State[]::new);
        AllocationAssert.measure("all shapes", all, HostTableAllocationTest::findAll, 20_000, 1);
    }

    private static AsciiString ascii(String s) {
        return new AsciiString(s.getBytes(StandardCharsets.UTF_8), false);
    }

    static Stream<Arguments> shapes() {
        return Stream.of(SHAPES).flatMap(s -> Stream.of(
                Arguments.of(s[0] + " (String)", s[1], s[2], false, false),
                Arguments.of(s[0] + " (AsciiString)", s[1], s[2], true, false),
                Arguments.of(s[0] + " (String, catch-all)", s[1], s[3], false, true),
                Arguments.of(s[0] + " (AsciiString, catch-all)", s[1], s[3], true, true)));
    }

    private static void findAll(State[] states) {
        for (State s : states) {
            find(s);
        }
    }

    private static void find(State s) {
        s.found = s.table.find(s.host);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("shapes")
    void findAllocatesNothing(String shape, String host, String expected, boolean asAsciiString, boolean catchAll) {
        State state = new State(catchAll ? withCatchAll : table, asAsciiString ? ascii(host) : host);
        AllocationAssert.assertZero(shape, state, HostTableAllocationTest::find);
        assertThat(state.found).isEqualTo(expected);
    }
}
