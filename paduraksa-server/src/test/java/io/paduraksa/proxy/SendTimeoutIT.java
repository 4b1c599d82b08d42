package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Settings;
import io.paduraksa.server.http2.H2Frames;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code limits.send_timeout}: clients that stop taking a large forwarded response (an HTTP/1.1
 * client that never reads, an HTTP/2 client with INITIAL_WINDOW_SIZE 0) lose the connection or
 * the stream once no byte could be sent for the timeout, and the upstream connections behind them
 * are released; while they wait, back-pressure keeps the proxy's buffer memory bounded.
 */
class SendTimeoutIT {
    private static final long BIG = 64L << 20;
    private static final int CLIENTS = 10;
    private static final int STREAMS = 20;
    /** What the stalled responses may hold in pooled buffers: a few reads each, far below one body ({@link #BIG}). */
    private static final long MEMORY_BOUND = 16L << 20;
    private static TestOrigin origin1;
    private static TestOrigin origin2;
    private static H2Origin origin3;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin1 = new TestOrigin("one");
        origin2 = new TestOrigin("two");
        origin3 = new H2Origin(100);
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                limits: {send_timeout: 500ms}
                clusters:
                  one:
                    destinations: [{url: "%s"}]
                    timeouts: {idle: 60s}
                  two:
                    destinations: [{url: "%s"}]
                    timeouts: {idle: 60s}
                  three:
                    protocol: h2c
                    destinations: [{url: "http://127.0.0.1:%d"}]
                    timeouts: {idle: 60s}
                hosts:
                  - names: [one.test]
                    routes:
                      - {path: /, forward: one}
                  - names: [two.test]
                    routes:
                      - {path: /, forward: two}
                  - names: [three.test]
                    routes:
                      - {path: /, forward: three}
                """.formatted(origin1.url(), origin2.url(), origin3.port()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin1.close();
        origin2.close();
        origin3.close();
    }

    @Test
    void http1ClientsThatStopReadingAreClosedAndTheirUpstreamsReleased() throws Exception {
        long baseline = pooledInUse();
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                Socket s = new Socket();
                s.setReceiveBufferSize(4096);
                s.setSoTimeout(10_000);
                s.connect(new InetSocketAddress("127.0.0.1", server.port("public")));
                s.getOutputStream().write(("GET /big/" + BIG + " HTTP/1.1\r\nHost: one.test\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                clients.add(s);
            }
            Await.until("every stalled download to reach the origin", () -> origin1.requests() == CLIENTS);
            long used = pooledInUse() - baseline;
            System.out.println("HTTP/1.1: pooled memory in use with " + CLIENTS + " stalled downloads: " + used + " B");
            assertThat(used).as("pooled memory in use while stalled, bytes").isLessThan(MEMORY_BOUND);
            Await.until("the origin to see every upstream connection closed", () -> origin1.openConnections() == 0,
                    Duration.ofSeconds(10));
            for (Socket s : clients) {
                assertThat(readUntilClosed(s.getInputStream())).as("bytes the stalled client got before the close").isLessThan(BIG);
            }
        } finally {
            for (Socket s : clients) {
                s.close();
            }
        }
    }

    /** The clock measures progress: a client that reads slowly, but more often than the timeout, gets the whole response. */
    @Test
    void http1ClientReadingSlowlyKeepsItsConnectionPastManyTimeouts() throws Exception {
        int size = 1 << 20;
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(64 * 1024);
            s.setSoTimeout(5_000);
            s.connect(new InetSocketAddress("127.0.0.1", server.port("public")));
            s.getOutputStream().write(("GET /big/" + size + " HTTP/1.1\r\nHost: one.test\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            long start = System.nanoTime();
            long total = 0;
            byte[] buf = new byte[32 * 1024];
            for (int n; total <= size && (n = in.read(buf)) > 0; ) {
                total += n;
                Thread.sleep(100); // a slow reader: 320 KiB/s, progress every 100 ms against a 500 ms timeout
            }
            assertThat(total).as("bytes read (head included)").isGreaterThan(size);
            assertThat(System.nanoTime() - start).as("the download outlasted several send timeouts").isGreaterThan(2_000_000_000L);
        }
    }

    @Test
    void http2StreamsWithAZeroWindowAreResetAndTheConnectionGoesOn() throws Exception {
        long baseline = pooledInUse();
        try (H2Frames c = H2Frames.connect(server.port("public"), new Http2Settings().initialWindowSize(0))) {
            c.batch(() -> {
                for (int i = 0; i < STREAMS; i++) {
                    c.headers(1 + 2 * i, H2Frames.headers("GET", "two.test", "/big/" + BIG), true);
                }
            });
            Map<Integer, Integer> status = new HashMap<>();
            Map<Integer, Long> resets = new HashMap<>();
            while (resets.size() < STREAMS) {
                H2Frames.Frame f = c.next();
                assertThat(f).as("frames so far: statuses " + status + ", resets " + resets).isNotNull().isNotEqualTo(H2Frames.CLOSED);
                if (f.headers() != null) {
                    status.put(f.streamId(), f.status());
                    if (status.size() == STREAMS) {
                        long used = pooledInUse() - baseline;
                        System.out.println("HTTP/2: pooled memory in use with " + STREAMS + " stalled streams: " + used + " B");
                        assertThat(used).as("pooled memory in use while stalled, bytes").isLessThan(MEMORY_BOUND);
                    }
                } else if (f.isRst()) {
                    resets.put(f.streamId(), f.errorCode());
                }
            }
            assertThat(status).hasSize(STREAMS).allSatisfy((id, s) -> assertThat(s).isEqualTo(200));
            assertThat(resets).allSatisfy((id, code) -> assertThat(code).as("stream " + id).isEqualTo(8L)); // CANCEL
            Await.until("the origin to see every upstream connection closed", () -> origin2.openConnections() == 0);

            // The connection still serves: a small request whose stream the client opens a window for.
            int id = 1 + 2 * STREAMS;
            c.headers(id, H2Frames.headers("GET", "two.test", "/fixed"), true);
            c.frame(Http2FrameTypes.WINDOW_UPDATE, id, new Http2Flags(), ByteBuffer.allocate(4).putInt(65_535).array()).flush();
            List<H2Frames.Frame> frames = c.untilStreamEnds(id);
            assertThat(frames.get(0).status()).isEqualTo(200);
            assertThat(frames.get(1).data()).hasSize(16);
        }
    }

    /**
     * Behind an HTTP/2 upstream: each timed-out client stream resets its upstream stream, and the
     * client's connection goes on although each reset cancelled hundreds of queued DATA frames.
     */
    @Test
    void http2StreamsWithAZeroWindowResetTheirHttp2UpstreamStreams() throws Exception {
        int streams = 5;
        try (H2Frames c = H2Frames.connect(server.port("public"), new Http2Settings().initialWindowSize(0))) {
            c.batch(() -> {
                for (int i = 0; i < streams; i++) {
                    c.headers(1 + 2 * i, H2Frames.headers("GET", "three.test", "/big/" + BIG), true);
                }
            });
            Map<Integer, Long> resets = new HashMap<>();
            List<H2Frames.Frame> seen = new ArrayList<>();
            while (resets.size() < streams) {
                H2Frames.Frame f = c.next();
                seen.add(f);
                assertThat(f).as("frames so far " + seen).isNotNull().isNotEqualTo(H2Frames.CLOSED);
                if (f.isRst()) {
                    resets.put(f.streamId(), f.errorCode());
                }
            }
            assertThat(resets).allSatisfy((id, code) -> assertThat(code).as("stream " + id).isEqualTo(8L)); // CANCEL
            Await.until("the upstream to see every stream reset", () -> origin3.resets.get() == streams);

            // Each reset cancelled up to 1 MiB of queued 16 KiB frames; the connection still serves.
            int id = 1 + 2 * streams;
            c.headers(id, H2Frames.headers("GET", "three.test", "/echo"), true);
            c.frame(Http2FrameTypes.WINDOW_UPDATE, id, new Http2Flags(), ByteBuffer.allocate(4).putInt(65_535).array()).flush();
            List<H2Frames.Frame> frames = c.untilStreamEnds(id);
            assertThat(frames).as(frames.toString()).filteredOn(f -> f.streamId() == id && f.headers() != null)
                    .extracting(H2Frames.Frame::status).containsExactly(200);
        }
    }

    /**
     * Progress on HTTP/2 is the client opening the stream's window: 8 KiB every 100 ms (far less than
     * one upstream read waiting) keeps a stream alive past many timeouts, and it gets the whole body.
     */
    @Test
    void http2StreamWhoseWindowOpensSlowlyIsServedPastManyTimeouts() throws Exception {
        int size = 256 * 1024;
        try (H2Frames c = H2Frames.connect(server.port("public"), new Http2Settings().initialWindowSize(0))) {
            c.headers(1, H2Frames.headers("GET", "two.test", "/big/" + size), true).flush();
            assertThat(c.next().status()).isEqualTo(200);
            long start = System.nanoTime();
            long received = 0;
            boolean ended = false;
            while (!ended) {
                c.frame(Http2FrameTypes.WINDOW_UPDATE, 1, new Http2Flags(), ByteBuffer.allocate(4).putInt(8 * 1024).array()).flush();
                Thread.sleep(100);
                for (H2Frames.Frame f; !ended && (f = c.poll()) != null; ) {
                    assertThat(f.isRst()).as("reset after %d bytes", received).isFalse();
                    if (f.data() != null) {
                        received += f.data().length();
                        ended = f.endStream();
                    }
                }
            }
            assertThat(received).isEqualTo(size);
            assertThat(System.nanoTime() - start).as("the download outlasted several send timeouts").isGreaterThan(2_000_000_000L);
        }
    }

    private static long pooledInUse() {
        var m = PooledByteBufAllocator.DEFAULT.metric();
        return m.usedDirectMemory() + m.usedHeapMemory();
    }

    /** Reads what the server sent before it closed; a reset also ends it. */
    private static long readUntilClosed(InputStream in) throws Exception {
        byte[] buf = new byte[1 << 16];
        long total = 0;
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                total += n;
            }
        } catch (SocketException reset) {
            // closed with unsent bytes: a reset ends it as well
        }
        return total;
    }
}
