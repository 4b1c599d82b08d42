package io.paduraksa.server.connection;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
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
import org.slf4j.LoggerFactory;

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
    void eachFailureIsCountedAndOneInfoSummaryComesAtMostOnceAMinute() {
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        Logger logger = (Logger) LoggerFactory.getLogger(TlsHandshakeFailures.class);
        logger.addAppender(events);
        List<String> counted = new ArrayList<>();
        TlsHandshakeFailures failures = new TlsHandshakeFailures(3, "public-tls", (l, r) -> counted.add(l + ":" + r.label()));
        EmbeddedChannel ch = new EmbeddedChannel();
        try {
            for (int i = 0; i < 50; i++) {
                failures.failed(ch, new DecoderException(new NotSslRecordException("not an SSL/TLS record: 4745")));
            }
            failures.failed(ch, new ClosedChannelException());
        } finally {
            logger.detachAppender(events);
            ch.finishAndReleaseAll();
        }
        assertThat(counted).hasSize(51).startsWith("3:not_tls").endsWith("3:closed");
        assertThat(failures.count()).isEqualTo(51);
        List<String> info = new ArrayList<>();
        for (ILoggingEvent e : events.list) {
            assertThat(e.getLevel()).isIn(Level.INFO, Level.DEBUG);
            if (e.getLevel() == Level.INFO) {
                info.add(e.getFormattedMessage());
            }
        }
        assertThat(info).singleElement().asString().startsWith("listener public-tls: 1 failed TLS handshakes since start");
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
