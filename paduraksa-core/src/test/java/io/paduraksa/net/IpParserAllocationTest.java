package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.testing.BulkText;
import io.paduraksa.testing.AllocationAssert;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class IpParserAllocationTest {

    static final class State {
        final CharSequence text;
        final long[] out = new long[2];
        int accepted;

        State(CharSequence text) {
            this.text = text;
        }
    }

    private static final String[] ALL_SHAPES = {
        "198.51.100.23", "2001:db8:1:2:3:4:5:6", "2001:db8::7", "::ffff:203.0.113.9", "64:ff9b::192.0.2.33",
        "198.051.100.23", "fe80::1%eth0", "2001::db8::1"
    };

    /**
     * Every shape runs through the parser before any is measured, so the JIT compiles it with the
     * full branch profile: a branch first seen during measurement deoptimises the compiled caller,
     * and the VM re-allocating its scalar-replaced objects would be charged to the call.
     */
    @BeforeAll
    static void warmAllShapes() {
        State[] states = new State[ALL_SHAPES.length * 3];
        for (int i = 0; i < ALL_SHAPES.length; i++) {
            states[3 * i] = new State(ALL_SHAPES[i]);
            states[3 * i + 1] = new State(new AsciiString(ALL_SHAPES[i]));
            states[3 * i + 2] = new State(bulk(ALL_SHAPES[i]));
        }
        AllocationAssert.measure("all shapes", states, IpParserAllocationTest::parseAll, 20_000, 1);
    }

    private static void parseAll(State[] states) {
        for (State s : states) {
            parse(s);
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            IPv4                | 198.51.100.23          | true
            IPv6 full           | 2001:db8:1:2:3:4:5:6   | true
            IPv6 compressed     | 2001:db8::7            | true
            IPv4-mapped         | ::ffff:203.0.113.9     | true
            NAT64 with v4 tail  | 64:ff9b::192.0.2.33    | true
            invalid leading 0   | 198.051.100.23         | false
            invalid zone id     | fe80::1%eth0           | false
            invalid two gaps    | 2001::db8::1           | false
            """)
    void parsingAllocatesNothing(String shape, String text, boolean valid) {
        // String: copied char by char into the per-thread scratch; AsciiString: read in place; AsciiText
        // (the HTTP/1.1 and HTTP/2 views' shape): copied out in bulk into the scratch
        for (CharSequence input : new CharSequence[] {text, new AsciiString(text), bulk(text)}) {
            State state = new State(input);
            AllocationAssert.assertZero(shape + " " + input.getClass().getSimpleName(), state, IpParserAllocationTest::parse);
            assertThat(state.accepted > 0).isEqualTo(valid);
        }
    }

    private static CharSequence bulk(String text) {
        return BulkText.of(text);
    }

    private static void parse(State s) {
        if (IpParser.parse(s.text, 0, s.text.length(), s.out)) {
            s.accepted++;
        }
    }
}
