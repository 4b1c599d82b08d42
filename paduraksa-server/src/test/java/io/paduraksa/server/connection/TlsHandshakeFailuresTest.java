package io.paduraksa.server.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.paduraksa.ops.Metrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class TlsHandshakeFailuresTest {
    @Test
    void reasonLabelsAreTheMetricsLabelsInOrder() {
        List<String> labels = new ArrayList<>();
        for (TlsHandshakeFailures.Reason r : TlsHandshakeFailures.Reason.values()) {
            labels.add(r.label());
        }
        assertThat(labels).isEqualTo(Metrics.TLS_FAILURE_REASONS);
    }

    @Test
    void reasonComesFromTheCauseChain() {
        assertThat(TlsHandshakeFailures.reason(new DecoderException(new NotSslRecordException("not an SSL/TLS record: 4745"))))
                .isEqualTo(TlsHandshakeFailures.Reason.NOT_TLS);
        assertThat(TlsHandshakeFailures.reason(new SslHandshakeTimeoutException("handshake timed out after 10000ms")))
                .isEqualTo(TlsHandshakeFailures.Reason.TIMEOUT);
        assertThat(TlsHandshakeFailures.reason(new ClosedChannelException())).isEqualTo(TlsHandshakeFailures.Reason.CLOSED);
        assertThat(TlsHandshakeFailures.reason(new IOException("Connection reset by peer"))).isEqualTo(TlsHandshakeFailures.Reason.CLOSED);
        assertThat(TlsHandshakeFailures.reason(new DecoderException(new SSLHandshakeException("no cipher suites in common"))))
                .isEqualTo(TlsHandshakeFailures.Reason.PROTOCOL);
    }

    @Test
    void detailIsOneShortLineAndPeerIsHostColonPort() {
        String hexDump = "not an SSL/TLS record: " + "47".repeat(4000) + "\n0d0a";
        String detail = TlsHandshakeFailures.detail(new DecoderException(new NotSslRecordException(hexDump)));
        assertThat(detail).startsWith("not an SSL/TLS record: 4747").hasSizeLessThan(200).doesNotContain("\n");
        assertThat(TlsHandshakeFailures.peer(new InetSocketAddress("127.0.0.1", 4431))).isEqualTo("127.0.0.1:4431");
        assertThat(TlsHandshakeFailures.peer(new InetSocketAddress("::1", 4431))).isEqualTo("[0:0:0:0:0:0:0:1]:4431");
    }
}
