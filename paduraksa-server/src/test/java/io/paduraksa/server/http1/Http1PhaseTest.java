package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.net.IpParser;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.cycle.DrainEvent;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection's phase around a forward, driven by a scripted forwarder on an
 * {@link EmbeddedChannel}: the forwarder's calls end the request once, a pipelined request waits
 * for the end, a body still arriving closes the connection after the forwarder's own answer, and
 * calls after the end do nothing.
 */
class Http1PhaseTest {
    private static final String YAML = """
            clusters:
              app: {destinations: [{url: "http://192.0.2.10:9001"}]}
            hosts:
              - names: [a.test]
                routes: [{path: /, forward: app}]
            """;

    private final Snapshot snapshot = CompiledFixtures.compile("phase.yaml", YAML);
    /** What the scripted forwarder was handed last. */
    private ForwardExchange forwarded;
    private final ListenerServices services = new ListenerServices(new Gate(new SnapshotStore(snapshot)),
            (state, exchange) -> forwarded = exchange, new DateHeader(), null);
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
        long[] ip = new long[2];
        IpParser.parse("203.0.113.9", 0, 11, ip);
        ch.attr(ClientInfoHandler.CLIENT_INFO).set(new ClientInfo(ip[0], ip[1], false, ClientInfo.NO_COUNTRY));
        Http1Deadlines deadlines = new Http1Deadlines(10_000, 60_000, 0);
        Http1RequestDecoder decoder = new Http1RequestDecoder();
        ch.pipeline().addLast(deadlines, decoder, new Http1GateHandler(services, decoder, deadlines, 8192));
        return ch;
    }

    private void send(String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, ISO_8859_1));
    }

    private String written() {
        return String.join("", writes());
    }

    /** What was written since the last look, one string per buffer the channel was handed. */
    private List<String> writes() {
        List<String> out = new ArrayList<>();
        for (ByteBuf b = channel.readOutbound(); b != null; b = channel.readOutbound()) {
            out.add(b.toString(ISO_8859_1));
            b.release();
        }
        return out;
    }

    /** A new connection that sent one GET, forwarded: the exchange the forwarder was handed. */
    private ForwardExchange forwardedGet() {
        channel = connection();
        send("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
        return takeForwarded();
    }

    /** Takes what the forwarder was handed, so that the next forward is seen as new. */
    private ForwardExchange takeForwarded() {
        ForwardExchange e = forwarded;
        forwarded = null;
        return e;
    }

    private void respond(ForwardExchange exchange, String body) {
        exchange.responseHead(head(200, body.length()), snapshot.defaultResponseHeaders(), null);
        exchange.responseBody(Unpooled.copiedBuffer(body, ISO_8859_1));
        exchange.responseEnd(null);
    }

    @Test
    void aPipelinedRequestWaitsUntilTheForwardedOneEndedAndTheConnectionStays() {
        channel = connection();
        send("GET /a HTTP/1.1\r\nHost: a.test\r\n\r\nGET /b HTTP/1.1\r\nHost: a.test\r\n\r\n");
        ForwardExchange first = takeForwarded();
        assertThat(first).isNotNull();
        assertThat(forwarded).as("the second request waits in the decoder").isNull();
        assertThat(first.isOpen()).isTrue();
        respond(first, "ok");
        assertThat(written()).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nContent-Length: 2\r\n")
                .doesNotContain("Connection: close").endsWith("\r\n\r\nok");
        assertThat(takeForwarded()).as("the pipelined request, decoded after the first ended").isSameAs(first);
        respond(first, "b");
        assertThat(written()).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nb");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void theForwardersOwnAnswerToAPostWhoseBodyStillArrivesIsTheConnectionsLast() {
        channel = connection();
        send("POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 10\r\n\r\nhello");
        ForwardExchange exchange = takeForwarded();
        exchange.answer(snapshot.statusAnswer(503));
        assertThat(written()).startsWith("HTTP/1.1 503 ").contains("\r\nConnection: close\r\n");
        channel.runPendingTasks();
        assertThat(channel.isOpen()).as("closed after the answer (an embedded channel cannot linger)").isFalse();
    }

    @Test
    void callsAfterTheForwardEndedDoNothing() {
        ForwardExchange exchange = forwardedGet();
        exchange.answer(snapshot.statusAnswer(502));
        assertThat(written()).startsWith("HTTP/1.1 502 ").doesNotContain("Connection: close");
        assertThat(exchange.isOpen()).isFalse();
        exchange.answer(snapshot.statusAnswer(503));
        exchange.responseHead(head(200, 4), snapshot.defaultResponseHeaders(), null);
        exchange.responseBody(Unpooled.copiedBuffer("late", ISO_8859_1));
        exchange.responseEnd(null);
        exchange.abort();
        assertThat(written()).isEmpty();
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aStopDuringTheForwardMakesItsResponseTheLast() {
        ForwardExchange exchange = forwardedGet();
        channel.pipeline().fireUserEventTriggered(DrainEvent.INSTANCE);
        respond(exchange, "ok");
        assertThat(written()).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nConnection: close\r\n");
        channel.runPendingTasks();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void anAbortedResponseClosesTheConnection() {
        ForwardExchange exchange = forwardedGet();
        exchange.responseHead(head(200, 10), snapshot.defaultResponseHeaders(), null);
        exchange.abort();
        assertThat(written()).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(channel.isOpen()).isFalse();
        assertThat(exchange.isOpen()).isFalse();
    }

    @Test
    void aSmallResponseLeavesInOneBuffer() {
        respond(forwardedGet(), "ok");
        List<String> writes = writes();
        assertThat(writes).hasSize(1);
        assertThat(writes.get(0)).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nContent-Length: 2\r\n").endsWith("\r\n\r\nok");
    }

    @Test
    void aBodyOverTheLimitFollowsTheHeadInItsOwnBuffer() {
        String body = "x".repeat(Http1Exchange.COALESCE_LIMIT + 1);
        respond(forwardedGet(), body);
        List<String> writes = writes();
        assertThat(writes).hasSize(2);
        assertThat(writes.get(0)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n");
        assertThat(writes.get(1)).isEqualTo(body);
    }

    @Test
    void theHeadLeavesAtTheFlushWhenItsBodyComesLater() {
        ForwardExchange exchange = forwardedGet();
        exchange.responseHead(head(200, 5), snapshot.defaultResponseHeaders(), null);
        assertThat(writes()).as("nothing before the flush").isEmpty();
        exchange.flush();
        assertThat(writes()).singleElement().asString().startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n");
        exchange.responseBody(Unpooled.copiedBuffer("later", ISO_8859_1));
        exchange.responseEnd(null);
        assertThat(writes()).containsExactly("later");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void smallChunksOfAStreamedBodyJoinTheHeadUntilTheFlushAndTheLastChunkEndsIt() {
        ForwardExchange exchange = forwardedGet();
        exchange.responseHead(head(200, -1), snapshot.defaultResponseHeaders(), null);
        exchange.responseBody(Unpooled.copiedBuffer("ab", ISO_8859_1));
        exchange.responseBody(Unpooled.copiedBuffer("0123456789abcdefg", ISO_8859_1));
        exchange.flush();
        List<String> writes = writes();
        assertThat(writes).hasSize(1);
        assertThat(writes.get(0)).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nTransfer-Encoding: chunked\r\n")
                .endsWith("\r\n\r\n2\r\nab\r\n11\r\n0123456789abcdefg\r\n");
        exchange.responseBody(Unpooled.copiedBuffer("z", ISO_8859_1));
        exchange.responseEnd(null);
        assertThat(String.join("", writes())).as("after the flush: as before, the chunk then the last chunk")
                .isEqualTo("1\r\nz\r\n0\r\n\r\n");
    }

    /**
     * An upstream that sends its body as thousands of one-byte chunks in one read: the pending head takes
     * them only up to {@link Http1Exchange#PENDING_MAX} bytes, then goes out and the rest follows as
     * before, every byte once and in order.
     */
    @Test
    void thePendingHeadStopsTakingChunksAtItsBound() {
        ForwardExchange exchange = forwardedGet();
        exchange.responseHead(head(200, -1), snapshot.defaultResponseHeaders(), null);
        int chunks = 5_000;
        for (int i = 0; i < chunks; i++) {
            exchange.responseBody(Unpooled.copiedBuffer(new byte[] {(byte) ('a' + i % 26)}));
        }
        exchange.responseEnd(null);
        List<String> writes = writes();
        assertThat(writes.get(0)).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\n\r\n1\r\na\r\n1\r\nb\r\n");
        assertThat(writes).allSatisfy(w -> assertThat(w.length()).isLessThanOrEqualTo(Http1Exchange.PENDING_MAX));
        assertThat(writes.size()).as("the chunks past the bound as their own writes").isGreaterThan(chunks / 2);
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < chunks; i++) {
            expected.append("1\r\n").append((char) ('a' + i % 26)).append("\r\n");
        }
        expected.append("0\r\n\r\n");
        String all = String.join("", writes);
        assertThat(all.substring(all.indexOf("\r\n\r\n") + 4)).isEqualTo(expected.toString());
    }

    @Test
    void aPendingHeadIsReleasedWhenTheClientCloses() {
        channel = connection();
        List<ByteBuf> allocated = new ArrayList<>();
        channel.config().setAllocator(new AbstractByteBufAllocator(false) {
            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                return track(Unpooled.buffer(initialCapacity, maxCapacity));
            }

            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                return track(Unpooled.directBuffer(initialCapacity, maxCapacity));
            }

            private ByteBuf track(ByteBuf b) {
                allocated.add(b);
                return b;
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        });
        send("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
        ForwardExchange exchange = takeForwarded();
        exchange.responseHead(head(200, 5), snapshot.defaultResponseHeaders(), null);
        assertThat(allocated).as("the head's buffer").isNotEmpty();
        channel.close();
        assertThat(writes()).isEmpty();
        assertThat(exchange.isOpen()).isFalse();
        assertThat(allocated).allSatisfy(b -> assertThat(b.refCnt()).as("released").isZero());
    }

    private static ResponseHead head(int status, long contentLength) {
        return new ResponseHead() {
            @Override
            public int status() {
                return status;
            }

            @Override
            public int headerCount() {
                return 0;
            }

            @Override
            public CharSequence headerName(int index) {
                throw new IndexOutOfBoundsException(index);
            }

            @Override
            public CharSequence headerValue(int index) {
                throw new IndexOutOfBoundsException(index);
            }

            @Override
            public long contentLength() {
                return contentLength;
            }

            @Override
            public boolean hasBody() {
                return contentLength != 0; // -1: a body of unknown length, sent on chunked
            }

            @Override
            public boolean isConnectionOption(CharSequence headerName) {
                return false;
            }
        };
    }
}
