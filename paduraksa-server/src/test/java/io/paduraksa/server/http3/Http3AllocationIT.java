package io.paduraksa.server.http3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the server's event loops allocate per HTTP/3 request (all their work: QUIC packets and
 * crypto in quiche, Netty's stream channel, pipeline and frames per request stream, QPACK, the gate,
 * the answer or the forward), measured with each loop thread's allocated-bytes counter around
 * {@link #MEASURED} requests over one QUIC connection with {@link #IN_FLIGHT} streams in flight,
 * after {@link #WARM_UP}. Netty's HTTP/3 codec makes a channel, a pipeline and frame objects per
 * stream, so the figure is far from HTTP/1.1's 0 B; the bound is written next to what was measured
 * (2026-12-02, under a load of 9-10). Our own part per request: the answer's {@code DefaultHttp3Headers},
 * its frames and the two-byte closing frame that carries the FIN; the request state and view are recycled
 * (made per stream, their 8 KiB path buffer was 8.4 KB of the 12.9 KB a gate answer then cost).
 */
@Tag("allocation")
class Http3AllocationIT {
    static final int WARM_UP = 6_000;
    static final int MEASURED = 4_000;
    static final int IN_FLIGHT = 50;
    static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    static TestOrigin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        server = TestServer.start("""
                listeners:
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [http1, h3]
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                policies:
                  no-admin: {type: path, deny: [/admin]}
                hosts:
                  - names: [a.test]
                    policies: [no-admin]
                    routes:
                      - {path: /fixed, forward: app}
                      - {path: /, respond: {status: 200, body: "hello h3\\n"}}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @ParameterizedTest(name = "HTTP/3 {0}: at most {3} B per request on the server's loops (measured {4})")
    @CsvSource({"200 answer, /static/app, 200, 5200, 4513", "403 policy denial, /admin/users, 403, 5200, 4575",
        "200 forwarded, /fixed/app, 200, 6400, 5525"})
    void http3EventLoopAllocationsAreBounded(String what, String path, int status, long bound, long measured) throws Exception {
        EventLoopGroup group = H3Client.clientGroup(1);
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test", group)) {
            run(c, path, status, WARM_UP);
            int originAtStart = origin.requests();
            long[] loops = serverLoopThreads();
            long before = sum(THREADS.getThreadAllocatedBytes(loops));
            run(c, path, status, MEASURED);
            long allocated = sum(THREADS.getThreadAllocatedBytes(loops)) - before;
            System.out.printf("HTTP/3 %-20s server event loops: %,d B in all, %,d B/request%n", what, allocated, allocated / MEASURED);
            if (path.startsWith("/fixed")) {
                assertThat(origin.requests() - originAtStart).as("requests the origin answered").isEqualTo(MEASURED);
            }
            assertThat(allocated / MEASURED).as("bytes per HTTP/3 request on the server's event loops (%s)", what)
                    .isLessThanOrEqualTo(bound);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    /** {@code count} requests, {@link #IN_FLIGHT} at a time, each checked for its status and FIN. */
    static void run(H3Client c, String path, int status, int count) throws Exception {
        List<H3Client.Response> window = new ArrayList<>(IN_FLIGHT);
        for (int sent = 0; sent < count; ) {
            window.clear();
            for (int i = 0; i < IN_FLIGHT && sent < count; i++, sent++) {
                H3Client.Response r = c.send("GET", "a.test", path + "?n=" + (sent % 64));
                r.keepBody = false;
                window.add(r);
            }
            for (H3Client.Response r : window) {
                r.await();
                assertThat(r.end).as("%s", r).isEqualTo("fin");
                assertThat(r.status).as("%s", r).isEqualTo(status);
            }
        }
    }

    /** The server's event loops (the test client's are named h3-test-client, the origin's test-origin). */
    static long[] serverLoopThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("multiThreadIoEventLoopGroup-"))
                .mapToLong(Thread::threadId).toArray();
    }

    static long sum(long[] values) {
        long s = 0;
        for (long v : values) {
            s += v;
        }
        return s;
    }
}
