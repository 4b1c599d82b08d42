package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.net.IpParser;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.CompiledRoute;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.net.IDN;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GateTest {
    private static Snapshot snapshot;
    private static Gate gate;

    static final ClientInfo PEER = client("203.0.113.7", false);
    static final ClientInfo TRUSTED = client("198.51.100.20", true);

    @BeforeAll
    static void compile() {
        snapshot = CompiledFixtures.synthetic();
        gate = new Gate(new SnapshotStore(snapshot));
    }

    @AfterAll
    static void release() {
        snapshot.release();
    }

    static ClientInfo client(String ip, boolean trusted) {
        long[] out = new long[2];
        assertThat(IpParser.parse(ip, 0, ip.length(), out)).isTrue();
        return new ClientInfo(out[0], out[1], trusted, ClientInfo.NO_COUNTRY);
    }

    private static StaticRequestView get(String host, String target) {
        return new StaticRequestView().client(PEER).authority(host).target(target)
                .header("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36");
    }

    private static String outcome(StaticRequestView view) {
        RequestState state = new RequestState();
        GateOutcome outcome = gate.run(view, state);
        return switch (outcome) {
            case RESPOND, CHALLENGE -> outcome + " " + state.response().status();
            case FORWARD -> outcome + " " + state.cluster().name();
            default -> outcome.toString();
        };
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "h1.test, /static, RESPOND 200",
        "h1.test, /static/, RESPOND 200",
        "h1.test, /static?x=1&y=2, RESPOND 200",
        "h1.test, /staticx, FORWARD app",
        "h1.test, /old, RESPOND 301",
        "h1.test, /, FORWARD app",
        "h1.test, /admin, RESPOND 403",
        "h1.test, /admin/users, RESPOND 403",
        "h1.test, /ADMIN, RESPOND 403",
        "h1.test, /administrator, FORWARD app",
        "h1.test, /static/../admin, RESPOND 403",
        "h1.test, //admin, RESPOND 403",
        "h1.test, /%61dmin, RESPOND 403",
        "h1.test, /./admin/., RESPOND 403",
        "h1.test, /static/..%2fadmin, RESPOND 400",
        "h1.test, /static/..%5cadmin, RESPOND 400",
        "h1.test, /../etc/passwd, RESPOND 400",
        "h1.test, /a%00b, RESPOND 400",
        "h1.test, /admin;x=1, RESPOND 403",
        "h1.test, /admin;, RESPOND 403",
        "h1.test, /admin;jsessionid=1/x, RESPOND 403",
        "h1.test, /x/..;/admin, RESPOND 403",
        "h1.test, /x/%2e%2e;/admin, RESPOND 403",
        "h1.test, /.;/admin, RESPOND 403",
        "h1.test, /;x/admin, RESPOND 403",
        "h1.test, //admin;, RESPOND 403",
        "h1.test, /admin;/, RESPOND 403",
        "h1.test, /a;x/..;y/admin;z, RESPOND 403",
        "h1.test, /ADMIN;x=1, RESPOND 403",
        "h1.test, /Admin%3Bx=1, RESPOND 403",
        "h1.test, /x/..%3B/admin, RESPOND 403",
        "h1.test, /admin;x=1?q=1, RESPOND 403",
        "h1.test, /administrator;x=1, FORWARD app",
        "h1.test, /..;/admin, RESPOND 400",
        "H1.TEST, /static, RESPOND 200",
        "h1.test:8443, /static, RESPOND 200",
        "h1.test., /static, RESPOND 200",
        "h1.test.:80, /static, RESPOND 200",
        "a.w3.test, /static, RESPOND 200",
        "A.W19.TEST:443, /old, RESPOND 301",
        "a.b.w3.test, /static, RESPOND 200",
        "a..w3.test, /static, RESPOND 421",
        "w3.test, /static, RESPOND 421",
        "nope.example, /static, RESPOND 421",
        "'', /static, RESPOND 421",
    })
    void decides(String host, String target, String expected) {
        assertThat(outcome(get(host, target))).isEqualTo(expected);
    }

    @Test
    void idnHostsAreFoundByTheirPunycodeName() {
        String punycode = IDN.toASCII("bücher495.test");
        assertThat(punycode).startsWith("xn--");
        assertThat(outcome(get(punycode, "/static"))).isEqualTo("RESPOND 200");
        assertThat(outcome(get("bücher495.test", "/static"))).as("raw Unicode Host is not what browsers send").isEqualTo("RESPOND 421");
    }

    @Test
    void aMissingHostGetsTheDefaultAnswer() {
        assertThat(outcome(get(null, "/static"))).isEqualTo("RESPOND 421");
    }

    @Test
    void userAgentNeedlesDenyCaseInsensitively() {
        StaticRequestView view = get("h7.test", "/").clearHeaders().header("User-Agent", "Mozilla/5.0 SQLMap/1.7");
        RequestState state = new RequestState();
        assertThat(gate.run(view, state)).isEqualTo(GateOutcome.RESPOND);
        assertThat(state.response().status()).isEqualTo(403);
        assertThat(state.decidingPolicy().name()).isEqualTo("bad-bots");
    }

    @Test
    void theClientIpHeaderIsHonouredOnlyFromATrustedPeer() {
        String denied = "10.0.0.0";
        // Find a denied address: the synthetic deny list holds /24s from 10.0.0.0/8; scan for one.
        RequestState state = new RequestState();
        String hit = null;
        for (int a = 0; a < 64 && hit == null; a++) {
            for (int b = 0; b < 256 && hit == null; b++) {
                String candidate = "10." + a + "." + b + ".9";
                StaticRequestView v = get("h2.test", "/").client(TRUSTED).header("CF-Connecting-IP", candidate);
                if (gate.run(v, state) == GateOutcome.RESPOND) {
                    hit = candidate;
                }
            }
        }
        assertThat(hit).as("some address in " + denied + "/8 is on the deny list").isNotNull();
        assertThat(state.isClientIpFromHeader()).isTrue();
        assertThat(state.decidingPolicy().name()).isEqualTo("deny-list");
        assertThat(IpParser.format(state.clientIpHigh(), state.clientIpLow())).isEqualTo(hit);

        StaticRequestView untrusted = get("h2.test", "/").client(PEER).header("CF-Connecting-IP", hit);
        assertThat(gate.run(untrusted, state)).as("header ignored from an untrusted peer").isEqualTo(GateOutcome.FORWARD);
        assertThat(state.isClientIpFromHeader()).isFalse();
        assertThat(IpParser.format(state.clientIpHigh(), state.clientIpLow())).isEqualTo("203.0.113.7");

        StaticRequestView garbage = get("h2.test", "/").client(TRUSTED).header("CF-Connecting-IP", hit + ", 192.0.2.1");
        assertThat(gate.run(garbage, state)).isEqualTo(GateOutcome.FORWARD);
        assertThat(state.isClientIpFromHeader()).as("an unparsable header falls back to the peer").isFalse();
    }

    @Test
    void theStateCarriesTheNormalisedPathAndTheQuery() {
        StaticRequestView view = get("h3.test", "/a/./b//c/../d?q=1");
        RequestState state = new RequestState();
        assertThat(gate.run(view, state)).isEqualTo(GateOutcome.FORWARD);
        assertThat(new String(state.path(), 0, state.pathLength(), StandardCharsets.US_ASCII)).isEqualTo("/a/b/d");
        assertThat(view.target().subSequence(state.queryStart(), state.queryEnd()).toString()).isEqualTo("q=1");
        assertThat(state.host().names()).containsExactly("h3.test");
        assertThat(state.route().prefix()).isEqualTo("/");
        assertThat(state.snapshot()).isSameAs(snapshot);
    }

    @Test
    void strippedParametersAreNotInThePathTheForwarderSends() {
        StaticRequestView view = get("h3.test", "/a;x=1/b;jsessionid=7/../c;?q=1");
        RequestState state = new RequestState();
        assertThat(gate.run(view, state)).isEqualTo(GateOutcome.FORWARD);
        assertThat(new String(state.path(), 0, state.pathLength(), StandardCharsets.US_ASCII)).isEqualTo("/a/c");
        assertThat(view.target().subSequence(state.queryStart(), state.queryEnd()).toString()).isEqualTo("q=1");
    }

    /** {@code deny: [/admin]} under each {@code normalize.path_parameters} choice. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "strip, /admin;x=1, 403",
        "strip, /x/..;/admin, 403",
        "strip, /admin%3Bx, 403",
        "strip, /public;v=1, 200",
        "reject, /admin;x=1, 400",
        "reject, /x/..;/admin, 400",
        "reject, /public;v=1, 400",
        "reject, /public%3bv=1, 400",
        "reject, /admin, 403",
        "reject, /public, 200",
        "keep, /admin;x=1, 200",
        "keep, /x/..;/admin, 200",
        "keep, /admin, 403",
    })
    void pathParametersFollowTheConfiguredChoice(String mode, String target, int expected) {
        Snapshot s = CompiledFixtures.compile("edge.yaml", """
                normalize:
                  path_parameters: %s
                listeners: [{address: "127.0.0.1:8080"}]
                policies:
                  no-admin: {type: path, deny: [/admin]}
                hosts:
                  - names: [p.test]
                    policies: [no-admin]
                    routes: [{path: /, respond: {status: 200}}]
                """.formatted(mode));
        try {
            RequestState state = new RequestState();
            GateOutcome outcome = new Gate(new SnapshotStore(s)).run(get("p.test", target), state);
            assertThat(outcome).isEqualTo(GateOutcome.RESPOND);
            assertThat(state.response().status()).isEqualTo(expected);
        } finally {
            s.release();
        }
    }

    @Test
    void resetForgetsThePreviousRequest() {
        RequestState state = new RequestState();
        gate.run(get("h1.test", "/static"), state);
        assertThat(state.response()).isNotNull();
        gate.run(get("h1.test", "/"), state);
        assertThat(state.response()).isNull();
        assertThat(state.cluster()).isNotNull();
        gate.run(get("nope.example", "/"), state);
        assertThat(state.cluster()).isNull();
        assertThat(state.host()).isNull();
        assertThat(state.route()).isNull();
        state.clear();
        assertThat(state.snapshot()).isNull();
        assertThat(state.view()).isNull();
    }

    @Test
    void aTraceSeesEveryStepInOrder() {
        List<String> steps = new ArrayList<>();
        GateTrace trace = new GateTrace() {
            @Override
            public void clientIp(long high, long low, boolean fromHeader) {
                steps.add("ip " + IpParser.format(high, low) + (fromHeader ? " (header)" : ""));
            }

            @Override
            public void host(CharSequence authority, CompiledHost host) {
                steps.add("host " + authority + " -> " + (host == null ? "none" : host.names()));
            }

            @Override
            public void path(byte[] normalised, int length) {
                steps.add("path " + (length < 0 ? "rejected" : new String(normalised, 0, length, StandardCharsets.US_ASCII)));
            }

            @Override
            public void route(CompiledRoute route) {
                steps.add("route " + (route == null ? "none" : route.prefix()));
            }

            @Override
            public void policy(RequestPolicy policy, boolean hostLevel, PolicyDecision decision) {
                steps.add("policy " + policy.name() + " " + decision);
            }

            @Override
            public void outcome(GateOutcome outcome, RequestState state) {
                steps.add("outcome " + outcome);
            }
        };
        gate.run(get("h9.test", "/admin/x").client(TRUSTED).header("cf-connecting-ip", "192.0.2.55"), new RequestState(), trace);
        assertThat(steps).containsExactly(
                "ip 192.0.2.55 (header)",
                "host h9.test -> [h9.test]",
                "path /admin/x",
                "route /",
                "policy deny-list CONTINUE",
                "policy bad-bots CONTINUE",
                "policy no-admin RESPOND 403",
                "outcome RESPOND");
    }

    /** {@code default: {forward: ...}}: the upstream request line is written from the normalised path, so the gate fills it. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/a/./b/../c?q=1, FORWARD /a/c",
        "/, FORWARD /",
        "/../etc/passwd, RESPOND 400",
    })
    void defaultForwardNormalisesThePath(String target, String expected) {
        Snapshot s = CompiledFixtures.compile("default-forward.yaml", """
                listeners: [{address: "127.0.0.1:0"}]
                clusters:
                  fallback: {destinations: [{url: "http://192.0.2.10:8080"}]}
                default: {forward: fallback}
                hosts:
                  - names: [known.test]
                    routes: [{path: /, respond: {status: 204}}]
                """);
        try {
            RequestState state = new RequestState();
            GateOutcome outcome = new Gate(new SnapshotStore(s)).run(get("other.test", target), state);
            String got = outcome == GateOutcome.FORWARD
                    ? outcome + " " + new String(state.path(), 0, state.pathLength(), StandardCharsets.US_ASCII)
                    : outcome + " " + state.response().status();
            assertThat(got).isEqualTo(expected);
            if (outcome == GateOutcome.FORWARD) {
                assertThat(state.cluster().name()).isEqualTo("fallback");
            }
        } finally {
            s.release();
        }
    }
}
