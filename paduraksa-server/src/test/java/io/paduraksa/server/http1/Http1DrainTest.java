package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.net.IpParser;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.cycle.DrainEvent;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stopping server and an HTTP/1.1 connection: the next request is answered with
 * {@code Connection: close} rather than lost to a close under it, an idle connection is closed
 * after {@link Http1GateHandler#DRAIN_IDLE_GRACE_MILLIS}, and a connection whose handler starts
 * after the stop began (accepted while the listeners closed) drains as if it had got the event.
 */
class Http1DrainTest {
    private static final String YAML = """
            hosts:
              - names: [a.test]
                routes:
                  - {path: /, respond: {status: 200, body: "ok"}}
            """;
    private static final String REQUEST = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";

    private final Snapshot snapshot = CompiledFixtures.compile("drain.yaml", YAML);
    private final ListenerServices services = new ListenerServices(new Gate(new SnapshotStore(snapshot)),
            (state, exchange) -> exchange.answer(state.snapshot().statusAnswer(502)), new DateHeader(), null);
    private EmbeddedChannel channel;

    @AfterEach
    void close() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
        snapshot.release();
    }

    private EmbeddedChannel connection() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        long[] ip = new long[2];
        IpParser.parse("203.0.113.9", 0, 11, ip);
        ch.attr(ClientInfoHandler.CLIENT_INFO).set(new ClientInfo(ip[0], ip[1], false, ClientInfo.NO_COUNTRY));
        Http1Deadlines deadlines = new Http1Deadlines(10_000, 60_000, 0);
        Http1RequestDecoder decoder = new Http1RequestDecoder();
        ch.pipeline().addLast(deadlines, decoder, new Http1GateHandler(services, decoder, deadlines, 8192));
        return ch;
    }

    private String exchange(String request) {
        channel.writeInbound(Unpooled.copiedBuffer(request, ISO_8859_1));
        StringBuilder out = new StringBuilder();
        for (ByteBuf b = channel.readOutbound(); b != null; b = channel.readOutbound()) {
            out.append(b.toString(ISO_8859_1));
            b.release();
        }
        return out.toString();
    }

    @Test
    void keepAliveBeforeTheStop() {
        channel = connection();
        assertThat(exchange(REQUEST)).startsWith("HTTP/1.1 200 ").doesNotContain("Connection: close");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void theNextRequestOnAnIdleConnectionIsAnsweredWithConnectionCloseWithinTheGrace() {
        channel = connection();
        assertThat(exchange(REQUEST)).startsWith("HTTP/1.1 200 ");
        channel.pipeline().fireUserEventTriggered(DrainEvent.INSTANCE);
        channel.advanceTimeBy(Http1GateHandler.DRAIN_IDLE_GRACE_MILLIS - 1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("still waiting for the next request").isTrue();
        assertThat(exchange(REQUEST)).startsWith("HTTP/1.1 200 ").contains("\r\nConnection: close\r\n");
        channel.runPendingTasks();
        assertThat(channel.isOpen()).as("closed after its last answer").isFalse();
    }

    @Test
    void anIdleConnectionIsClosedOnceTheGraceIsOver() {
        channel = connection();
        assertThat(exchange(REQUEST)).startsWith("HTTP/1.1 200 ");
        channel.pipeline().fireUserEventTriggered(DrainEvent.INSTANCE);
        channel.advanceTimeBy(Http1GateHandler.DRAIN_IDLE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aConnectionWhoseHandlerStartsAfterTheStopBeganDrainsWithoutTheEvent() {
        services.stop();
        channel = connection();
        assertThat(exchange(REQUEST)).startsWith("HTTP/1.1 200 ").contains("\r\nConnection: close\r\n");
        channel.runPendingTasks();
        assertThat(channel.isOpen()).isFalse();
    }
}
