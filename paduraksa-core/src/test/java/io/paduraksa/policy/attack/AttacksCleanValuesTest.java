package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.TestPolicyInput;
import io.paduraksa.text.ByteHash;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The memo of clean head values ({@link CleanValues}) answers exactly what the walk would: a value
 * kept as clean in one part, at one paranoia level, is walked again in another part or at another
 * level; a value that scores is never kept; a hash collision is not a hit.
 */
class AttacksCleanValuesTest {
    private static final PolicyDecision DENIED = PolicyDecision.DROP;
    private static final String SQLI = "1' or '1'='1";

    private static AttacksPolicy allHeaders(int paranoia) {
        return new AttacksPolicy("waf", paranoia, 5, true, true, true, List.of("User-Agent", "Referer"), true, false,
                List.of(), DENIED, 0, false, 0, 0);
    }

    private static TestPolicyInput request(String header, String value) {
        TestPolicyInput r = new TestPolicyInput().path("/account");
        r.target("/account?tab=orders");
        r.header("Host", "shop.example.test");
        r.header("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36");
        r.header("Accept", "text/html,*/*;q=0.8");
        r.header(header, value);
        return r;
    }

    @Test
    void aValueCleanInAnyHeaderIsWalkedAgainAsTheReferer() {
        AttacksPolicy policy = allHeaders(1);
        // All headers run CRS's REQUEST_HEADERS rules only (no SQL injection): clean there, and kept.
        assertThat(policy.evaluate(request("X-Note", SQLI))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(request("X-Note", SQLI))).isSameAs(PolicyDecision.CONTINUE);
        // The same bytes as the Referer run the SQL rules.
        assertThat(policy.evaluate(request("Referer", SQLI))).isSameAs(DENIED);
        assertThat(AttacksPolicy.lastMatchesOnThisThread()).contains("942");
        assertThat(policy.evaluate(request("Referer", SQLI))).isSameAs(DENIED);
    }

    @Test
    void aValueCleanAtParanoia1IsWalkedAgainAtParanoia2() {
        AttacksPolicy pl1 = AttacksPolicyTest.pl(1);
        AttacksPolicy pl2 = AttacksPolicyTest.pl(2);
        TestPolicyInput request = AttacksPolicyTest.query("/search", "q", "alert(1)");
        for (int round = 0; round < 3; round++) {
            assertThat(pl1.evaluate(request)).as("round " + round).isSameAs(PolicyDecision.CONTINUE);
            assertThat(pl2.evaluate(request)).as("round " + round).isSameAs(DENIED);
        }
    }

    @Test
    void aValueThatScoresIsWalkedEveryTime() {
        AttacksPolicy policy = AttacksPolicyTest.pl(1);
        TestPolicyInput attack = AttacksPolicyTest.query("/search", "q", "1 UNION SELECT username, password FROM users");
        long before = policy.counters().denied();
        for (int i = 0; i < 5; i++) {
            assertThat(policy.evaluate(attack)).isSameAs(DENIED);
            assertThat(AttacksPolicy.lastMatchesOnThisThread()).contains("942100");
        }
        assertThat(policy.counters().denied() - before).isEqualTo(5);
    }

    @Test
    void aMatchAnExclusionLetThroughIsNotKept() {
        // Same thread, same paranoia level: the memo is shared by both policies, an excluded match is still a match;
        // neither the value nor the whole query or Cookie line holding it is kept.
        AttacksPolicy excluding = AttacksPolicyTest.policy(1, 5, false,
                List.of(new AttackExclusion(List.of(942), List.of("q", "pref"), List.of())));
        AttacksPolicy strict = AttacksPolicyTest.pl(1);
        for (TestPolicyInput request : List.of(AttacksPolicyTest.query("/search", "q", "1 UNION SELECT 1"),
                request("Cookie", "theme=dark; pref=1 UNION SELECT 1"))) {
            assertThat(excluding.evaluate(request)).isSameAs(PolicyDecision.CONTINUE);
            assertThat(excluding.evaluate(request)).isSameAs(PolicyDecision.CONTINUE);
            assertThat(strict.evaluate(request)).isSameAs(DENIED);
        }
    }

