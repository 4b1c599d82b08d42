package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.net.CountryCodes;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("allocation")
class CountryPolicyAllocationTest {

    static final class Request extends TestPolicyInput {
        final CountryPolicy policy = new CountryPolicy("geo", List.of("DE", "FR", "NL"), List.of(), true, "CF-IPCountry", null,
                PolicyDecision.DROP);
        long passed;
        long denied;

        void run() {
            if (policy.evaluate(this).isContinue()) {
                passed++;
            } else {
                denied++;
            }
        }
    }

    @Test
    void aLookedUpCountryIsCheckedWithoutAllocating() {
        Request r = new Request();
        r.connection(false, false, CountryCodes.index("FR"));
        AllocationAssert.assertZero("connection country", r, Request::run);
        assertThat(r.denied).isZero();
    }

    @Test
    void aTrustedProxysHeaderIsReadWithoutAllocating() {
        Request r = new Request();
        r.connection(false, true, CountryCodes.UNKNOWN);
        r.header("CF-IPCountry", new AsciiString("US"));
        AllocationAssert.assertZero("header country", r, Request::run);
        assertThat(r.passed).isZero();
    }
}
