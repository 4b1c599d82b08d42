package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.paduraksa.server.testing.TestServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a WebSocket-over-HTTP/2 tunnel allocates per message on the server's event loops, measured
 * over real sockets: a scripted client ({@link H2WebSocketClient}) sends small messages one at a
 * time through an open tunnel to a raw TCP echo upstream (plain threads, so the only Netty event
 * loops in the JVM besides the client's own are the server's), and the loops' allocated-bytes
 * counters bracket the counted round trips after warm-up. Each round trip is one DATA frame up and
 * one down. On Netty's HTTP/2 codec that was about 530 B per round trip (its frame reader, flow
 * controller, promises and the listener {@code IdleStateHandler} adds to every write: JFR, Netty
 * 4.2.18 / JDK 25); on our codec ({@code io.paduraksa.http2}) it is 0 B per round trip: 0 B over
 * the 5,000 on CI (2026-12-02). The bound is a total over all counted round trips, as for the
 * tunnel to an HTTP/2 upstream below: one object per round trip would be 80,000 B. The gate path
 * stays 0 B (GateAllocationIT).
 */
@Tag("allocation")
class Http2TunnelAllocationIT {
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 5_000;
    /** All the server's loops may allocate over the counted round trips to an HTTP/1.1 upstream (0 B per round trip). */
    private static final long MAX_BYTES_TO_HTTP1 = 8_192;
    /**
     * All the server's loops allocate over the measured round trips to an HTTP/2 upstream: measured
     * 200 B (HTTP/2 client) and 64 B (HTTP/1.1 client) for 5,000 round trips, 0 B per round trip
     * (timers and the once-a-second date, not the tunnel). One object per round trip (16 B or more)
     * would be 80,000 B.
     */
    private static final long MAX_BYTES_TO_HTTP2 = 8_192;
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void aTunnelRoundTripAllocatesNothingOnTheServersLoops() throws Exception {
        try (EchoUpstream echo = new EchoUpstream();
             TestServer server = TestServer.start(TestServer.EPOLL + """
                     listeners:
                       - {name: h2c, address: "127.0.0.1:0", protocols: [h2c]}
                     clusters:
                       echo: {destinations: [{url: "http://127.0.0.1:%d"}]}
                     hosts:
                       - names: [a.test]
                         routes:
                           - {path: /, forward: echo}
                     """.formatted(echo.port()));
             H2WebSocketClient c = H2WebSocketClient.connect(server.port("h2c"))) {
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/echo");
            assertThat(t.status()).isEqualTo(200);
            roundTrips(t, WARM_UP);
            long[] loops = serverLoops();
            long before = sum(THREADS.getThreadAllocatedBytes(loops));
            roundTrips(t, MEASURED);
            long bytes = sum(THREADS.getThreadAllocatedBytes(loops)) - before;
            long perRoundTrip = bytes / MEASURED;
            System.out.printf("HTTP/2 tunnel: %,d B on the server's event loops over %,d round trips of a 100-byte message"
                    + " (%d B per round trip: one DATA frame in, one out)%n", bytes, MEASURED, perRoundTrip);
            assertThat(bytes).as("bytes over %,d tunnel round trips on the server's event loops", MEASURED).isLessThanOrEqualTo(MAX_BYTES_TO_HTTP1);
        }
    }