    @Test
    void aValuePassedOverForARuleThatMatchedAlreadyIsNotKept() {
        // Below a high threshold both arguments are inspected; the second is not walked for 941110, which the first matched.
        AttacksPolicy tolerant = AttacksPolicyTest.policy(1, 100, false, List.of());
        TestPolicyInput both = new TestPolicyInput().path("/s");
        both.target("/s?a=%3Cscript%3Ealert(1)&b=%3Cscript%3E");
        assertThat(tolerant.evaluate(both)).isSameAs(PolicyDecision.CONTINUE);
        TestPolicyInput second = new TestPolicyInput().path("/s");
        second.target("/s?b=%3Cscript%3E");
        assertThat(AttacksPolicyTest.pl(1).evaluate(second)).isSameAs(DENIED);
    }

    @Test
    void aValueAUnionPointedAtButNoRuleMatchedIsCleanAndStaysClean() {
        // "=" is 933120's trigger: the union sends "x=y" to its group, where no rule matches.
        AttacksPolicy policy = AttacksPolicyTest.pl(1);
        TestPolicyInput request = request("Cookie", "pref=x%3Dy; theme=dark");
        for (int i = 0; i < 3; i++) {
            assertThat(policy.evaluate(request)).isSameAs(PolicyDecision.CONTINUE);
        }
        assertThat(policy.evaluate(request("Cookie", "pref=allow_url_include%3D1"))).isSameAs(DENIED);
    }

    @Test
    void aWarningBelowTheThresholdIsNotKeptEither() {
        // A value that matched a union but stayed below the threshold is walked, and scored, again.
        AttacksPolicy tolerant = AttacksPolicyTest.policy(3, 100, false, List.of());
        scoresTheSameEveryTime(tolerant, AttacksPolicyTest.query("/s", "q", "a'\")(;\"b"), "query");
    }

    /**
     * {@code request} scores below {@code policy}'s threshold (its log names {@code fragment}), and again with
     * the same log line in later rounds: what matched was not kept as clean.
     */
    private static void scoresTheSameEveryTime(AttacksPolicy policy, TestPolicyInput request, String fragment) {
        assertThat(policy.evaluate(request)).isSameAs(PolicyDecision.CONTINUE);
        String first = AttacksPolicy.lastMatchesOnThisThread();
        assertThat(first).contains(fragment);
        for (int i = 0; i < 3; i++) {
            assertThat(policy.evaluate(request)).isSameAs(PolicyDecision.CONTINUE);
            assertThat(AttacksPolicy.lastMatchesOnThisThread()).as("round " + i).isEqualTo(first);
        }
    }

    @Test
    void twoValuesOfTheSameHashAndLengthAreTwoValues() {
        // A 32-bit collision between two random 12-byte values (birthday bound: found well within 400,000).
        Random random = new Random(20261203);
        Map<Integer, byte[]> seen = new HashMap<>();
        byte[] a = null;
        byte[] b = null;
        for (int i = 0; i < 2_000_000 && a == null; i++) {
            byte[] v = new byte[12];
            for (int k = 0; k < v.length; k++) {
                v[k] = (byte) ('a' + random.nextInt(26));
            }
            byte[] other = seen.putIfAbsent(ByteHash.hash(v, 0, v.length), v);
            if (other != null && !java.util.Arrays.equals(other, v)) {
                a = other;
                b = v;
            }
        }
        assertThat(a).as("a collision").isNotNull();
        long keyA = CleanValues.key(a, a.length, Part.QUERY, 1);
        long keyB = CleanValues.key(b, b.length, Part.QUERY, 1);
        assertThat(keyB).isEqualTo(keyA);

        CleanValues clean = new CleanValues();
        clean.stage(keyA, a, a.length);
        assertThat(clean.contains(keyA, a, a.length)).as("staged, not yet kept").isFalse();
        clean.keep(keyA);
        assertThat(clean.contains(keyA, a, a.length)).isTrue();
        assertThat(clean.contains(keyB, b, b.length)).as("same key, other bytes").isFalse();
        assertThat(clean.contains(CleanValues.key(a, a.length, Part.COOKIE, 1), a, a.length)).as("other part").isFalse();
        assertThat(clean.contains(CleanValues.key(a, a.length, Part.QUERY, 2), a, a.length)).as("other level").isFalse();
    }

