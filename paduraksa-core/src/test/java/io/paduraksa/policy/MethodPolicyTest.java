package io.paduraksa.policy;

import io.paduraksa.testing.TestPolicyInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.AsciiString;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MethodPolicyTest {

    /** The gate's request state, reduced to what this policy reads. */
    static final class Request extends TestPolicyInput {
        Request(CharSequence method) {
            method(method);
        }
    }

    private static final MethodPolicy READ_ONLY =
            new MethodPolicy("read-only", List.of("GET", "HEAD", "OPTIONS"), PolicyDecision.DROP);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "GET, CONTINUE",
        "HEAD, CONTINUE",
        "OPTIONS, CONTINUE",
        "POST, DROP",
        "get, DROP",
        "Get, DROP",
        "GETX, DROP",
        "GE, DROP",
        "DELETE, DROP",
        "'', DROP",
    })
    void allowsOnlyListedMethodsExactly(String method, String expected) {
        assertThat(READ_ONLY.evaluate(new Request(method)).toString()).isEqualTo(expected);
        assertThat(READ_ONLY.evaluate(new Request(new AsciiString(method))).toString()).isEqualTo(expected);
    }

    @Test
    void customTokensAreMethodsToo() {
        MethodPolicy p = new MethodPolicy("webdav", List.of("PROPFIND", "M-SEARCH"), PolicyDecision.DROP);
        assertThat(p.evaluate(new Request("PROPFIND"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(p.evaluate(new Request("M-SEARCH"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(p.evaluate(new Request("GET"))).isSameAs(PolicyDecision.DROP);
        assertThat(p.isAllowed(null)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "GET ", "G(T", "GET\r\n", "G\u00c9T", "GET/1"})
    void rejectsValuesThatAreNotTokens(String method) {
        assertThatThrownBy(() -> new MethodPolicy("m", List.of("HEAD", method), PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("method policy 'm': allow[1] '" + method + "' is not a method token");
    }

    @Test
    void rejectsAnEmptyList() {
        assertThatThrownBy(() -> new MethodPolicy("m", List.of(), PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("method policy 'm': allow is empty (expected at least one method, e.g. GET)");
    }

    @Test
    void describesItself() {
        assertThat(READ_ONLY.name()).isEqualTo("read-only");
        assertThat(READ_ONLY).hasToString("MethodPolicy[read-only, allow [GET, HEAD, OPTIONS] -> DROP]");
    }
}
