package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A 256 MiB download and a 256 MiB upload through the proxy, each with one side pausing for a
 * second part-way (after 128 MiB of the download, after 64 MiB of the upload), while the proxy's
 * buffer memory (the pooled allocator it uses for client and upstream connections) is sampled:
 * streaming with back-pressure keeps it under 64 MiB, buffering would grow it by what the fast
 * side sends during the pause (the other 128-192 MiB on loopback). It was 1 GiB each way: 24 and
 * 9 s of the suite, for no more proof.
 */
class BigTransferIT {
    private static final long SIZE = 256L << 20;
    private static final long MEMORY_BOUND = 64L << 20;
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                limits: {max_body_size: 2GiB}
                clusters:
                  app:
                    destinations: [{url: "%s"}]
                    timeouts: {idle: 10s}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /, forward: app}
                """.formatted(origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void aLargeDownloadToAPausingClientStaysBounded() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public")); MemorySampler memory = new MemorySampler()) {
            c.socket().setSoTimeout(30_000);
            c.send("GET /big/" + SIZE + " HTTP/1.1\r\nHost: app.test\r\n\r\n");
            InputStream in = c.socket().getInputStream();
            skipHead(in);
            byte[] buf = new byte[1 << 16];
            long total = 0;
            boolean paused = false;
            int n;
            while (total < SIZE && (n = in.read(buf)) > 0) {
                total += n;
                if (!paused && total > 128L << 20) {
                    paused = true;
                    Thread.sleep(1000); // a slow client: the proxy must stop reading the upstream
                }
            }
            assertThat(total).isEqualTo(SIZE);
            assertThat(memory.max()).as("largest pooled memory in use, bytes").isLessThan(MEMORY_BOUND);
        }
    }

    @Test
    void aLargeUploadToAPausingUpstreamStaysBounded() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public")); MemorySampler memory = new MemorySampler()) {
            c.socket().setSoTimeout(30_000);
            OutputStream out = c.socket().getOutputStream();
            out.write(("POST /slow-upload HTTP/1.1\r\nHost: app.test\r\nContent-Length: " + SIZE + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] zeros = new byte[1 << 16];
            for (long sent = 0; sent < SIZE; sent += zeros.length) {
                out.write(zeros);
            }
            out.flush();
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("body-bytes: " + SIZE + "\n");
            assertThat(memory.max()).as("largest pooled memory in use, bytes").isLessThan(MEMORY_BOUND);
        }
    }

    private static void skipHead(InputStream in) throws Exception {
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new AssertionError("closed before the head ended");
            }
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
    }

    /** Samples the pooled allocator's used memory every 5 ms on a daemon thread, relative to the start. */
    private static final class MemorySampler implements AutoCloseable {
        private final AtomicLong max = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        private final long baseline;

        MemorySampler() {
            var start = PooledByteBufAllocator.DEFAULT.metric();
            baseline = start.usedDirectMemory() + start.usedHeapMemory();
            thread = new Thread(() -> {
                while (running.get()) {
                    var m = PooledByteBufAllocator.DEFAULT.metric();
                    max.accumulateAndGet(m.usedDirectMemory() + m.usedHeapMemory(), Math::max);
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "memory-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        /** The largest use seen above the use when sampling began. */
        long max() {
            return max.get() - baseline;
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join();
        }
    }
}