    @Test
    void longValuesThatDifferBetweenTheHashedWordsShareAKeyAndStayTwoValues() {
        // A 64-byte value is hashed by its words at 0, 8, 28, 48 and 56: bytes 16-27 and 36-47 are not read.
        byte[] a = "https://www.example.test/page?from=AAAAAAAAAAAAAAAAAAAAAAAAAAAAA".getBytes(StandardCharsets.ISO_8859_1);
        byte[] b = a.clone();
        b[20] = 'Z';
        b[40] = 'Z';
        assertThat(a.length).isEqualTo(64);
        long key = CleanValues.key(a, a.length, Part.HEADER, 1);
        assertThat(CleanValues.key(b, b.length, Part.HEADER, 1)).isEqualTo(key);
        byte[] c = a.clone();
        c[60] = 'Z';
        assertThat(CleanValues.key(c, c.length, Part.HEADER, 1)).as("the last words are read").isNotEqualTo(key);

        CleanValues clean = new CleanValues();
        clean.stage(key, a, a.length);
        clean.keep(key);
        assertThat(clean.contains(key, a, a.length)).isTrue();
        assertThat(clean.contains(key, b, b.length)).as("same key, other bytes: walked").isFalse();
    }

    @Test
    void onlyShortHeadValuesAreKept() {
        assertThat(CleanValues.keeps(Part.QUERY, CleanValues.MAX)).isTrue();
        assertThat(CleanValues.keeps(Part.QUERY, CleanValues.MAX + 1)).isFalse();
        assertThat(CleanValues.keeps(Part.ANY_HEADER, 10)).isTrue();
        assertThat(CleanValues.keeps(Part.BODY_FORM, 10)).isFalse();
        assertThat(CleanValues.keeps(Part.BODY_JSON, 10)).isFalse();
        byte[] v = "x".repeat(10).getBytes(StandardCharsets.ISO_8859_1);
        assertThat(CleanValues.key(v, v.length, Part.PATH, 1)).isNotZero();
    }

    @Test
    void aScannersHeaderNameIsFoundEveryTimeAfterCleanNamesWereKept() {
        AttacksPolicy policy = allHeaders(1);
        for (int i = 0; i < 3; i++) {
            assertThat(policy.evaluate(request("X-Note", "hello"))).as("clean name, round " + i).isSameAs(PolicyDecision.CONTINUE);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(policy.evaluate(request("X-Scanner", "hello"))).as("scanner name, round " + i).isSameAs(DENIED);
            assertThat(AttacksPolicy.lastMatchesOnThisThread()).contains("913110");
            // The same name in another case: header names are compared lower-cased.
            assertThat(policy.evaluate(request("x-SCANNER", "hello"))).isSameAs(DENIED);
        }
    }

