package io.paduraksa.policy.challenge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProofRedirectTest {

    private static String locationOf(String target) {
        int q = target.indexOf('?');
        int value = ProofRedirect.proofValueStart(target, q + 1, target.length());
        assertThat(value).as("proof found in " + target).isPositive();
        int end = ProofRedirect.proofValueEnd(target, value, target.length());
        return ProofRedirect.location(target, value, end, target.length());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            /?__pdk_proof=t.1                         | /
            /shop/cart?__pdk_proof=t.1                | /shop/cart
            /search?q=shoes&__pdk_proof=t.1           | /search?q=shoes
            /search?__pdk_proof=t.1&q=shoes           | /search?q=shoes
            /a?x=1&__pdk_proof=t.1&y=2                | /a?x=1&y=2
            /a%2Fb?__pdk_proof=t.1                    | /a%2Fb
            """)
    void theLocationIsTheSameTargetWithoutTheProof(String target, String location) {
        assertThat(locationOf(target)).isEqualTo(location);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            //evil.example/?__pdk_proof=t.1
            //evil.example?__pdk_proof=t.1
            /\\evil.example?__pdk_proof=t.1
            /\\/evil.example?__pdk_proof=t.1
            /a\\..\\..\\evil.example?__pdk_proof=t.1
            ///evil.example?__pdk_proof=t.1
            https://evil.example/?__pdk_proof=t.1
            evil.example?__pdk_proof=t.1
            ?__pdk_proof=t.1
            """)
    void anythingThatCouldLeaveTheOriginBecomesTheRoot(String target) {
        assertThat(locationOf(target)).isEqualTo("/");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            /%2F%2Fevil.example?__pdk_proof=t.1       | /%2F%2Fevil.example
            /%5Cevil.example?__pdk_proof=t.1          | /%5Cevil.example
            /%2f/evil.example?__pdk_proof=t.1         | /%2f/evil.example
            """)
    void encodedSlashesStayAPathOnThisOrigin(String target, String location) {
        // A browser resolves "/%2F%2Fevil.example" against this origin: percent-escapes never start an authority.
        assertThat(locationOf(target)).isEqualTo(location);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            /?x__pdk_proof=t.1
            /?a=__pdk_proof=t.1
            /?__pdk_proo=t.1
            /?__pdk_proof
            """)
    void aParameterThatOnlyLooksLikeAProofIsNone(String target) {
        int q = target.indexOf('?');
        assertThat(ProofRedirect.proofValueStart(target, q + 1, target.length())).isEqualTo(-1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            /
            /a/b?c=d
            /a%2F%2Fb
            """)
    void sameOriginPathsAreSafe(String location) {
        assertThat(ProofRedirect.isSafe(location)).isTrue();
    }
}
