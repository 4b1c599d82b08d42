package io.paduraksa.policy.challenge;

import static io.paduraksa.policy.challenge.ChallengeFixtures.HOST;
import static io.paduraksa.policy.challenge.ChallengeFixtures.K1;
import static io.paduraksa.policy.challenge.ChallengeFixtures.K2;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_A;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.TestPolicyInput;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("allocation")
class ChallengePolicyAllocationTest {

    static final class Request extends TestPolicyInput {
        ChallengePolicy policy;
        PrecomputedResponse page;
        ByteBuf out;
        long passed;
        long challenged;

        void run() {
            if (policy.evaluate(this).isContinue()) {
                passed++;
            } else {
                challenged++;
            }
        }

        void writePage() {
            out.clear();
            page.writeBody(out, 7, 0, V4_A);
        }
    }

    private static Request request(ChallengeKey[] keys, String cookieHeader, String accept) {
        ChallengeFixtures.FixedClock clock = new ChallengeFixtures.FixedClock();
        ChallengeToken token = new ChallengeToken(keys, ClientBinding.IP, 16, 300, clock, "challenge");
        ClearanceCookie cookie = new ClearanceCookie("pdk_clearance", keys, 3600, ClientBinding.IP, "challenge", true);
        Request r = new Request();
        r.page = PrecomputedResponse.builder(403).body(ChallengePage.html(16), ChallengePage.TOKEN_VARIABLE, token)
                .build(PooledByteBufAllocator.DEFAULT);
        r.policy = new ChallengePolicy("c", cookie, token, PolicyDecision.challenge(r.page), PolicyDecision.DROP, clock,
                PooledByteBufAllocator.DEFAULT);
        r.clientIp(0, V4_A).target("/shop/cart?item=7").authority(HOST);
        r.header("Accept", accept);
        if (cookieHeader != null) {
            r.header("Cookie", new AsciiString(cookieHeader.replace("$", cookie.issue(HOST, 0, V4_A, clock.now))));
        }
        return r;
    }

    @Test
    void aValidCookieIsCheckedWithoutAllocating() {
        Request r = request(new ChallengeKey[] {K1}, "theme=dark; lang=en; pdk_clearance=$; _ga=GA1.2.3", "text/html");
        AllocationAssert.assertZero("valid cookie", r, Request::run);
        assertThat(r.challenged).isZero();
        r.page.release();
    }

    @Test
    void aCookieOfTheSecondListedKeyIsCheckedWithoutAllocating() {
        Request r = request(new ChallengeKey[] {K1}, "pdk_clearance=$", "text/html");
        ChallengeFixtures.FixedClock clock = new ChallengeFixtures.FixedClock();
        ChallengeKey[] rotated = {K2, K1};
        ChallengeToken token = new ChallengeToken(rotated, ClientBinding.IP, 16, 300, clock, "challenge");
        r.policy = new ChallengePolicy("c", new ClearanceCookie("pdk_clearance", rotated, 3600, ClientBinding.IP, "challenge", true), token,
                PolicyDecision.challenge(r.page), PolicyDecision.DROP, clock, PooledByteBufAllocator.DEFAULT);
        AllocationAssert.assertZero("rotated key", r, Request::run);
        assertThat(r.challenged).isZero();
        r.page.release();
    }

    @Test
    void aForgedCookieAndTheChallengeDecisionAllocateNothing() {
        Request r = request(new ChallengeKey[] {K1}, "pdk_clearance=1.k1.1767229200.0123456789abcdef0123456789abcdef", "text/html");
        AllocationAssert.assertZero("forged cookie", r, Request::run);
        assertThat(r.passed).isZero();
        r.page.release();
    }

    @Test
    void aCookieForAnotherHostIsRefusedWithoutAllocating() {
        Request r = request(new ChallengeKey[] {K1}, "pdk_clearance=$", "text/html");
        r.authority("admin.shop.example:8443");
        AllocationAssert.assertZero("cookie of another host", r, Request::run);
        assertThat(r.passed).isZero();
        assertThat(r.challenged).isPositive();
        r.page.release();
    }

    @Test
    void aNonBrowserRefusalAllocatesNothing() {
        Request r = request(new ChallengeKey[] {K1}, null, "application/json");
        AllocationAssert.assertZero("non-browser", r, Request::run);
        assertThat(r.passed).isZero();
        r.page.release();
    }

    @Test
    void thePagesTokenIsWrittenWithoutAllocating() {
        Request r = request(new ChallengeKey[] {K1}, null, "text/html");
        r.out = PooledByteBufAllocator.DEFAULT.directBuffer(r.page.contentLength());
        try {
            AllocationAssert.assertZero("page token", r, Request::writePage);
            assertThat(r.out.readableBytes()).isEqualTo(r.page.contentLength());
        } finally {
            r.out.release();
            r.page.release();
        }
    }
}
