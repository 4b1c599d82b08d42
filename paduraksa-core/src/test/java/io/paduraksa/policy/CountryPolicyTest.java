package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.net.CountryCodes;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CountryPolicyTest {
    private static final PolicyDecision DENIED = PolicyDecision.DROP;

    private static CountryPolicy policy(String allow, String deny, boolean denyUnknown) {
        return new CountryPolicy("geo", codes(allow), codes(deny), denyUnknown, "CF-IPCountry", null, DENIED);
    }

    private static List<String> codes(String list) {
        return list.isBlank() ? List.of() : List.of(list.trim().split(" +"));
    }

    /**
     * {@code peer}: "trusted" (a trusted proxy; the header counts) or "direct" (the connection's
     * looked-up country counts, the header is ignored).
     */
    @ParameterizedTest(name = "allow [{0}] deny [{1}] unknown-denied {2}: {3} peer, looked up {4}, header {5} -> {6}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            DE FR | -   | true  | direct  | DE | -  | pass
            DE FR | -   | true  | direct  | US | -  | deny
            DE FR | -   | true  | direct  | -  | -  | deny
            DE FR | -   | false | direct  | -  | -  | pass
            DE FR | -   | true  | direct  | US | DE | deny
            DE FR | -   | true  | trusted | -  | DE | pass
            DE FR | -   | true  | trusted | -  | de | pass
            DE FR | -   | true  | trusted | DE | US | deny
            DE FR | -   | true  | trusted | -  | -  | deny
            DE FR | -   | true  | trusted | -  | XX | deny
            -     | CN RU | false | direct | CN | -  | deny
            -     | CN RU | false | direct | DE | CN | pass
            -     | CN RU | false | trusted | - | RU | deny
            -     | CN RU | false | trusted | - | T1 | pass
            -     | CN T1 | false | trusted | - | T1 | deny
            -     | CN RU | false | direct | -  | -  | pass
            -     | CN RU | true  | direct | -  | -  | deny
            DE    | DE    | false | direct | DE | -  | deny
            """)
    void decides(String allow, String deny, boolean denyUnknown, String peer, String lookedUp, String header, String verdict) {
        CountryPolicy p = policy(allow == null ? "" : allow, deny == null ? "" : deny, denyUnknown);
        TestPolicyInput in = new TestPolicyInput();
        in.connection(false, peer.equals("trusted"), lookedUp == null ? CountryCodes.UNKNOWN : CountryCodes.index(lookedUp));
        if (header != null) {
            in.header("CF-IPCountry", new AsciiString(header));
        }
        assertThat(p.evaluate(in)).isSameAs(verdict.equals("pass") ? PolicyDecision.CONTINUE : DENIED);
    }
}
