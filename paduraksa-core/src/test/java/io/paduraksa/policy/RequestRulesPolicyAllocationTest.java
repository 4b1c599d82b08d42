package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.TestPolicyInput;
import io.netty.util.AsciiString;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class RequestRulesPolicyAllocationTest {

    static final class Request extends TestPolicyInput {
        final RequestRulesPolicy policy;
        long sink;

        Request(RequestRulesPolicy policy) {
            this.policy = policy;
        }

        void run() {
            sink += policy.evaluate(this).action().ordinal();
        }
    }

    private static RequestRulesPolicy everyRule(boolean botSignal) {
        List<RequestRule> deny = List.of(
                RequestRule.header("X-Debug", RequestRule.Match.PRESENT, null, true),
                RequestRule.header("User-Agent", RequestRule.Match.PREFIX, "curl/", true),
                RequestRule.header("Referer", RequestRule.Match.CONTAINS, "evil", true),
                RequestRule.query("debug", RequestRule.Match.PRESENT, null, true),
                RequestRule.query("q", RequestRule.Match.CONTAINS, "<script", true),
                RequestRule.method(List.of("TRACE", "TRACK"), true));
        List<RequestRule> allow = List.of(RequestRule.query("mode", RequestRule.Match.EXACT, "prod", false));
        return new RequestRulesPolicy("rules", deny, allow, 1 << 20, botSignal, PolicyDecision.DROP, PolicyDecision.NEEDS_ASYNC);
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            browser passing every rule | /search?q=shoes&mode=prod&page=2         | CONTINUE | Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0
            encoded debug parameter    | /search?mode=prod&%64ebug=1              | DROP     | Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0
            encoded script in q        | /search?mode=prod&q=%3CSCRIPT%3Ealert(1) | DROP     | Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0
            curl                       | /search?mode=prod                        | DROP     | curl/8.5.0
            allow rule fails           | /search?mode=test                        | DROP     | Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0
            """)
    void everyCheckRunsWithoutAllocating(String what, String target, String expected, String userAgent) {
        Request r = new Request(everyRule(true));
        r.target(target);
        r.header("User-Agent", new AsciiString(userAgent));
        r.header("Accept", new AsciiString("text/html"));
        r.header("Accept-Language", new AsciiString("en-GB,en;q=0.9"));
        r.header("Referer", new AsciiString("https://www.example.test/start"));
        r.header("Content-Length", new AsciiString("512"));
        assertThat(r.policy.evaluate(r).action().name()).isEqualTo(expected);
        AllocationAssert.assertZero(what, r, Request::run);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bot signal   | Mozilla/5.0 | 12       | DROP
            body too big | curl/8      | 99999999 | NEEDS_ASYNC
            """)
    void denialsRunWithoutAllocating(String what, String userAgent, String contentLength, String expected) {
        Request r = new Request(everyRule(true));
        r.target("/?mode=prod");
        r.header("User-Agent", new AsciiString(userAgent));
        r.header("Content-Length", new AsciiString(contentLength));
        assertThat(r.policy.evaluate(r).action().name()).isEqualTo(expected);
        AllocationAssert.assertZero(what, r, Request::run);
    }
}
