package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestState#detachedCopy}: the gate's decision for a forwarded request, kept after the
 * recycled state has moved on to the next request (the response cache's background refresh).
 */
class RequestStateDetachedCopyTest {
    private static Snapshot snapshot;
    private static Gate gate;

    @BeforeAll
    static void compile() {
        snapshot = CompiledFixtures.compile("detached.yaml", CatchAllGateTest.YAML);
        gate = new Gate(new SnapshotStore(snapshot));
    }

    @AfterAll
    static void release() {
        snapshot.release();
    }

    @Test
    void theCopyKeepsTheDecisionAfterTheStateIsReused() {
        StaticRequestView view = new StaticRequestView().client(GateTest.client("198.51.100.9", false))
                .authority("unknown.test").target("/app/./x/../y?q=1").header("accept-encoding", "gzip");
        RequestState state = new RequestState();
        assertThat(gate.run(view, state)).isEqualTo(GateOutcome.FORWARD);
        StaticRequestView copiedView = new StaticRequestView().client(view.client()).method(view.method())
                .target(view.target()).authority(view.authority()).header("accept-encoding", "gzip");

        RequestState copy = state.detachedCopy(copiedView);
        byte[] path = Arrays.copyOf(state.path(), state.pathLength());
        long ipLow = state.clientIpLow();
        // the recycled state takes the next request on the connection
        gate.run(new StaticRequestView().client(GateTest.client("192.0.2.7", false)).authority("www.example.test").target("/other"), state);

        assertThat(Arrays.copyOf(copy.path(), copy.pathLength())).isEqualTo(path).asString().isEqualTo("/app/y");
        assertThat(copy.target().toString()).isEqualTo("/app/./x/../y?q=1");
        assertThat(copy.target().subSequence(copy.queryStart(), copy.queryEnd()).toString()).isEqualTo("q=1");
        assertThat(copy.cluster()).isNotNull();
        assertThat(copy.cluster().name()).isEqualTo("app");
        assertThat(copy.host()).isNotNull();
        assertThat(copy.route()).isNotNull();
        assertThat(copy.snapshot()).isSameAs(snapshot);
        assertThat(copy.clientIpLow()).isEqualTo(ipLow).isNotEqualTo(state.clientIpLow());
        assertThat(copy.header(io.netty.util.AsciiString.cached("accept-encoding")).toString()).isEqualTo("gzip");
        assertThat(copy.status()).isZero();
        assertThat(copy.upstreamIndex()).isEqualTo(-1);
        assertThat(state.cluster()).as("the reused state moved on").isNull();
    }
}
