package io.paduraksa.ops;

import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The counting calls made per request allocate nothing once their thread's stripe exists. */
@Tag("allocation")
class MetricsAllocationTest {
    private final State state = new State();

    @AfterEach
    void release() {
        state.snapshot.release();
    }

    static final class State {
        final Snapshot snapshot = CompiledFixtures.compile("metrics.yaml", MetricsTest.YAML);
        final SnapshotStore store = new SnapshotStore(snapshot);
        final Metrics metrics = new Metrics(store, List.of("public"), new boolean[1]);
        final RequestState answered = new RequestState();
        final RequestState denied = new RequestState();
        final UpstreamMetrics.Destination destination = metrics.upstream().destination("app", "http://192.0.2.10:8080");
        long latency;
        long calls;

        State() {
            Gate gate = new Gate(store);
            ClientInfo client = new ClientInfo(0, 0xffff_c000_0201L, false, ClientInfo.NO_COUNTRY);
            gate.run(new StaticRequestView().client(client).method("GET").authority("a.test").target("/x"), answered);
            gate.run(new StaticRequestView().client(client).method("GET").authority("a.test").target("/x")
                    .header("user-agent", "sqlmap/1.7"), denied);
        }
    }

    @Test
    void answeredAllocatesNothing() {
        AllocationAssert.assertZero("Metrics.answered", state, s -> {
            s.calls++;
            s.metrics.answered(0, s.answered, GateOutcome.RESPOND, 200);
            s.metrics.answered(0, s.denied, GateOutcome.RESPOND, 403);
            s.metrics.answered(0, s.denied, GateOutcome.DROP, 0);
        });
        // Every call counted: one 2xx and one 4xx each.
        Metrics.Totals t = state.metrics.totals();
        org.assertj.core.api.Assertions.assertThat(t.requests(0, 2)).isEqualTo(state.calls);
        org.assertj.core.api.Assertions.assertThat(t.requests(0, 4)).isEqualTo(state.calls);
    }

    @Test
    void refusedForwardedAndStreamsAllocateNothing() {
        AllocationAssert.assertZero("Metrics.refused/forwardedResponse/streams", state, s -> {
            s.metrics.refused(0, 400);
            s.metrics.forwardedResponse(0, s.answered, 502);
            s.metrics.forwardedResponse(0, s.snapshot, 1, 0, 200);
            s.metrics.streamOpened();
            s.metrics.streamClosed();
        });
    }

    @Test
    void upstreamRecordingAllocatesNothing() {
        AllocationAssert.assertZero("UpstreamMetrics.Destination", state, s -> {
            s.destination.request();
            s.destination.response(200, s.latency++ & 0xfffff);
            s.destination.error(UpstreamMetrics.TIMEOUT);
        });
    }
}