    @Test
    void anAcceptOutsideTheGrammarScoresEveryTimeAndACleanOneIsKeptApart() {
        AttacksPolicy policy = allHeaders(1);
        TestPolicyInput clean = request("X-Note", "hello");
        for (int i = 0; i < 3; i++) {
            assertThat(policy.evaluate(clean)).isSameAs(PolicyDecision.CONTINUE);
        }
        // 920600 alone is critical (5): an Accept outside CRS's grammar is denied on every request.
        TestPolicyInput outside = new TestPolicyInput().path("/account");
        outside.target("/account?tab=orders");
        outside.header("Host", "shop.example.test");
        outside.header("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36");
        outside.header("Accept", "text/html[");
        for (int i = 0; i < 3; i++) {
            assertThat(policy.evaluate(outside)).as("round " + i).isSameAs(DENIED);
            assertThat(AttacksPolicy.lastMatchesOnThisThread()).contains("920600");
        }
        assertThat(policy.evaluate(clean)).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void checkVerdictsAndWalksOfTheSameBytesHaveTheirOwnKeys() {
        byte[] v = "text/html".getBytes(StandardCharsets.ISO_8859_1);
        long name = CleanValues.keyOf(v, v.length, CleanValues.HEADER_NAME, 1);
        long accept = CleanValues.keyOf(v, v.length, CleanValues.ACCEPT_GRAMMAR, 1);
        long walk = CleanValues.key(v, v.length, Part.ANY_HEADER, 1);
        assertThat(name).isNotEqualTo(accept).isNotEqualTo(walk);
        assertThat(accept).isNotEqualTo(walk);
        CleanValues clean = new CleanValues();
        clean.stage(name, v, v.length);
        clean.keep(name);
        assertThat(clean.contains(accept, v, v.length)).isFalse();
        assertThat(clean.contains(walk, v, v.length)).isFalse();
        // Kept under all three, the bytes stay kept under all three: they do not share a slot and evict each other
        // (an Accept value is walked as a header and read by 920600's grammar in every request).
        clean.stage(accept, v, v.length);
        clean.keep(accept);
        clean.stage(walk, v, v.length);
        clean.keep(walk);
        assertThat(clean.contains(name, v, v.length)).isTrue();
        assertThat(clean.contains(accept, v, v.length)).isTrue();
        assertThat(clean.contains(walk, v, v.length)).isTrue();
        long otherLevel = CleanValues.key(v, v.length, Part.ANY_HEADER, 2);
        clean.stage(otherLevel, v, v.length);
        clean.keep(otherLevel);
        assertThat(clean.contains(walk, v, v.length)).as("the same part at another level").isTrue();
    }

    @Test
    void shortValuesOfEveryLengthHashByAllTheirBytes() {
        // Up to 15 bytes a value is hashed whole: two values that differ in any one byte get different hashes here.
        Random random = new Random(20261206);
        for (int n = 1; n < 16; n++) {
            for (int round = 0; round < 200; round++) {
                byte[] a = new byte[n];
                random.nextBytes(a);
                for (int at = 0; at < n; at++) {
                    byte[] b = a.clone();
                    b[at] ^= (byte) (1 + random.nextInt(255));
                    assertThat(ByteHash.hash(b, 0, n)).as("n %d, byte %d", n, at).isNotEqualTo(ByteHash.hash(a, 0, n));
                }
            }
        }
    }

    @Test
    void aCookieLineWithAWarningBelowTheThresholdIsWalkedAgain() {
        AttacksPolicy tolerant = AttacksPolicyTest.policy(3, 100, false, List.of());
        scoresTheSameEveryTime(tolerant, request("Cookie", "theme=dark; pref=a'\")(;\"b; lang=en"), "cookie");
    }

    @Test
    void aQueryWithALineBreakInANameIsCheckedEveryTimeAndACleanOneIsAnsweredWhole() {
        AttacksPolicy strict = AttacksPolicyTest.pl(1);
        // A name with a line break (921150) dirties its query.
        TestPolicyInput lineBreak = new TestPolicyInput().path("/s");
        lineBreak.target("/s?a%0Ab=1&c=2");
        AttacksPolicy tolerant = AttacksPolicyTest.policy(1, 100, false, List.of());
        for (int i = 0; i < 3; i++) {
            assertThat(tolerant.evaluate(lineBreak)).isSameAs(PolicyDecision.CONTINUE);
            assertThat(AttacksPolicy.lastMatchesOnThisThread()).as("round " + i).contains("921150");
        }
        TestPolicyInput clean = AttacksPolicyTest.query("/search", "q", "blue shoes");
        for (int i = 0; i < 3; i++) {
            assertThat(strict.evaluate(clean)).isSameAs(PolicyDecision.CONTINUE);
        }
    }

    @Test
    void aHeaderFieldThatScoredBelowTheThresholdIsWalkedAgainAndAKeptOneAnswersWhole() {
        AttacksPolicy tolerant = new AttacksPolicy("waf", 1, 100, true, true, true, List.of("User-Agent", "Referer"), true, false,
                List.of(), DENIED, 0, false, 0, 0);
        scoresTheSameEveryTime(tolerant, request("X-Note", "java.lang.Object.getClass()"), "944130 header:x-note");
        // The same value under a name of its own, and the same name with a clean value: each is its own field.
        AttacksPolicy strict = allHeaders(1);
        for (int i = 0; i < 3; i++) {
            assertThat(strict.evaluate(request("X-Note", "a note"))).isSameAs(PolicyDecision.CONTINUE);
            assertThat(strict.evaluate(request("X-Other", "java.lang.Object.getClass()"))).isSameAs(DENIED);
        }
    }

    @Test
    void fieldsAndLinesLongerThanASlotAreWalkedWhole() {
        // Past CleanValues.MAX a field or a Cookie line is not kept as a whole: the payload at its end is found every time.
        AttacksPolicy policy = allHeaders(1);
        String padding = "a".repeat(CleanValues.MAX);
        for (int i = 0; i < 3; i++) {
            assertThat(policy.evaluate(request("X-Note", padding + " java.lang.Runtime.getRuntime()"))).as("field, round " + i)
                    .isSameAs(DENIED);
            assertThat(policy.evaluate(request("Cookie", "pad=" + padding + "; q=1 UNION SELECT 1"))).as("line, round " + i)
                    .isSameAs(DENIED);
            assertThat(policy.evaluate(request("X-Note", padding))).isSameAs(PolicyDecision.CONTINUE);
        }
        Inspection in = new Inspection();
        in.headerName("x-note");
        assertThat(in.pair(padding, padding.length())).as("over a slot: not written").isEqualTo(-1);
        assertThat(in.pair("v", 1)).isEqualTo("x-note:v".length());
        assertThat(new String(in.pair, 0, 8, StandardCharsets.ISO_8859_1)).isEqualTo("x-note:v");
    }
}
