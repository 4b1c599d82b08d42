package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.TestPolicyInput;
import io.netty.util.AsciiString;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("allocation")
class RateLimitPolicyAllocationTest {
    private static final long SECOND = 1_000_000_000L;

    /** A request whose clock and client IP the step moves. */
    static final class Request extends TestPolicyInput {
        final RateLimiterTest.FakeClock clock = new RateLimiterTest.FakeClock();
        final long[] ips;
        RateLimitPolicy policy;
        long tick;
        int next;
        long admitted;
        long limited;

        Request(int keys) {
            ips = new long[keys];
            for (int i = 0; i < keys; i++) {
                ips[i] = 0xC633_6400L + i; // 198.51.100.0 and up
            }
        }

        Request policy(RateLimiter.Settings settings, RateLimitPolicy.Key key, String header) {
            return policy(settings, key, header, false);
        }

        Request policy(RateLimiter.Settings settings, RateLimitPolicy.Key key, String header, boolean headers) {
            policy = new RateLimitPolicy("limit", new RateLimiter("limit", settings, clock, 1), key, header, PolicyDecision.DROP, headers);
            return this;
        }

        int reports;

        @Override
        public void rateLimit(int limit, int remaining, int resetSeconds) {
            reports += limit + remaining + resetSeconds > 0 ? 1 : 0;
        }

        void run() {
            clock.now += tick;
            int i = next;
            next = i + 1 == ips.length ? 0 : i + 1;
            clientIp(0xFFFF_0000_0000L, ips[i]);
            if (policy.evaluate(this).isContinue()) {
                admitted++;
            } else {
                limited++;
            }
        }
    }

    @Test
    void anAdmittedRequestAllocatesNothingWithOneKeyOrMany() {
        for (int keys : new int[] {1, 100_000}) {
            Request r = new Request(keys).policy(new RateLimiter.Settings(SECOND / 1000, 10, 100_000, false, 600 * SECOND),
                    RateLimitPolicy.Key.CLIENT_IP_AND_ROUTE, null);
            r.hostAndRoute(3, 1);
            r.tick = SECOND / 1000;
            AllocationAssert.assertZero("admitted, " + keys + " keys", r, Request::run);
            assertThat(r.limited).isZero();
        }
    }

    @Test
    void aDistributedCheckAllocatesNothingInEveryMode() {
        DistributedLimit shared = new DistributedLimit("redis://127.0.0.1:6379/0", 100_000_000L, 0.5, false, "paduraksa:rl:");
        for (RateLimiter.Mode mode : RateLimiter.Mode.values()) {
            Request r = new Request(1000).policy(new RateLimiter.Settings(SECOND / 1000, 10, 100_000, false, 600 * SECOND, shared),
                    RateLimitPolicy.Key.CLIENT_IP, null);
            r.policy.limiter().mode(mode);
            r.tick = SECOND / 10_000;
            AllocationAssert.assertZero("distributed, " + mode, r, Request::run);
            assertThat(mode == RateLimiter.Mode.CLOSED ? r.admitted : r.limited).isZero();
        }
    }

    @Test
    void reportingTheRateLimitFieldsAllocatesNothing() {
        // 10 keys in turn, each at 5 requests per ms against 1 per ms: admitted and limited both.
        Request r = new Request(10).policy(new RateLimiter.Settings(SECOND / 1000, 10, 100_000, false, 600 * SECOND),
                RateLimitPolicy.Key.CLIENT_IP, null, true);
        r.tick = SECOND / 50_000;
        AllocationAssert.assertZero("with headers", r, Request::run);
        assertThat(r.reports).isPositive();
        assertThat(r.limited).isPositive();
    }

    @Test
    void aLimitedRequestAllocatesNothing() {
        Request r = new Request(1).policy(new RateLimiter.Settings(SECOND, 5, 100, false, 600 * SECOND), RateLimitPolicy.Key.CLIENT_IP, null);
        AllocationAssert.assertZero("limited", r, Request::run);
        assertThat(r.admitted).isEqualTo(5);
    }

    @Test
    void aFullTableAllocatesNothingBetweenItsLogLines() {
        Request r = new Request(1000).policy(new RateLimiter.Settings(3600 * SECOND, 1, 10, false, 600 * SECOND), RateLimitPolicy.Key.CLIENT_IP, null);
        AllocationAssert.assertZero("table full", r, Request::run);
        assertThat(r.policy.limiter().fullCount()).isPositive();
    }

    @Test
    void aHeaderKeyAllocatesNothing() {
        Request r = new Request(1).policy(new RateLimiter.Settings(SECOND / 1000, 10, 100, false, 600 * SECOND), RateLimitPolicy.Key.HEADER, "X-Api-Key");
        r.header("x-api-key", new AsciiString("k-0123456789abcdef"));
        r.tick = SECOND / 1000;
        AllocationAssert.assertZero("header key", r, Request::run);
        assertThat(r.limited).isZero();
    }
}
