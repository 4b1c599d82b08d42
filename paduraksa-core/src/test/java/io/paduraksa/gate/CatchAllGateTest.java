package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The gate over a configuration with exact names, wildcards of two depths and the catch-all host
 * (which denies /admin on every unknown host and answers the rest), and hosts with error pages of
 * their own over the server-wide ones.
 */
class CatchAllGateTest {
    /** Also measured by {@link GateAllocationTest}. */
    static final String YAML = """
                clusters:
                  app: {destinations: [{url: "http://192.0.2.10:8080"}]}
                policies:
                  no-admin: {type: path, deny: [/admin]}
                  office: {type: ip, allow: [192.0.2.0/24]}
                error_pages:
                  default: {body: "server ${status} ${request_id}", content_type: text/plain}
                  "502": {body: "server bad gateway"}
                hosts:
                  - names: [www.example.test]
                    routes: [{path: /, respond: {status: 200, body: www}}]
                  - names: ["*.example.test"]
                    policies: [office]
                    routes: [{path: /, respond: {status: 200, body: wild}}]
                    error_pages:
                      "403": {body: "wild forbidden ${status} ${reason}"}
                  - names: ["*.api.example.test"]
                    routes:
                      - {path: /gone, respond: {status: 410}}
                      - {path: /own, respond: {status: 404, body: "a body of its own"}}
                      - {path: /, respond: {status: 200, body: api}}
                    error_pages:
                      default: {body: "api ${status}", content_type: text/plain}
                  - names: ["*"]
                    policies: [no-admin]
                    routes:
                      - {path: /app, forward: app}
                      - {path: /, respond: {status: 200, body: "any host"}}
                """;
    private static Snapshot snapshot;
    private static Gate gate;

    @BeforeAll
    static void compile() {
        snapshot = CompiledFixtures.compile("catch-all.yaml", YAML);
        gate = new Gate(new SnapshotStore(snapshot));
    }

    @AfterAll
    static void release() {
        snapshot.release();
    }

    private static RequestState run(String host, String target, String peer) {
        StaticRequestView view = new StaticRequestView().client(GateTest.client(peer, false)).authority(host).target(target);
        RequestState state = new RequestState();
        gate.run(view, state);
        return state;
    }

    private static String answer(String host, String target) {
        return answer(run(host, target, "192.0.2.7"));
    }

    /** Status, host entry and body of the answer, or the cluster of a forward. */
    private static String answer(RequestState state) {
        String host = state.host() == null ? "default" : "hosts[" + state.host().index() + "]";
        if (state.response() == null) {
            return host + " forward " + state.cluster().name();
        }
        return host + " " + state.response().status() + " " + body(state.response());
    }

    @ParameterizedTest(name = "{0}{1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            www.example.test           | /       | hosts[0] 200 www
            a.example.test             | /       | hosts[1] 200 wild
            a.b.c.example.test         | /       | hosts[1] 200 wild
            api.example.test           | /       | hosts[1] 200 wild
            v1.api.example.test        | /       | hosts[2] 200 api
            x.v1.api.example.test:8443 | /       | hosts[2] 200 api
            example.test               | /       | hosts[3] 200 any host
            unknown.test               | /       | hosts[3] 200 any host
            UNKNOWN.TEST.              | /x/y    | hosts[3] 200 any host
            unknown.test               | /admin  | hosts[3] 403 server 403 0000000000000abc
            unknown.test               | /ADMIN/ | hosts[3] 403 server 403 0000000000000abc
            unknown.test               | /app/x  | hosts[3] forward app
            192.0.2.99                 | /admin  | hosts[3] 403 server 403 0000000000000abc
            [2001:db8::5]:443          | /admin  | hosts[3] 403 server 403 0000000000000abc
            a..b.example.test          | /admin  | default 421 server 421 0000000000000abc
            unknown.test..             | /       | default 421 server 421 0000000000000abc
            a_b.test                   | /       | default 421 server 421 0000000000000abc
            bücher.test                | /       | default 421 server 421 0000000000000abc
            [2001:db8::5               | /       | default 421 server 421 0000000000000abc
            ''                         | /       | default 421 server 421 0000000000000abc
            """)
    void exactThenLongestWildcardThenCatchAllThenDefault(String host, String target, String expected) {
        assertThat(answer(host, target)).isEqualTo(expected);
    }

    @Test
    void noHostAtAllGetsTheDefaultAnswerNotTheCatchAll() {
        assertThat(answer(null, "/admin")).isEqualTo("default 421 server 421 0000000000000abc");
    }

    @Test
    void aHostsOwnPageReplacesTheServerWidePageOfItsStatusOnly() {
        assertThat(answer(run("a.example.test", "/", "203.0.113.7"))).as("the office policy's 403, the host's page")
                .isEqualTo("hosts[1] 403 wild forbidden 403 Forbidden");
        assertThat(answer("a.example.test", "/x/../../y")).as("another status: the server-wide page")
                .isEqualTo("hosts[1] 400 server 400 0000000000000abc");
    }

    @Test
    void aHostsDefaultPageServesEveryErrorStatusOfTheHost() {
        assertThat(answer("v1.api.example.test", "/gone")).isEqualTo("hosts[2] 410 api 410");
        assertThat(answer("v1.api.example.test", "/x/../../y")).as("the gate's own 400").isEqualTo("hosts[2] 400 api 400");
        assertThat(answer("v1.api.example.test", "/own")).as("a respond with a body of its own keeps it")
                .isEqualTo("hosts[2] 404 a body of its own");
        RequestState state = run("v1.api.example.test", "/", "192.0.2.7");
        assertThat(state.statusAnswer(502).status()).isEqualTo(502);
        assertThat(body(state.statusAnswer(502))).as("the forwarder's 502 for this host").isEqualTo("api 502");
        assertThat(state.statusAnswer(502).headerValues()).extracting(Object::toString).contains("text/plain");
    }

    @Test
    void hostsWithoutPagesOfTheirOwnShareTheServerWideAnswers() {
        RequestState state = run("unknown.test", "/", "192.0.2.7");
        assertThat(state.statusAnswer(502)).isSameAs(snapshot.statusAnswer(502));
        assertThat(body(state.statusAnswer(502))).isEqualTo("server bad gateway");
        RequestState wild = run("a.example.test", "/", "192.0.2.7");
        assertThat(wild.statusAnswer(502)).as("a host whose pages do not cover 502").isSameAs(snapshot.statusAnswer(502));
        assertThat(wild.statusAnswer(299)).isNull();
    }

    private static String body(PrecomputedResponse r) {
        ByteBuf out = Unpooled.buffer();
        r.writeBody(out, 0xabcL);
        String body = out.toString(StandardCharsets.UTF_8);
        out.release();
        return body;
    }
}
