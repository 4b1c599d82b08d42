package io.paduraksa.policy.challenge;

import static io.paduraksa.policy.challenge.ChallengeFixtures.HOST;
import static io.paduraksa.policy.challenge.ChallengeFixtures.K1;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_A;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_OTHER_24;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.testing.TestPolicyInput;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChallengePolicyTest {
    static final int DIFFICULTY = 8;
    private static final Pattern TOKEN = Pattern.compile("var T = \"([^\"]+)\"");

    final ChallengeFixtures.FixedClock clock = new ChallengeFixtures.FixedClock();
    final ChallengeToken token = new ChallengeToken(new ChallengeKey[] {K1}, ClientBinding.IP, DIFFICULTY, 300, clock, "challenge");
    final ClearanceCookie cookie = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K1}, 3600, ClientBinding.IP, "challenge", true);
    final PrecomputedResponse page = PrecomputedResponse.builder(403)
            .header("Content-Type", "text/html; charset=utf-8")
            .body(ChallengePage.html(DIFFICULTY), ChallengePage.TOKEN_VARIABLE, token)
            .build(PooledByteBufAllocator.DEFAULT);
    final PrecomputedResponse denial = PrecomputedResponse.builder(403).body("no").build(PooledByteBufAllocator.DEFAULT);
    final ChallengePolicy policy = new ChallengePolicy("challenge", cookie, token, PolicyDecision.challenge(page),
            PolicyDecision.respond(denial), clock, PooledByteBufAllocator.DEFAULT);

    @AfterEach
    void release() {
        page.release();
        denial.release();
    }

    static TestPolicyInput browser(String target, long low) {
        TestPolicyInput in = new TestPolicyInput();
        in.clientIp(0, low).target(target).authority(HOST);
        in.header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
        return in;
    }

    /** The token the page carries for this client. */
    String pageToken(long low) {
        ByteBuf body = PooledByteBufAllocator.DEFAULT.heapBuffer();
        try {
            page.writeBody(body, 42, 0, low);
            assertThat(body.readableBytes()).isEqualTo(page.contentLength());
            Matcher m = TOKEN.matcher(body.toString(StandardCharsets.UTF_8));
            assertThat(m.find()).isTrue();
            return m.group(1);
        } finally {
            body.release();
        }
    }

    static String solve(String token) {
        return token + "." + ChallengeFixtures.nonce(token, DIFFICULTY, true);
    }

    @Test
    void aBrowserWithoutCookieGetsThePageWithAFreshTokenForItsAddress() {
        assertThat(policy.evaluate(browser("/shop", V4_A))).isSameAs(policy.evaluate(browser("/", V4_A)));
        assertThat(policy.evaluate(browser("/shop", V4_A)).action()).isEqualTo(PolicyDecision.Action.CHALLENGE);
        String t = pageToken(V4_A);
        assertThat(token.verifyProof(solve(t), 0, solve(t).length(), 0, V4_A)).isTrue();
        assertThat(page.isTemplate()).isTrue();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            GET  | -
            GET  | application/json
            GET  | */*
            POST | text/html
            """)
    void whatCannotRunThePageIsRefused(String method, String accept) {
        TestPolicyInput in = new TestPolicyInput();
        in.clientIp(0, V4_A).target("/").method(method);
        if (accept != null) {
            in.header("Accept", accept);
        }
        assertThat(policy.evaluate(in).response()).isSameAs(denial);
    }

    @Test
    void aSolvedChallengeEarnsARedirectWithTheCookieAndTheCookiePasses() {
        String proof = solve(pageToken(V4_A));
        PolicyDecision d = policy.evaluate(browser("/shop/cart?item=7&__pdk_proof=" + proof, V4_A));
        PrecomputedResponse answer = d.response();
        try {
            assertThat(answer.status()).isEqualTo(302);
            assertThat(answer.isOneShot()).isTrue();
            assertThat(header(answer, "location")).isEqualTo("/shop/cart?item=7");
            String setCookie = header(answer, "set-cookie");
            assertThat(setCookie).startsWith("pdk_clearance=1.k1.")
                    .endsWith("; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax").doesNotContain("Secure");
            String cookieHeader = setCookie.substring(0, setCookie.indexOf(';'));
            TestPolicyInput again = browser("/shop/cart?item=7", V4_A);
            again.header("Cookie", "theme=dark; " + cookieHeader);
            assertThat(policy.evaluate(again)).isSameAs(PolicyDecision.CONTINUE);
            TestPolicyInput elsewhere = browser("/", V4_OTHER_24);
            elsewhere.header("Cookie", cookieHeader);
            assertThat(policy.evaluate(elsewhere).action()).as("cookie replayed from another address").isEqualTo(PolicyDecision.Action.CHALLENGE);
        } finally {
            answer.release();
        }
    }

    @Test
    void overTlsTheCookieIsSecure() {
        TestPolicyInput in = browser("/?__pdk_proof=" + solve(pageToken(V4_A)), V4_A);
        in.connection(true, false, 0);
        PrecomputedResponse answer = policy.evaluate(in).response();
        try {
            assertThat(header(answer, "set-cookie")).endsWith("; Secure");
        } finally {
            answer.release();
        }
    }

    @Test
    void anOpenRedirectThroughTheProofIsImpossible() {
        String proof = solve(pageToken(V4_A));
        PrecomputedResponse answer = policy.evaluate(browser("//evil.example/?__pdk_proof=" + proof, V4_A)).response();
        try {
            assertThat(header(answer, "location")).isEqualTo("/");
        } finally {
            answer.release();
        }
    }

    @Test
    void aBadProofIsRefused() {
        String t = pageToken(V4_A);
        String weak = t + "." + ChallengeFixtures.nonce(t, DIFFICULTY, false);
        assertThat(policy.evaluate(browser("/?__pdk_proof=" + weak, V4_A)).response()).isSameAs(denial);
        assertThat(policy.evaluate(browser("/?__pdk_proof=" + solve(t), V4_OTHER_24)).response()).as("replayed from elsewhere").isSameAs(denial);
        assertThat(policy.evaluate(browser("/?__pdk_proof=garbage", V4_A)).response()).isSameAs(denial);
    }

    /** Another challenge policy with the same keys, cookie name and difficulty (host binding as given). */
    ChallengePolicy other(String name, boolean bindHost) {
        ChallengeToken t = new ChallengeToken(new ChallengeKey[] {K1}, ClientBinding.IP, DIFFICULTY, 300, clock, name);
        ClearanceCookie c = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K1}, 3600, ClientBinding.IP, name, bindHost);
        return new ChallengePolicy(name, c, t, PolicyDecision.challenge(page), PolicyDecision.respond(denial), clock,
                PooledByteBufAllocator.DEFAULT);
    }

    /** Solves this policy's challenge at {@code at} and returns the {@code Cookie} header it earns. */
    static String earnCookie(ChallengePolicy at, TestPolicyInput request) {
        PrecomputedResponse answer = at.evaluate(request).response();
        try {
            assertThat(answer.status()).isEqualTo(302);
            String setCookie = header(answer, "set-cookie");
            return setCookie.substring(0, setCookie.indexOf(';'));
        } finally {
            answer.release();
        }
    }

    static TestPolicyInput withCookie(TestPolicyInput in, String cookieHeader) {
        in.header("Cookie", cookieHeader);
        return in;
    }

    @Test
    void aCookieIsValidOnlyAtThePolicyThatIssuedIt() {
        String cookieHeader = earnCookie(policy, browser("/?__pdk_proof=" + solve(pageToken(V4_A)), V4_A));
        assertThat(policy.evaluate(withCookie(browser("/", V4_A), cookieHeader))).isSameAs(PolicyDecision.CONTINUE);
        ChallengePolicy stricter = other("challenge-strict", true);
        assertThat(stricter.evaluate(withCookie(browser("/", V4_A), cookieHeader)).action())
                .as("same keys and cookie name, another policy").isEqualTo(PolicyDecision.Action.CHALLENGE);
        ChallengePolicy reloaded = other("challenge", true);
        assertThat(reloaded.evaluate(withCookie(browser("/", V4_A), cookieHeader)))
                .as("the same policy compiled again (a reload)").isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void aProofSolvedForOnePolicyIsRefusedByAnother() {
        String proof = solve(pageToken(V4_A));
        assertThat(other("challenge-strict", true).evaluate(browser("/?__pdk_proof=" + proof, V4_A)).response()).isSameAs(denial);
    }

    @Test
    void withBindHostACookieIsValidOnlyForItsHostName() {
        String cookieHeader = earnCookie(policy, browser("/?__pdk_proof=" + solve(pageToken(V4_A)), V4_A));
        assertThat(policy.evaluate(withCookie(browser("/", V4_A).authority("Shop.Example:443"), cookieHeader)))
                .as("case and port do not matter").isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(withCookie(browser("/", V4_A).authority("shop.example."), cookieHeader)))
                .as("nor a trailing dot").isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(withCookie(browser("/", V4_A).authority("admin.shop.example"), cookieHeader)).action())
                .isEqualTo(PolicyDecision.Action.CHALLENGE);
        assertThat(policy.evaluate(withCookie(browser("/", V4_A).authority(null), cookieHeader)).action())
                .isEqualTo(PolicyDecision.Action.CHALLENGE);
    }

    @Test
    void withoutBindHostACookieIsValidForEveryHostOfThePolicy() {
        ChallengePolicy anyHost = other("challenge", false);
        String cookieHeader = earnCookie(anyHost, browser("/?__pdk_proof=" + solve(pageToken(V4_A)), V4_A));
        assertThat(anyHost.evaluate(withCookie(browser("/", V4_A).authority("admin.shop.example"), cookieHeader)))
                .isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(withCookie(browser("/", V4_A), cookieHeader)).action())
                .as("a host-bound policy of the same name does not take it").isEqualTo(PolicyDecision.Action.CHALLENGE);
    }

    @Test
    void aSolvedProofEarnsOneCookieOnly() {
        String proof = solve(pageToken(V4_A));
        earnCookie(policy, browser("/?__pdk_proof=" + proof, V4_A));
        assertThat(policy.evaluate(browser("/?__pdk_proof=" + proof, V4_A)).response()).as("replayed").isSameAs(denial);
        assertThat(policy.evaluate(browser("/other?__pdk_proof=" + proof, V4_A).authority("admin.shop.example")).response())
                .as("replayed at another target and host").isSameAs(denial);
        clock.now += 1;
        earnCookie(policy, browser("/?__pdk_proof=" + solve(pageToken(V4_A)), V4_A));
    }

    /** The documented bound: the redeemed set lives with the compiled policy, so a reload starts an empty one. */
    @Test
    void aPolicyCompiledAgainStartsWithNoRedeemedProofs() {
        String proof = solve(pageToken(V4_A));
        earnCookie(policy, browser("/?__pdk_proof=" + proof, V4_A));
        earnCookie(other("challenge", true), browser("/?__pdk_proof=" + proof, V4_A));
    }

    private static String header(PrecomputedResponse r, String name) {
        for (int i = 0; i < r.headerNames().length; i++) {
            if (r.headerNames()[i].toString().equals(name)) {
                return r.headerValues()[i].toString();
            }
        }
        return null;
    }
}
