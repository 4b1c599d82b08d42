package io.paduraksa.policy.attack;

import static io.paduraksa.policy.attack.AttacksPolicyTest.matchedRules;
import static io.paduraksa.policy.attack.AttacksPolicyTest.pl;
import static io.paduraksa.policy.attack.AttacksPolicyTest.query;
import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The detectors written after CRS 3.3.4's rules that the first table missed (measured with
 * paduraksa-bench/waf): Windows FOR/IF read through cmdLine (932140), PHP function names and
 * variable calls (933150, 933180, 933210), upload file names (933111), obfuscated tags, event
 * handlers and script URLs (941), protocol rules on the path and values (920, 921), scanner URLs
 * (913120) and more SQL shapes (942). Each table has payloads and benign look-alikes at paranoia 1.
 */
class AttacksHeadRulesTest {

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = 0, textBlock = """
            932140 => for /f "delims=" %i in ('cmd /c dir') do echo %i
            932140 => FOR /L %G IN (1,1,5) DO echo %G
            932140 => & for %a in (a,b,c) do cmd
            932140 => f^o^r /f %a in (x) do calc
            932140 => IF EXIST C:\\pagefile.sys CMD
            932140 => if not defined n1 set "n1=0"
            932140 => IF %ERRORLEVEL% GEQ 2 echo test
            932140 => if "%VAR%" == "before" (
            932140 => i"f" /i a==b foo
            933150 => base64_decode
            933150 => FOOcall_user_func
            933150 => pfsockopen('foo', 25)
            933180 => $f(101).$f(120)
            933180 => ${'a'}(11)
            933180 => $_aB_4c[5]['d'] /*lol*/ (17)
            933210 => (system)('uname')
            933210 => (sy.(st).em)('uname')
            933210 => (string)"system"('uname')
            933210 => [system][0](ls)
            941110 => <x:script xmlns:x="http://www.w3.org/1999/xhtml">
            941161 => <f o r m action=//evil.example>
            941161 => < s c r i p t >
            941162 => "onzoom=alert(1)
            941162 => '  onload= x
            941170 => javascript:alert(1)
            941170 => javascript:window.name
            941210 => ja&newline;vascript:
            941210 => java script:x
            941240 => <?import implementation="x.htc">
            942220 => 4294967296
            942230 => ) like (
            942250 => EXECUTE IMMEDIATE "
            942280 => select pg_sleep
            942290 => [$ne]
            942140 => DaTaBasE(
            942140 => Northwind
            942192 => a" union s
            942192 => a';SELECT P
            942192 => "!"
            942192 => current_user(
            942192 => exec master.
            942360 => ) AS `carrier_id` from
            942360 => 1234 AS "foobar" FROM tablevar2
            942360 => select Char(
            942360 => /CREATE TABLE Persons
            942360 => ` REGEXP
            942320 => procedure analyse (
            942320 => DECLARE/**/@x
            942320 => exec (@
            942240 => ALTER TABLE x ADD `video` TEXT CHARACTER SET latin1
            921110 => GET http://www.example.test HTTP/1.2
            921130 => munch%0d%0a%0d%0a<HTML><title></title></HTML>
            """)
    void attacksInAQueryParameterAreDeniedAtParanoia1(String rule, String payload) {
        AttacksPolicy policy = pl(1);
        TestPolicyInput request = query("/search", "q", payload);

        assertThat(policy.evaluate(request)).isSameAs(PolicyDecision.DROP);
        assertThat(matchedRules(policy, request)).contains(rule);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            what if i forget my password
            if you like it, buy it
            for the love of dogs in (paris) do visit
            for sale in jakarta
            the for loop in c
            if it fits
            what if
            notify me if in stock
            javascript: the good parts
            learn javascript: a beginner's guide
            javascript tutorial
            java script book
            $5 (five dollars)
            prices in $ (usd)
            shoes (men), size 42
            (2024) edition (paperback)
            [new] [sale]
            base64 decoder online
            user func
            person onboarding
            london=uk
            season=summer
            get the new phone
            post office near me
            2147 items
            love like (crazy)
            case study (pdf)
            immediate execution
            mongo db ne
            < form
            a < b and c > d
            <3 <3 <3
            as seen on tv
            same as the one from last year
            user manual
            the database of recipes
            12 items: update your cart
            """)
    void benignLookAlikesPassAtParanoia1(String value) {
        AttacksPolicy policy = pl(1);
        TestPolicyInput request = query("/search", "q", value);

        assertThat(policy.evaluate(request)).as(matchedRules(policy, request)).isSameAs(PolicyDecision.CONTINUE);
    }

    @ParameterizedTest(name = "{0}: {1} at PL{2} -> {3}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            942131 | 1=1                        | 1 | pass
            942131 | 1=1                        | 2 | deny
            942131 | b,11!=1                    | 2 | deny
            942261 | something LIKE '           | 2 | deny
            942261 | in ( select * from         | 2 | deny
            942440 | DROP sampletable;--        | 2 | deny
            942480 | 'msdasql'                  | 2 | deny
            921130 | %0d%0aRemote-addr: x.test  | 1 | deny
            942131 | 2+2=4                      | 2 | pass
            942261 | i like it                  | 2 | pass
            942261 | made in indonesia (select) | 2 | pass
            942440 | see you; -)                | 2 | pass
            """)
    void paranoia2RulesAndTheirLookAlikes(String rule, String payload, int paranoia, String expected) {
        AttacksPolicy policy = pl(paranoia);
        TestPolicyInput request = query("/search", "q", payload);
        PolicyDecision d = policy.evaluate(request);

        assertThat(d == PolicyDecision.DROP ? "deny" : "pass").as(matchedRules(policy, request)).isEqualTo(expected);
        if (expected.equals("deny")) {
            assertThat(matchedRules(policy, request)).contains(rule);
        }
    }

    @ParameterizedTest(name = "{1} -> {0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            920440 | /backup/site.bak
            920440 | /foo.bar.sql
            920440 | /dump.rdb
            920500 | /index.php~
            920500 | /index.php~/foo/bar/
            921190 | /index.php/PHP%0Ainfo.php
            913120 | /nessustest
            913120 | /AppScan_fingerprint/MAC_ADDRESS_01234567890.html
            933150 | /base64_decode
            """)
    void attacksInThePathAreDenied(String rule, String target) {
        AttacksPolicy policy = pl(1);
        TestPolicyInput request = new TestPolicyInput().path(target);
        request.target(target);

        assertThat(policy.evaluate(request)).isSameAs(PolicyDecision.DROP);
        assertThat(matchedRules(policy, request)).contains(rule);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            /static/app.js
            /images/logo.png
            /products/sneakers-white
            /blog/2024/12/old-town-walk
            /docs/config-guide
            /api/v1/orders/42
            /legal/terms.html
            /people/~alice/
            """)
    void benignPathsPass(String target) {
        AttacksPolicy policy = pl(1);
        TestPolicyInput request = new TestPolicyInput().path(target);
        request.target(target);

        assertThat(policy.evaluate(request)).as(matchedRules(policy, request)).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void uploadFileNameHeadersAreInspectedWithThePath() {
        TestPolicyInput php = new TestPolicyInput().path("/upload");
        php.target("/upload");
        php.header("X-Filename", "shell.php5...");
        TestPolicyInput image = new TestPolicyInput().path("/upload");
        image.target("/upload");
        image.header("X-File-Name", "holiday.php.jpg");

        assertThat(matchedRules(pl(1), php)).isEqualTo("933111");
        assertThat(pl(1).evaluate(php)).isSameAs(PolicyDecision.DROP);
        assertThat(pl(1).evaluate(image)).isSameAs(PolicyDecision.CONTINUE);
        AttacksPolicy noPath = new AttacksPolicy("waf", 1, 5, false, true, true, List.of(), false, List.of(),
                PolicyDecision.DROP);
        assertThat(noPath.evaluate(php)).as("with path off, the file-name headers are not inspected").isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void cmdLineRulesNameTheirRuleInTheLogLine() {
        AttacksPolicy tolerant = AttacksPolicyTest.policy(1, 100, false, List.of());

        tolerant.evaluate(query("/s", "q", "FOR /F %a IN (x) DO y"));

        assertThat(AttacksPolicy.lastMatchesOnThisThread()).contains("932140 query:q \"for/f %a in(x) do");
    }

    @Test
    void theMatchSetHasRoomBeyond64Rules() {
        assertThat(AttackRules.all().size()).isGreaterThan(Long.SIZE);
        int highest = 0;
        for (AttackRule r : AttackRules.all()) {
            highest = Math.max(highest, r.index());
        }
        assertThat(highest).isLessThan(AttackRules.WORDS * Long.SIZE);
    }
}
