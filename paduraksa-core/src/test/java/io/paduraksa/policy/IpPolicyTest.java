package io.paduraksa.policy;

import io.paduraksa.testing.TestPolicyInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paduraksa.net.IpParser;
import io.paduraksa.net.IpRangeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class IpPolicyTest {

    /** Only the client IP matters to this policy; the rest is empty. */
    static final class Input extends TestPolicyInput {
        Input(String address) {
            long[] out = new long[2];
            if (!IpParser.parse(address, out)) {
                throw new IllegalArgumentException(address);
            }
            clientIp(out[0], out[1]);
        }
    }

    private static IpRangeSet set(String csv) {
        if (csv == null) {
            return null;
        }
        IpRangeSet.Builder b = IpRangeSet.builder();
        for (String v : csv.split(" ")) {
            b.add(v);
        }
        return b.build();
    }

    @ParameterizedTest(name = "allow [{0}] deny [{1}] client {2} -> {3}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            -                               | -                       | 192.0.2.1     | CONTINUE
            -                               | 192.0.2.0/24            | 192.0.2.1     | DROP
            -                               | 192.0.2.0/24            | 198.51.100.1  | CONTINUE
            198.51.100.0/24                 | -                       | 198.51.100.1  | CONTINUE
            198.51.100.0/24                 | -                       | 192.0.2.1     | DROP
            198.51.100.0/24                 | -                       | 2001:db8::1   | DROP
            198.51.100.0/24                 | 198.51.100.66           | 198.51.100.66 | DROP
            198.51.100.0/24                 | 198.51.100.66           | 198.51.100.65 | CONTINUE
            198.51.100.0/24 2001:db8::/32   | -                       | 2001:db8::1   | CONTINUE
            2001:db8::/32                   | 2001:db8:bad::/48       | 2001:db8:bad::1 | DROP
            2001:db8::/32                   | 2001:db8:bad::/48       | 2001:db8:900d::1 | CONTINUE
            0.0.0.0/0                       | -                       | ::ffff:192.0.2.1 | CONTINUE
            0.0.0.0/0                       | -                       | ::1           | DROP
            """)
    void denyWinsThenAllowListDecides(String allow, String deny, String client, String expected) {
        IpPolicy policy = new IpPolicy("office", set(allow), set(deny), PolicyDecision.DROP);
        assertThat(policy.evaluate(new Input(client)).action().name()).isEqualTo(expected);
    }

    @Test
    void returnsTheGivenDecisionByReference() {
        IpPolicy policy = new IpPolicy("office", null, set("192.0.2.0/24"), PolicyDecision.NEEDS_ASYNC);
        assertThat(policy.evaluate(new Input("192.0.2.9"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
        assertThat(policy.evaluate(new Input("192.0.3.9"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.name()).isEqualTo("office");
    }

    @Test
    void anEmptyAllowSetDeniesEveryoneWhileNullAllowsEveryone() {
        Input client = new Input("203.0.113.5");
        assertThat(new IpPolicy("p", IpRangeSet.empty(), null, PolicyDecision.DROP).evaluate(client)).isSameAs(PolicyDecision.DROP);
        assertThat(new IpPolicy("p", null, IpRangeSet.empty(), PolicyDecision.DROP).evaluate(client)).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void needsANameAndADecision() {
        assertThatThrownBy(() -> new IpPolicy(null, null, null, PolicyDecision.DROP)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IpPolicy("p", null, null, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