    /**
     * The same round trips with the tunnel going to an HTTP/2 upstream as an extended CONNECT
     * (RFC 8441), from an HTTP/2 client and from an HTTP/1.1 client: Netty's HTTP/2 server on its
     * own loops ({@code h2-origin-*}, not counted) echoes every DATA frame. Both hops run on our
     * own codec: 0 B per round trip, bounded by {@link #MAX_BYTES_TO_HTTP2} over all of them.
     */
    @Test
    void aTunnelToAnHttp2UpstreamAllocatesNothingPerRoundTrip() throws Exception {
        try (H2Origin echo = new H2Origin(100, true);
             TestServer server = TestServer.start(TestServer.EPOLL + """
                     listeners:
                       - {name: h2c, address: "127.0.0.1:0", protocols: [http1, h2c]}
                     clusters:
                       echo: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}], timeouts: {idle: 60s}}
                     hosts:
                       - names: [a.test]
                         routes:
                           - {path: /, forward: echo}
                     """.formatted(echo.port()));
             H2WebSocketClient c = H2WebSocketClient.connect(server.port("h2c"));
             Socket s = new Socket("127.0.0.1", server.port("h2c"))) {
            echo.keepRequests = false;
            H2WebSocketClient.Tunnel t = c.open("http", "a.test", "/echo");
            assertThat(t.status()).isEqualTo(200);
            roundTrips(t, WARM_UP);
            long[] loops = serverLoops();
            long before = sum(THREADS.getThreadAllocatedBytes(loops));
            roundTrips(t, MEASURED);
            long h2Bytes = sum(THREADS.getThreadAllocatedBytes(loops)) - before;

            s.setTcpNoDelay(true);
            s.getOutputStream().write(("GET /echo HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(TunnelTesting.readHead(s.getInputStream())).startsWith("HTTP/1.1 101 ");
            rawRoundTrips(s, WARM_UP);
            loops = serverLoops();
            before = sum(THREADS.getThreadAllocatedBytes(loops));
            rawRoundTrips(s, MEASURED);
            long h1Bytes = sum(THREADS.getThreadAllocatedBytes(loops)) - before;
            System.out.printf("tunnel to an HTTP/2 upstream: %,d B (HTTP/2 client), %,d B (HTTP/1.1 client) on the server's event loops"
                    + " over %,d round trips of 100 bytes each (%d B and %d B per round trip)%n",
                    h2Bytes, h1Bytes, MEASURED, h2Bytes / MEASURED, h1Bytes / MEASURED);
            assertThat(h2Bytes).as("B over %d round trips, HTTP/2 client", MEASURED).isLessThanOrEqualTo(MAX_BYTES_TO_HTTP2);
            assertThat(h1Bytes).as("B over %d round trips, HTTP/1.1 client", MEASURED).isLessThanOrEqualTo(MAX_BYTES_TO_HTTP2);
        }
    }

    /** 100 raw bytes at a time through an HTTP/1.1 client's tunnel, each echo read whole before the next. */
    private static void rawRoundTrips(Socket s, int n) throws Exception {
        byte[] message = "y".repeat(100).getBytes(StandardCharsets.US_ASCII);
        byte[] back = new byte[100];
        OutputStream out = s.getOutputStream();
        InputStream in = s.getInputStream();
        for (int i = 0; i < n; i++) {
            out.write(message);
            int got = 0;
            while (got < back.length) {
                int r = in.read(back, got, back.length - got);
                if (r < 0) {
                    throw new AssertionError("round trip " + i + ": the tunnel closed");
                }
                got += r;
            }
        }
    }

    /** One 100-byte text message at a time, each waited for (so every round trip is one DATA frame each way). */
    private static void roundTrips(H2WebSocketClient.Tunnel t, int n) throws Exception {
        String message = "x".repeat(100);
        for (int i = 0; i < n; i++) {
            t.sendText(message);
            Object echoed = t.next();
            if (!message.equals(echoed)) {
                throw new AssertionError("round trip " + i + ": " + echoed);
            }
        }
    }

    private static long[] serverLoops() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(th -> th.getName().startsWith("multiThreadIoEventLoopGroup-"))
                .mapToLong(Thread::threadId).toArray();
    }

    private static long sum(long[] values) {
        long total = 0;
        for (long v : values) {
            total += Math.max(0, v);
        }
        return total;
    }

    /**
     * A WebSocket upstream in raw TCP on plain threads: answers the handshake with the right accept,
     * then echoes every byte (a client's masked frame comes back as it was; the test client reads
     * the echo as a frame whose mask bit it ignores).
     */
    private static final class EchoUpstream implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());

        EchoUpstream() throws Exception {
            Thread t = new Thread(this::serve, "tunnel-echo-upstream");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        private void serve() {
            try (Socket s = socket.accept()) {
                s.setTcpNoDelay(true);
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                StringBuilder head = new StringBuilder();
                while (!head.toString().endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    head.append((char) b);
                }
                String accept = Http2WebSocketIT.RawUpgradeOrigin.accept(Http2WebSocketIT.RawUpgradeOrigin.key(head));
                out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                byte[] buf = new byte[64 * 1024];
                for (int n; (n = in.read(buf)) > 0; ) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (Exception e) {
                // the test ends the tunnel by closing everything
            }
        }

        @Override
        public void close() throws Exception {
            socket.close();
        }
    }
}
