package io.paduraksa.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MetricsTest {
    static final String YAML = """
            policies:
              bots: {type: user_agent, deny: [sqlmap]}
            hosts:
              - names: [a.test]
                policies: [bots]
                routes:
                  - {path: /old, redirect: {location: "https://a.test/new", status: 301}}
                  - {path: /x, respond: {status: 200, body: "a"}}
              - names: [b.test, "*.b.test"]
                routes:
                  - {path: /, respond: {status: 204}}
            """;
    /** The same hosts in the other order, plus a new one; a.test's routes reordered. */
    static final String REORDERED = """
            policies:
              bots: {type: user_agent, deny: [sqlmap]}
            hosts:
              - names: [c.test]
                routes:
                  - {path: /, respond: {status: 200}}
              - names: [b.test]
                routes:
                  - {path: /, respond: {status: 204}}
              - names: [a.test]
                policies: [bots]
                routes:
                  - {path: /x, respond: {status: 200, body: "a"}}
                  - {path: /old, redirect: {location: "https://a.test/new", status: 301}}
            """;

    private final Snapshot first = CompiledFixtures.compile("metrics.yaml", YAML);
    private final SnapshotStore store = new SnapshotStore(first);
    private final Gate gate = new Gate(store);
    private final Metrics metrics = new Metrics(store, List.of("public", "admin"), new boolean[] {false, true});
    private final RequestState state = new RequestState();
    private final StaticRequestView view = new StaticRequestView().client(new ClientInfo(0, 0xffff_c000_0201L, false, ClientInfo.NO_COUNTRY));
    private Snapshot second;

    @AfterEach
    void release() {
        first.release();
        if (second != null) {
            second.release();
        }
    }

    private GateOutcome request(String host, String path, String userAgent) {
        view.clearHeaders().method("GET").authority(host).target(path);
        if (userAgent != null) {
            view.header("user-agent", userAgent);
        }
        GateOutcome outcome = gate.run(view, state);
        int status = outcome == GateOutcome.DROP ? 0 : state.response().status();
        metrics.answered(0, state, outcome, status);
        return outcome;
    }

    private String render() {
        try (Reloader reloader = new Reloader(null, store, Duration.ZERO)) {
            return MetricsText.render(metrics, reloader);
        }
    }

    @ParameterizedTest
    @CsvSource({"0, 0", "99, 0", "100, 1", "204, 2", "301, 3", "404, 4", "599, 5", "600, 0"})
    void statusClassIsTheHundredsDigitOrNone(int status, int expected) {
        assertThat(Metrics.statusClass(status)).isEqualTo(expected);
    }

    @Test
    void countsListenerClassDecisionHostRouteAndPolicy() {
        request("a.test", "/x", null);
        request("a.test", "/old/page", null);
        request("a.test", "/x", "sqlmap/1.7");
        request("x.b.test", "/", null);
        request("unknown.test", "/", null);
        metrics.refused(0, 501);

        Metrics.Totals t = metrics.totals();
        assertThat(t.requests(0, 2)).isEqualTo(2); // 200 and 204
        assertThat(t.requests(0, 3)).isEqualTo(1);
        assertThat(t.requests(0, 4)).isEqualTo(2); // the bot's 403 and the unknown host's answer
        assertThat(t.requests(0, 5)).isEqualTo(1);
        assertThat(t.decisions(Metrics.REDIRECT)).isEqualTo(1);
        assertThat(t.decisions(Metrics.REFUSED)).isEqualTo(1);
        assertThat(t.decisions(Metrics.RESPOND)).isEqualTo(4);
        assertThat(t.hostRequests("a.test")).isEqualTo(3);
        assertThat(t.hostRequests("b.test")).isEqualTo(1);
        assertThat(t.hostRequests(CounterLayout.UNKNOWN)).isEqualTo(1);
        assertThat(t.policyHits("bots")).isEqualTo(1);
        String text = render();
        assertThat(text).contains("paduraksa_route_requests_total{host=\"a.test\",route=\"/old\"} 1\n")
                .contains("paduraksa_route_requests_total{host=\"a.test\",route=\"/x\"} 2\n")
                .contains("paduraksa_requests_total{listener=\"public\",class=\"5xx\"} 1\n")
                .doesNotContain("listener=\"admin\"");
    }

    @Test
    void forwardedResponsesCountAsForwardWithTheirHostAndRoute() {
        request("a.test", "/x", null); // sets the state's host and route: a.test, route /x
        metrics.forwardedResponse(0, state, 502);
        metrics.forwardedResponse(0, first, 1, 0, 200);
        metrics.forwardedResponse(0, first, -1, -1, 0);

        Metrics.Totals t = metrics.totals();
        assertThat(t.decisions(Metrics.FORWARD)).isEqualTo(3);
        assertThat(t.requests(0, 5)).isEqualTo(1);
        assertThat(t.requests(0, 0)).isEqualTo(1);
        assertThat(t.hostRequests("a.test")).isEqualTo(2);
        assertThat(t.hostRequests("b.test")).isEqualTo(1);
        assertThat(t.hostRequests(CounterLayout.UNKNOWN)).isEqualTo(1);
    }

    @Test
    void countersFollowTheirNamesAcrossAReloadThatReordersHosts() throws Exception {
        request("a.test", "/x", null);
        request("a.test", "/old", null);
        request("b.test", "/", null);
        Thread other = new Thread(() -> metrics.answered(0, state, GateOutcome.RESPOND, 200)); // a stripe that never moves
        other.start();
        other.join();

        second = CompiledFixtures.compile("metrics.yaml", REORDERED);
        store.publish(second);
        // Before this thread's first request on the new snapshot: the scrape translates by name.
        Metrics.Totals before = metrics.totals();
        assertThat(before.hostRequests("a.test")).isEqualTo(2);
        assertThat(before.hostRequests("b.test")).isEqualTo(2);
        assertThat(before.hostRequests("c.test")).isZero();

        request("a.test", "/old", null);
        request("c.test", "/", null);
        Metrics.Totals t = metrics.totals();
        assertThat(t.hostRequests("a.test")).isEqualTo(3);
        assertThat(t.hostRequests("b.test")).isEqualTo(2);
        assertThat(t.hostRequests("c.test")).isEqualTo(1);
        String text = render();
        assertThat(text).contains("paduraksa_route_requests_total{host=\"a.test\",route=\"/old\"} 2\n")
                .contains("paduraksa_route_requests_total{host=\"a.test\",route=\"/x\"} 1\n");
    }

    @Test
    void aRequestOnARetiredSnapshotCountsWithoutHostAndRoute() {
        request("a.test", "/x", null); // state keeps the first snapshot
        second = CompiledFixtures.compile("metrics.yaml", REORDERED);
        store.publish(second);
        RequestState newer = new RequestState();
        gate.run(view.clearHeaders().method("GET").authority("c.test").target("/"), newer);
        metrics.answered(0, newer, GateOutcome.RESPOND, 200);

        metrics.answered(0, state, GateOutcome.RESPOND, 200); // finished after the reload

        Metrics.Totals t = metrics.totals();
        assertThat(t.requests(0, 2)).isEqualTo(3);
        assertThat(t.hostRequests("a.test")).isEqualTo(1);
    }

    @Test
    void http2StreamsAreAGauge() {
        metrics.streamOpened();
        metrics.streamOpened();
        metrics.streamClosed();
        assertThat(metrics.totals().openStreams()).isEqualTo(1);
    }
}
