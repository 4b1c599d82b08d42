package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Graceful stop: an idle HTTP/1.1 connection gets a grace of about a second for its next request
 * (answered with Connection: close) and is then closed, an HTTP/2 connection gets GOAWAY
 * naming its last stream and is kept until that stream's answer is out, and the listener refuses
 * new connections as soon as the stop begins.
 */
class ShutdownIT {
    static final String YAML = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /, respond: {status: 200, body: "ok"}}
            """;
    private static final Duration DRAIN = Duration.ofSeconds(10);

    @Test
    void idleHttp1ConnectionIsClosedAtOnceAndTheStopDoesNotWaitForTheDrainTimeout() throws Exception {
        try (TestServer server = TestServer.start(YAML); RawHttp c = new RawHttp(server.port("public"))) {
            int port = server.port("public");
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").status()).isEqualTo(200);
            long start = System.nanoTime();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server().stop(DRAIN));
            assertThat(c.isClosedByServer()).as("idle keep-alive connection closed").isTrue();
            stop.get(5, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DRAIN.dividedBy(2));
            assertRefused(port);
        }
    }

    /**
     * A client reusing a keep-alive connection may send its next request just as the stop begins:
     * it is answered (with Connection: close), not lost to a close under it.
     */
    @Test
    void requestOnAnIdleConnectionJustAfterTheStopBeganIsAnsweredWithConnectionClose() throws Exception {
        try (TestServer server = TestServer.start(YAML); RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").status()).isEqualTo(200);
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server().stop(DRAIN));
            Await.until("listener closed", () -> {
                try (Socket probe = new Socket()) {
                    probe.connect(new InetSocketAddress("127.0.0.1", server.port("public")), 500);
                    return false;
                } catch (IOException refused) {
                    return true;
                }
            }, Duration.ofSeconds(5));
            Thread.sleep(200); // the drain events go out right after the listeners close
            RawHttp.Response r = c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.isClosedByServer()).isTrue();
            stop.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void http2ConnectionGetsGoawayFinishesItsOpenStreamAndNewConnectionsAreRefused() throws Exception {
        try (TestServer server = TestServer.start(YAML); H2 h2 = new H2(server.port("public"))) {
            int port = server.port("public");
            // A stream window of 0 holds the answer's DATA back, so stream 1 is still in flight
            // when the stop begins and the server must keep the connection until it is done.
            h2.handshake(0);
            h2.headers(1, true, ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
            Frame head = h2.readUntil(f -> f.stream == 1 && f.type == H2.HEADERS);
            assertThat(head.endStream()).isFalse();

            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server().stop(DRAIN));
            Frame goaway = h2.readUntil(f -> f.type == H2.GOAWAY);
            assertThat(goaway.int32(0) & 0x7fffffff).as("first GOAWAY: last stream id 2^31-1").isEqualTo(Integer.MAX_VALUE);
            assertThat(goaway.int32(4)).as("error code NO_ERROR").isZero();
            assertRefused(port);
            assertThat(stop).as("still draining stream 1").isNotDone();

            h2.windowUpdate(1, 1024);
            List<Frame> rest = h2.framesUntilClosed(); // closed once its last stream ended
            assertThat(rest).as("%s", rest).anySatisfy(body -> {
                assertThat(body.stream).isEqualTo(1);
                assertThat(body.type).isEqualTo(H2.DATA);
                assertThat(new String(body.payload, StandardCharsets.US_ASCII)).isEqualTo("ok");
                assertThat(body.endStream()).isTrue();
            });
            assertThat(rest).filteredOn(f -> f.type == H2.GOAWAY).as("final GOAWAY").extracting(f -> f.int32(0) & 0x7fffffff)
                    .containsExactly(1);
            stop.get(5, TimeUnit.SECONDS);
        }
    }

    /**
     * A connection without streams: GOAWAY (2^31-1) and a PING; the client's ack brings the final
     * GOAWAY (last stream 1) and the close at once, without the second a silent client gets.
     */
    @Test
    void http2ConnectionWithoutStreamsGetsGoawayAndIsClosedOnceItAcksThePing() throws Exception {
        try (TestServer server = TestServer.start(YAML); H2 h2 = new H2(server.port("public"))) {
            h2.handshake(65_535);
            h2.headers(1, true, ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
            h2.readUntil(f -> f.stream == 1 && f.type == H2.DATA && f.endStream());
            long start = System.nanoTime();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server().stop(DRAIN));
            Frame goaway = h2.readUntil(f -> f.type == H2.GOAWAY);
            assertThat(goaway.int32(0) & 0x7fffffff).isEqualTo(Integer.MAX_VALUE);
            assertThat(goaway.int32(4)).isZero();
            Frame ping = h2.readUntil(f -> f.type == H2.PING);
            h2.pingAck(ping.payload());
            Frame last = h2.readUntil(f -> f.type == H2.GOAWAY);
            assertThat(last.int32(0) & 0x7fffffff).isEqualTo(1);
            assertThat(h2.readToEnd()).isTrue();
            stop.get(5, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the ack, not the 1 s fallback").isLessThan(Duration.ofMillis(900));
        }
    }

    /**
     * An HTTP/2 client may send a request just as the stop begins, before it has read the GOAWAY
     * (RFC 9113 6.8): the request is answered, not lost to a close under it. The stop's first
     * GOAWAY names the largest stream id; the final one, a round trip later (the PING's ack, or a
     * second when the client never acks, as this one), names the last stream the server took.
     */
    @Test
    void http2RequestSentJustAfterTheStopBeganIsAnswered() throws Exception {
        try (TestServer server = TestServer.start(YAML); H2 h2 = new H2(server.port("public"))) {
            h2.handshake(65_535);
            h2.headers(1, true, ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
            h2.readUntil(f -> f.stream == 1 && f.type == H2.DATA && f.endStream());
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server().stop(DRAIN));
            Await.until("listener closed", () -> {
                try (Socket probe = new Socket()) {
                    probe.connect(new InetSocketAddress("127.0.0.1", server.port("public")), 500);
                    return false;
                } catch (IOException refused) {
                    return true;
                }
            }, Duration.ofSeconds(5));
            Thread.sleep(200); // the drain events go out right after the listeners close: the GOAWAY waits unread
            h2.headers(3, true, ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
            List<Frame> frames = h2.framesUntilClosed();
            assertThat(frames).as("%s", frames).anySatisfy(f -> {
                assertThat(f.stream).isEqualTo(3);
                assertThat(f.type).isEqualTo(H2.HEADERS);
                assertThat(f.payload()[0]).as(":status 200").isEqualTo((byte) 0x88);
            });
            assertThat(frames).filteredOn(f -> f.type == H2.GOAWAY).as("GOAWAY frames: 2^31-1 first, then the last stream taken")
                    .extracting(f -> f.int32(0) & 0x7fffffff, f -> f.int32(4))
                    .containsExactly(tuple(Integer.MAX_VALUE, 0), tuple(3, 0));
            stop.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void http1RequestInFlightIsAnsweredWithConnectionCloseAndTheStopDoesNotWaitForTheDrainTimeout() throws Exception {
        HeldForwarder held = new HeldForwarder();
        String yaml = YAML.replace("      - {path: /,", "      - {path: /app, forward: app}\n      - {path: /,") + """
                clusters:
                  app: {destinations: [{url: "http://127.0.0.1:9"}]}
                server: {threads: 1}
                """;
        try (TestServer server = TestServer.start(yaml, held, null);
             RawHttp busy = new RawHttp(server.port("public"));
             RawHttp idle = new RawHttp(server.port("public"))) {
            assertThat(idle.exchange("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").status()).isEqualTo(200);
            busy.send("GET /app HTTP/1.1\r\nHost: a.test\r\n\r\n");
            Held request = held.requests.get(5, TimeUnit.SECONDS);

            long start = System.nanoTime();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server().stop(DRAIN));
            assertThat(idle.isClosedByServer()).isTrue();
            // Both connections share the one event loop; the answer comes after the stop told them to drain.
            request.loop().schedule(() -> request.exchange().answer(request.state().snapshot().statusAnswer(503)),
                    100, TimeUnit.MILLISECONDS);
            RawHttp.Response answer = busy.read();
            assertThat(answer.status()).isEqualTo(503);
            assertThat(answer.header("connection")).isEqualTo("close");
            assertThat(busy.isClosedByServer()).isTrue();
            stop.get(5, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DRAIN.dividedBy(2));
        }
    }

    /** A forwarded request held by {@link HeldForwarder}: answered later, on its event loop. */
    record Held(RequestState state, ForwardExchange exchange, EventExecutor loop) {
    }

    /** Keeps the first forwarded request in flight until the test answers it. */
    static final class HeldForwarder implements Forwarder {
        final CompletableFuture<Held> requests = new CompletableFuture<>();

        @Override
        public void forward(RequestState state, ForwardExchange exchange) {
            requests.complete(new Held(state, exchange, ThreadExecutorMap.currentExecutor()));
        }
    }

    @Test
    void stoppedServerAnswersNothingOnTheOldPort() throws Exception {
        try (TestServer server = TestServer.start(YAML)) {
            int port = server.port("public");
            server.server().stop(DRAIN);
            assertRefused(port);
            assertThat(server.server().store().current().generation()).isPositive();
        }
    }

    private static void assertRefused(int port) {
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }

    /** One HTTP/2 frame (RFC 9113 4.1). */
    record Frame(int type, int flags, int stream, byte[] payload) {
        boolean endStream() {
            return (flags & 0x1) != 0;
        }

        int int32(int at) {
            return (payload[at] & 0xff) << 24 | (payload[at + 1] & 0xff) << 16 | (payload[at + 2] & 0xff) << 8 | payload[at + 3] & 0xff;
        }
    }

    /** A minimal h2c (prior knowledge) client over a raw socket: literal HPACK, no flow control needed. */
    static final class H2 implements AutoCloseable {
        static final int DATA = 0x0;
        static final int HEADERS = 0x1;
        static final int SETTINGS = 0x4;
        static final int PING = 0x6;
        static final int GOAWAY = 0x7;
        static final int WINDOW_UPDATE = 0x8;
        private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;

        H2(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(5_000);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        /** Reads wait up to {@code millis} (5 s unless set). */
        H2 readTimeout(int millis) throws IOException {
            socket.setSoTimeout(millis);
            return this;
        }

        /** Preface and SETTINGS with this initial stream window, then the server's SETTINGS, acknowledged. */
        void handshake(int initialWindow) throws IOException {
            out.write(PREFACE);
            frame(SETTINGS, 0, 0, new byte[] {0, 0x4, (byte) (initialWindow >>> 24), (byte) (initialWindow >>> 16),
                (byte) (initialWindow >>> 8), (byte) initialWindow});
            readUntil(f -> f.type == SETTINGS && (f.flags & 0x1) == 0);
            frame(SETTINGS, 0x1, 0, new byte[0]);
        }

        /** A HEADERS frame with END_HEADERS, each field a literal without indexing (RFC 7541 6.2.2). */
        void headers(int stream, boolean endStream, String... nameValues) throws IOException {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            for (int i = 0; i < nameValues.length; i += 2) {
                block.write(0x00);
                literal(block, nameValues[i]);
                literal(block, nameValues[i + 1]);
            }
            frame(HEADERS, 0x4 | (endStream ? 0x1 : 0), stream, block.toByteArray());
        }

        void data(int stream, boolean endStream) throws IOException {
            frame(DATA, endStream ? 0x1 : 0, stream, new byte[0]);
        }

        /** A PING with ACK, echoing {@code payload}. */
        void pingAck(byte[] payload) throws IOException {
            frame(PING, 0x1, 0, payload);
        }

        void windowUpdate(int stream, int increment) throws IOException {
            frame(WINDOW_UPDATE, 0, stream, new byte[] {(byte) (increment >>> 24), (byte) (increment >>> 16),
                (byte) (increment >>> 8), (byte) increment});
        }

        private static void literal(ByteArrayOutputStream block, String s) {
            byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
            if (bytes.length > 126) {
                throw new IllegalArgumentException("test header too long: " + s);
            }
            block.write(bytes.length);
            block.writeBytes(bytes);
        }

        private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            byte[] head = {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
                (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream};
            byte[] frame = Arrays.copyOf(head, head.length + payload.length);
            System.arraycopy(payload, 0, frame, head.length, payload.length);
            out.write(frame); // one write: no Nagle wait between a frame's head and its payload
            out.flush();
        }

        Frame read() throws IOException {
            int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7fffffff;
            byte[] payload = new byte[length];
            in.readFully(payload);
            return new Frame(type, flags, stream, payload);
        }

        Frame readUntil(java.util.function.Predicate<Frame> wanted) throws IOException {
            while (true) {
                Frame f = read();
                if (wanted.test(f)) {
                    return f;
                }
            }
        }

        /** Every frame until the server closes (EOF or reset); fails when it does not close within the timeout. */
        List<Frame> framesUntilClosed() throws IOException {
            List<Frame> frames = new ArrayList<>();
            try {
                while (true) {
                    frames.add(read());
                }
            } catch (EOFException | SocketException e) {
                return frames;
            }
        }

        /** Reads frames until the server closes; true when it closed (EOF or reset) within the timeout. */
        boolean readToEnd() {
            try {
                while (true) {
                    read();
                }
            } catch (EOFException | SocketException e) {
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
