package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each rule kind attacked: case games, repeated and empty values, query separators and encodings. */
class RequestRulesPolicyTest {
    private static final PolicyDecision DENIED = PolicyDecision.DROP;
    private static final PolicyDecision TOO_LARGE = PolicyDecision.NEEDS_ASYNC; // any distinct decision

    private static RequestRulesPolicy deny(RequestRule rule) {
        return new RequestRulesPolicy("rules", List.of(rule), List.of(), -1, false, DENIED, TOO_LARGE);
    }

    private static RequestRulesPolicy allow(RequestRule rule) {
        return new RequestRulesPolicy("rules", List.of(), List.of(rule), -1, false, DENIED, TOO_LARGE);
    }

    private static String verdict(RequestRulesPolicy policy, TestPolicyInput request) {
        PolicyDecision d = policy.evaluate(request);
        return d == DENIED ? "deny" : d == TOO_LARGE ? "413" : d.isContinue() ? "pass" : d.toString();
    }

    /** {@code headers} is {@code Name=value|Name=value}; a value {@code <empty>} is the empty string. */
    private static TestPolicyInput withHeaders(String headers) {
        TestPolicyInput request = new TestPolicyInput();
        if (headers != null) {
            for (String h : headers.split("\\|")) {
                int eq = h.indexOf('=');
                request.header(h.substring(0, eq), h.substring(eq + 1).replace("<empty>", ""));
            }
        }
        return request;
    }

