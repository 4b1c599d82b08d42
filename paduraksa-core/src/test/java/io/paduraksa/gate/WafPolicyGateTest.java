package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.policy.RateLimitPolicy;
import io.paduraksa.policy.RateLimiter;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotCompiler;
import io.paduraksa.snapshot.SnapshotStore;
import org.junit.jupiter.api.Test;

/** rate_limit and request policies compiled from YAML and run through the gate. */
class WafPolicyGateTest {
    private static final String YAML = """
            policies:
              api-limit: {type: rate_limit, key: client_ip, rate: %s, burst: 3}
              no-bots:
                type: request
                deny:
                  - {header: X-Debug, present: true}
                  - {query: debug, present: true}
                  - {method: [TRACE, TRACK]}
                max_body: 1KiB
                bot_signal: true
            hosts:
              - names: [a.test]
                policies: [api-limit, no-bots]
                routes: [{path: /, respond: {status: 200, body: ok}}]
              - names: [b.test]
                routes: [{path: /api, policies: [api-limit], respond: {status: 200}}, {path: /, respond: {status: 204}}]
            """;

    private static Snapshot compile(String rate, String policyName) {
        String yaml = YAML.formatted(rate).replace("api-limit", policyName);
        try {
            return SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", yaml), PooledByteBufAllocator.DEFAULT);
        } catch (ConfigException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    private static String run(Gate gate, String ip, String host, String method, String target, String... headers) {
        StaticRequestView view = new StaticRequestView().client(GateTest.client(ip, false)).authority(host).method(method).target(target);
        for (int i = 0; i < headers.length; i += 2) {
            view.header(headers[i], headers[i + 1]);
        }
        RequestState state = new RequestState();
        GateOutcome outcome = gate.run(view, state);
        return outcome == GateOutcome.RESPOND ? Integer.toString(state.response().status()) : outcome.toString();
    }

    private static String header(PrecomputedResponse response, String name) {
        for (int i = 0; i < response.headerNames().length; i++) {
            if (response.headerNames()[i].contentEqualsIgnoreCase(name)) {
                return response.headerValues()[i].toString();
            }
        }
        return null;
    }

    @Test
    void oneLimiterServesEveryHostAndRouteThatListsThePolicy() {
        Snapshot snapshot = compile("1/m", "shared-limit");
        try {
            Gate gate = new Gate(new SnapshotStore(snapshot));
            assertThat(run(gate, "192.0.2.1", "a.test", "GET", "/")).isEqualTo("200");
            assertThat(run(gate, "192.0.2.1", "b.test", "GET", "/api/x")).isEqualTo("200");
            assertThat(run(gate, "192.0.2.1", "b.test", "GET", "/other")).as("route without the policy").isEqualTo("204");
            assertThat(run(gate, "192.0.2.1", "a.test", "GET", "/")).isEqualTo("200");
            assertThat(run(gate, "192.0.2.1", "b.test", "GET", "/api")).as("4th request, burst 3, across hosts").isEqualTo("429");
            assertThat(run(gate, "192.0.2.2", "b.test", "GET", "/api")).as("another client").isEqualTo("200");

            RequestState state = new RequestState();
            gate.run(new StaticRequestView().client(GateTest.client("192.0.2.1", false)).authority("a.test").target("/"), state);
            assertThat(state.response().status()).isEqualTo(429);
            assertThat(header(state.response(), "Retry-After")).as("ceil(60 s per request)").isEqualTo("60");
        } finally {
            snapshot.release();
        }
    }

    @Test
    void requestRulesDenyThroughTheGate() {
        Snapshot snapshot = compile("1000/s", "rules-limit");
        try {
            // A different client per request, so that the rate limit (burst 3) never answers first.
            Gate gate = new Gate(new SnapshotStore(snapshot));
            String[] browser = {"user-agent", "Mozilla/5.0 (X11)", "accept", "text/html", "accept-language", "en"};
            assertThat(run(gate, "192.0.2.11", "a.test", "GET", "/?q=1", browser)).isEqualTo("200");
            assertThat(run(gate, "192.0.2.12", "a.test", "GET", "/?q=1&%64ebug", browser)).isEqualTo("403");
            assertThat(run(gate, "192.0.2.13", "a.test", "TRACE", "/", browser)).isEqualTo("403");
            assertThat(run(gate, "192.0.2.14", "a.test", "GET", "/", "user-agent", "Mozilla/5.0 (X11)")).as("bot signal").isEqualTo("403");
            assertThat(run(gate, "192.0.2.15", "a.test", "POST", "/", "content-length", "2048")).isEqualTo("413");
            assertThat(run(gate, "192.0.2.16", "a.test", "GET", "/", "X-DEBUG", "")).isEqualTo("403");
        } finally {
            snapshot.release();
        }
    }

    @Test
    void limiterStateSurvivesAReloadOnlyWhileItsSettingsAreUnchanged() {
        Snapshot first = compile("10/s", "reload-limit");
        Snapshot same = compile("10/s", "reload-limit");
        Snapshot changed = compile("20/s", "reload-limit");
        try {
            RateLimiter a = ((RateLimitPolicy) first.policies().get("reload-limit")).limiter();
            assertThat(((RateLimitPolicy) same.policies().get("reload-limit")).limiter()).isSameAs(a);
            assertThat(((RateLimitPolicy) changed.policies().get("reload-limit")).limiter()).isNotSameAs(a);
            assertThat(a.settings().burst()).isEqualTo(3);
            assertThat(a.settings().intervalNanos()).isEqualTo(100_000_000L);
        } finally {
            first.release();
            same.release();
            changed.release();
        }
    }
}
