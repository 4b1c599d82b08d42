package io.paduraksa.policy;

import io.paduraksa.testing.TestPolicyInput;
import io.paduraksa.testing.AllocationAssert;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class MethodPolicyAllocationTest {

    /** The gate's request state: the method as the protocol layer hands it over. */
    static final class Request extends TestPolicyInput {
        final MethodPolicy policy;
        long sink;

        Request(MethodPolicy policy, CharSequence method) {
            this.policy = policy;
            method(method);
        }

        void run() {
            sink += policy.evaluate(this).action().ordinal();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"GET, CONTINUE", "OPTIONS, CONTINUE", "POST, DROP", "get, DROP"})
    void evaluatesWithoutAllocating(String method, String expected) {
        MethodPolicy policy = new MethodPolicy("read-only", List.of("GET", "HEAD", "OPTIONS"), PolicyDecision.DROP);
        Request string = new Request(policy, method);
        // HTTP/2 hands over an AsciiString (HPACK's shared instance for GET/POST), HTTP/1.1 a flyweight CharSequence.
        Request ascii = new Request(policy, new AsciiString(method));
        assertThat(policy.evaluate(string).toString()).isEqualTo(expected);
        assertThat(policy.evaluate(ascii).toString()).isEqualTo(expected);
        AllocationAssert.assertZero("method " + method + " (String)", string, Request::run);
        AllocationAssert.assertZero("method " + method + " (AsciiString)", ascii, Request::run);
    }
}
