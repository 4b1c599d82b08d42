package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Forward-auth decisions from answers, and the decision cache: exact keys, expiry, what is not cached. */
class ForwardAuthPolicyTest {

    /** A request with some headers, collecting the upstream fields a decision hands it. */
    static final class Input implements PolicyInput {
        final Map<String, String> headers = new HashMap<>();
        UpstreamFields fields;

        Input header(String name, String value) {
            headers.put(name.toLowerCase(), value);
            return this;
        }

        @Override
        public long clientIpHigh() {
            return 0;
        }

        @Override
        public long clientIpLow() {
            return 0;
        }

        @Override
        public byte[] path() {
            return new byte[0];
        }

        @Override
        public int pathLength() {
            return 0;
        }

        @Override
        public CharSequence method() {
            return "GET";
        }

        @Override
        public CharSequence header(AsciiString lowerCaseName) {
            return headers.get(lowerCaseName.toString());
        }

        @Override
        public void upstreamFields(UpstreamFields f) {
            this.fields = f;
        }
    }

    /** One answer for every policy here, held by the class: built per policy, its buffers leaked (LeakRecorder). */
    static final PolicyDecision UNAVAILABLE = PolicyDecision.respond(io.paduraksa.respond.PrecomputedResponse.builder(503)
            .body("down").build(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT));

    static ForwardAuthPolicy policy(long ttlNanos) {
        return new ForwardAuthPolicy("sso", URI.create("http://127.0.0.1:9/auth"), "GET", List.of("Cookie"),
                List.of("X-User"), List.of("Cookie", "Authorization"), ttlNanos, 1000, 500, UNAVAILABLE, null);
    }

    @Test
    void aMissAsksAndAnAllowIsCachedWithItsHeaders() {
        ForwardAuthPolicy p = policy(60_000_000_000L);
        Input in = new Input().header("Cookie", "s=1");
        assertThat(p.evaluate(in)).isSameAs(PolicyDecision.NEEDS_ASYNC);
        Object key = p.key(in);
        PolicyDecision d = p.decide(key, 204, List.of(new String[] {"X-User", "alice"}, new String[] {"X-Other", "no"}), new byte[0], in);
        assertThat(d).isSameAs(PolicyDecision.CONTINUE);
        assertThat(in.fields.size()).isEqualTo(1);
        assertThat(in.fields.name(0).toString()).isEqualTo("X-User");
        assertThat(in.fields.value(0).toString()).isEqualTo("alice");
        Input again = new Input().header("Cookie", "s=1");
        assertThat(p.evaluate(again)).isSameAs(PolicyDecision.CONTINUE);
        assertThat(again.fields).isSameAs(in.fields);
    }

    @Test
    void keysAreExactValuesAndAbsenceCounts() {
        ForwardAuthPolicy p = policy(60_000_000_000L);
        Input alice = new Input().header("Cookie", "s=1");
        p.decide(p.key(alice), 200, List.of(), new byte[0], alice);
        assertThat(p.evaluate(new Input().header("Cookie", "s=2"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
        assertThat(p.evaluate(new Input().header("Cookie", "s=1").header("Authorization", "x"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
        assertThat(p.evaluate(new Input())).isSameAs(PolicyDecision.NEEDS_ASYNC);
        // "a" + "bc" and "ab" + "c" concatenate alike; lengths keep them apart.
        Input ab = new Input().header("Cookie", "ab").header("Authorization", "c");
        p.decide(p.key(ab), 200, List.of(), new byte[0], ab);
        assertThat(p.evaluate(new Input().header("Cookie", "a").header("Authorization", "bc"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
    }

    @Test
    void denialsCarryTheServicesChallengeAndAreCached() {
        ForwardAuthPolicy p = policy(60_000_000_000L);
        Input in = new Input().header("Cookie", "bad");
        PolicyDecision d = p.decide(p.key(in), 401, List.of(new String[] {"WWW-Authenticate", "Bearer"},
                new String[] {"Content-Type", "text/plain"}, new String[] {"X-Internal", "secret"}), "no".getBytes(), in);
        assertThat(d.action()).isEqualTo(PolicyDecision.Action.RESPOND);
        assertThat(d.response().status()).isEqualTo(401);
        assertThat(List.of(d.response().headerNames()).toString()).contains("www-authenticate", "content-type").doesNotContain("x-internal");
        assertThat(p.evaluate(new Input().header("Cookie", "bad"))).isSameAs(d);
    }

    @Test
    void otherStatusesAreUnavailableAndNotCached() {
        ForwardAuthPolicy p = policy(60_000_000_000L);
        Input in = new Input().header("Cookie", "s=1");
        assertThat(p.decide(p.key(in), 500, List.of(), new byte[0], in)).isSameAs(p.unavailable());
        assertThat(p.decide(p.key(in), 302, List.of(), new byte[0], in)).isSameAs(p.unavailable()); // no Location
        assertThat(p.evaluate(in)).isSameAs(PolicyDecision.NEEDS_ASYNC);
    }

    @Test
    void answersThatSetACookieAreNotCached() {
        ForwardAuthPolicy p = policy(60_000_000_000L);
        Input in = new Input().header("Cookie", "s=1");
        PolicyDecision d = p.decide(p.key(in), 302, List.of(new String[] {"Location", "/login"},
                new String[] {"Set-Cookie", "csrf=1"}), new byte[0], in);
        assertThat(d.response().status()).isEqualTo(302);
        assertThat(p.evaluate(in)).isSameAs(PolicyDecision.NEEDS_ASYNC);
    }

    @Test
    void decisionsExpire() {
        ForwardAuthPolicy p = policy(1);
        Input in = new Input().header("Cookie", "s=1");
        p.decide(p.key(in), 200, List.of(), new byte[0], in);
        assertThat(p.evaluate(in)).isSameAs(PolicyDecision.NEEDS_ASYNC);
    }
}