    @ParameterizedTest(name = "deny {0} {1} ''{2}'' vs {3} -> {4}")
    @CsvSource(delimiter = ';', nullValues = "-", textBlock = """
            PRESENT  ; X-Debug    ; -     ; X-Debug=1                          ; deny
            PRESENT  ; X-Debug    ; -     ; x-debug=1                          ; deny
            PRESENT  ; X-Debug    ; -     ; X-DEBUG=<empty>                    ; deny
            PRESENT  ; X-Debug    ; -     ; X-Debugger=1                       ; pass
            PRESENT  ; X-Debug    ; -     ; -                                  ; pass
            ABSENT   ; Accept     ; -     ; -                                  ; deny
            ABSENT   ; Accept     ; -     ; Accept=<empty>                     ; pass
            PREFIX   ; User-Agent ; curl/ ; User-Agent=curl/8.5.0              ; deny
            PREFIX   ; User-Agent ; curl/ ; User-Agent=CURL/8.5.0              ; deny
            PREFIX   ; User-Agent ; curl/ ; User-Agent=cUrL/8.5.0              ; deny
            PREFIX   ; User-Agent ; curl/ ; User-Agent= curl/8.5.0             ; pass
            PREFIX   ; User-Agent ; curl/ ; User-Agent=curl                    ; pass
            PREFIX   ; User-Agent ; curl/ ; User-Agent=<empty>                 ; pass
            PREFIX   ; User-Agent ; curl/ ; User-Agent=Mozilla/5.0|User-Agent=curl/8 ; pass
            EXACT    ; X-Mode     ; debug ; X-Mode=DEBUG                       ; deny
            EXACT    ; X-Mode     ; debug ; X-Mode=debug2                      ; pass
            EXACT    ; X-Mode     ; debug ; X-Mode=debu                        ; pass
            EXACT    ; X-Mode     ; debug ; X-Mode=%64ebug                     ; pass
            CONTAINS ; Referer    ; evil  ; Referer=https://EVIL.example/      ; deny
            CONTAINS ; Referer    ; evil  ; Referer=https://ev.il.example/     ; pass
            CONTAINS ; Referer    ; evil  ; Referer=eveevil                    ; deny
            """)
    void headerDenyRulesFoldCaseAndSeeTheFirstLine(RequestRule.Match match, String name, String value, String headers,
            String expected) {
        RequestRulesPolicy policy = deny(RequestRule.header(name, match, value, true));

        assertThat(verdict(policy, withHeaders(headers))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "allow {0} ''{1}'' case-sensitive={2} vs {3} -> {4}")
    @CsvSource(delimiter = ';', nullValues = "-", textBlock = """
            EXACT  ; s3cret ; true  ; X-Token=s3cret   ; pass
            EXACT  ; s3cret ; true  ; X-Token=S3CRET   ; deny
            EXACT  ; s3cret ; false ; X-Token=S3CRET   ; pass
            EXACT  ; s3cret ; true  ; X-Token=<empty>  ; deny
            EXACT  ; s3cret ; true  ; -                ; deny
            PREFIX ; Bearer ; true  ; X-Token=Bearer x ; pass
            """)
    void headerAllowRulesMustMatch(RequestRule.Match match, String value, boolean caseSensitive, String headers, String expected) {
        RequestRulesPolicy policy = allow(RequestRule.header("X-Token", match, value, !caseSensitive));

        assertThat(verdict(policy, withHeaders(headers))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "deny query {0} {1} ''{2}'' vs ?{3} -> {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            PRESENT | debug | -    | debug=1                 | deny
            PRESENT | debug | -    | debug                   | deny
            PRESENT | debug | -    | debug=                  | deny
            PRESENT | debug | -    | a=1&debug=1             | deny
            PRESENT | debug | -    | a=1;debug=1             | deny
            PRESENT | debug | -    | %64ebug=1               | deny
            PRESENT | debug | -    | %64%65%62%75%67         | deny
            PRESENT | debug | -    | %2564ebug=1             | pass
            PRESENT | debug | -    | DEBUG=1                 | pass
            PRESENT | debug | -    | debugx=1                | pass
            PRESENT | debug | -    | xdebug=1                | pass
            PRESENT | debug | -    | a=debug                 | pass
            PRESENT | debug | -    | &&debug&&               | deny
            PRESENT | debug | -    | %6                      | pass
            PRESENT | debug | -    | debug%                  | pass
            PRESENT | a b   | -    | a+b=1                   | deny
            PRESENT | a b   | -    | a%20b=1                 | deny
            ABSENT  | token | -    | a=1                     | deny
            ABSENT  | token | -    | token=                  | pass
            EXACT   | mode  | test | mode=test               | deny
            EXACT   | mode  | test | mode=TeSt               | deny
            EXACT   | mode  | test | mode=%74est             | deny
            EXACT   | mode  | test | mode=%54EST             | deny
            EXACT   | mode  | test | mode=prod&mode=test     | deny
            EXACT   | mode  | test | mode=test&mode=prod     | deny
            EXACT   | mode  | test | mode=tes                | pass
            EXACT   | mode  | test | mode=test=1             | pass
            EXACT   | mode  | test | mode                    | pass
            CONTAINS| q     | <scr | q=%3Cscript%3E          | deny
            CONTAINS| q     | <scr | q=%3CSCRIPT%3E          | deny
            CONTAINS| q     | <scr | q=%3C%20script          | pass
            PREFIX  | next  | //   | next=%2F%2Fevil.example | deny
            PREFIX  | next  | //   | next=/%2Fevil.example   | deny
            PREFIX  | next  | //   | next=/home              | pass
            """)
    void queryDenyRulesDecodeInPlaceAndMatchAnyOccurrence(RequestRule.Match match, String name, String value, String query,
            String expected) {
        RequestRulesPolicy policy = deny(RequestRule.query(name, match, value, true));

        assertThat(verdict(policy, new TestPolicyInput().target("/search?" + query))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "allow query mode=prod vs ?{0} -> {1}")
    @CsvSource(delimiter = ';', textBlock = """
            mode=prod            ; pass
            mode=PROD            ; deny
            mode=prod&mode=prod  ; pass
            mode=prod&mode=test  ; deny
            mode=test&mode=prod  ; deny
            a=1                  ; deny
            mode=pro%64          ; pass
            """)
    void queryAllowRulesNeedEveryOccurrenceToMatch(String query, String expected) {
        RequestRulesPolicy policy = allow(RequestRule.query("mode", RequestRule.Match.EXACT, "prod", false));

        assertThat(verdict(policy, new TestPolicyInput().target("/?" + query))).isEqualTo(expected);
    }

    @Test
    void aQueryRuleSeesNothingWithoutAQuery() {
        RequestRulesPolicy present = deny(RequestRule.query("debug", RequestRule.Match.PRESENT, null, true));
        RequestRulesPolicy absent = deny(RequestRule.query("debug", RequestRule.Match.ABSENT, null, true));

        assertThat(verdict(present, new TestPolicyInput().target("/debug"))).isEqualTo("pass");
        assertThat(verdict(present, new TestPolicyInput().target("/?"))).isEqualTo("pass");
        assertThat(verdict(present, new TestPolicyInput())).as("no target at all").isEqualTo("pass");
        assertThat(verdict(absent, new TestPolicyInput().target("/"))).isEqualTo("deny");
    }

    @ParameterizedTest(name = "deny methods [TRACE, TRACK] vs {0} -> {1}")
    @CsvSource({"TRACE, deny", "TRACK, deny", "trace, deny", "Track, deny", "GET, pass", "TRACES, pass", "TRAC, pass"})
    void methodDenyRulesFoldCase(String method, String expected) {
        RequestRulesPolicy policy = deny(RequestRule.method(List.of("TRACE", "TRACK"), true));

        assertThat(verdict(policy, new TestPolicyInput().method(method))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "allow methods [GET] vs {0} -> {1}")
    @CsvSource({"GET, pass", "get, deny", "POST, deny"})
    void methodAllowRulesAreExact(String method, String expected) {
        RequestRulesPolicy policy = allow(RequestRule.method(List.of("GET"), false));

        assertThat(verdict(policy, new TestPolicyInput().method(method))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "max 1024, Content-Length ''{0}'' -> {1}")
    @CsvSource(delimiter = ';', nullValues = "-", textBlock = """
            -                    ; pass
            0                    ; pass
            1024                 ; pass
            01024                ; pass
            1025                 ; 413
            99999999999999999    ; 413
            9999999999999999999  ; 413
            <empty>              ; 413
            12a                  ; 413
            -1                   ; 413
            ' 5'                 ; 413
            """)
    void maxBodyChecksContentLength(String contentLength, String expected) {
        RequestRulesPolicy policy = new RequestRulesPolicy("upload", List.of(), List.of(), 1024, false, DENIED, TOO_LARGE);
        TestPolicyInput request = new TestPolicyInput();
        if (contentLength != null) {
            request.header("Content-Length", contentLength.replace("<empty>", ""));
        }

        assertThat(verdict(policy, request)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ';', nullValues = "-", textBlock = """
            User-Agent=Mozilla/5.0 (X11)|Accept=text/html|Accept-Language=en        ; pass
            User-Agent=Mozilla/5.0 (X11)|Accept=text/html                            ; deny
            User-Agent=Mozilla/5.0 (X11)|Accept-Language=en                          ; deny
            User-Agent=mozilla/5.0|Accept=*/*|Accept-Language=<empty>                ; deny
            User-Agent=MOZILLA/5.0                                                   ; deny
            User-Agent=curl/8.5.0                                                    ; pass
            User-Agent=Mozilla                                                       ; pass
            User-Agent=python-requests/2.31 Mozilla/5.0                              ; pass
            -                                                                        ; pass
            """)
    void theBotSignalDeniesBrowserClaimsWithoutBrowserHeaders(String headers, String expected) {
        RequestRulesPolicy policy = new RequestRulesPolicy("no-bots", List.of(), List.of(), -1, true, DENIED, TOO_LARGE);

        assertThat(verdict(policy, withHeaders(headers))).isEqualTo(expected);
    }

    @Test
    void bodySizeIsCheckedFirstThenDenyThenAllow() {
        RequestRulesPolicy policy = new RequestRulesPolicy("all", List.of(RequestRule.header("X-Debug", RequestRule.Match.PRESENT, null, true)),
                List.of(RequestRule.header("X-Token", RequestRule.Match.EXACT, "t", false)), 10, false, DENIED, TOO_LARGE);

        assertThat(verdict(policy, withHeaders("Content-Length=11|X-Debug=1"))).isEqualTo("413");
        assertThat(verdict(policy, withHeaders("X-Debug=1|X-Token=t"))).isEqualTo("deny");
        assertThat(verdict(policy, withHeaders("X-Token=t"))).isEqualTo("pass");
    }

    @Test
    void aPolicyMustCheckSomethingAndValuesMustFitTheirMatch() {
        assertThatThrownBy(() -> new RequestRulesPolicy("empty", List.of(), List.of(), -1, false, DENIED, TOO_LARGE))
                .hasMessageContaining("checks nothing");
        assertThatThrownBy(() -> RequestRule.header("X-A", RequestRule.Match.EXACT, "", true)).hasMessageContaining("non-empty value");
        assertThatThrownBy(() -> RequestRule.query("a", RequestRule.Match.PRESENT, "x", true)).hasMessageContaining("takes no value");
        assertThatThrownBy(() -> RequestRule.method(List.of(), true)).hasMessageContaining("at least one method");
    }
}
