package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import org.junit.jupiter.api.Test;

/** The echoed request id is the one field the HPACK encoder is told never to index. */
class RequestIdNeverIndexedTest {

    @Test
    void onlyTheConfiguredRequestIdFieldIsNeverIndexed() {
        Snapshot s = CompiledFixtures.compile("edge.yaml", "forwarding: {request_id: {header: X-Correlation-Id}}\n");
        try {
            RequestIdNeverIndexed detector = new RequestIdNeverIndexed(new SnapshotStore(s));
            assertThat(detector.isSensitive(AsciiString.of("x-correlation-id"), "0123456789abcdef")).isTrue();
            assertThat(detector.isSensitive("x-correlation-id", "0123456789abcdef")).isTrue();
            assertThat(detector.isSensitive(AsciiString.of("x-request-id"), "0123456789abcdef")).isFalse();
            assertThat(detector.isSensitive(AsciiString.of("x-correlation-ix"), "a")).isFalse();
            assertThat(detector.isSensitive(AsciiString.of("content-type"), "text/plain")).isFalse();
        } finally {
            s.release();
        }
    }
}
