package io.paduraksa.bench.cache;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.config.CacheSpec;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.cache.CacheStore;
import io.paduraksa.proxy.cache.CachingForwarder;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.http1.Http1Deadlines;
import io.paduraksa.server.http1.Http1GateHandler;
import io.paduraksa.server.http1.Http1RequestDecoder;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotCompiler;
import io.paduraksa.snapshot.SnapshotStore;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One HTTP/1.1 request through the whole pipeline (decoder, gate handler, gate, answer write) on
 * an {@link EmbeddedChannel} with the pooled allocator: a cache hit next to a gate answer of the
 * same size, so the cost of a hit reads against the cost of a precomputed answer. The same
 * 13-field browser request; the answer is 200 with a 16-byte body either way (the hit also carries
 * Cache-Control and Age). Sockets and syscalls are not in it: those are the same for both.
 *
 * <p>The requests run on a Netty event-loop thread ({@link DefaultEventLoop}, a
 * {@code FastThreadLocalThread}) in batches of {@value #BATCH}, as on a server: on JMH's own thread
 * Netty's recycler and pool caches do not pool (240 B per gate answer there). The hand-off costs
 * one task per batch (a fraction of a byte per request in {@code gc.alloc.rate.norm}).
 *
 * <p>{@link #main}: the two interleaved in one thread, 41 rounds of 20,000 requests each, timed
 * with the thread's CPU clock, for a ratio that a loaded machine does not skew (JMH's wall-clock
 * figures swing by a factor of several when other builds share the two cores).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@OperationsPerInvocation(CacheHitBenchmark.BATCH)
public class CacheHitBenchmark {
    static {
        BenchFixtures.leakDetectionOff();
    }

    static final int BATCH = 1024;

    @Param({"gate-answer", "cache-hit"})
    public String answer;

    private DefaultEventLoop loop;
    private Pipeline pipeline;
    private final Callable<Integer> batch = this::batch;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        loop = new DefaultEventLoop();
        pipeline = loop.submit(() -> new Pipeline(answer.equals("cache-hit"))).get();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        loop.submit(() -> pipeline.close()).get();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** {@value #BATCH} requests on the event loop. */
    @Benchmark
    public int requests() throws Exception {
        return loop.submit(batch).get();
    }

    private int batch() {
        int bytes = 0;
        for (int i = 0; i < BATCH; i++) {
            bytes += pipeline.request();
        }
        return bytes;
    }

    /** Interleaved rounds on one FastThreadLocalThread; prints CPU ns per request and the ratio. */
    public static void main(String[] args) throws Exception {
        Thread t = new FastThreadLocalThread(CacheHitBenchmark::interleaved, "bench-loop");
        t.start();
        t.join();
    }

    private static void interleaved() {
        Pipeline answer = new Pipeline(false);
        Pipeline hit = new Pipeline(true);
        for (int i = 0; i < 300_000; i++) {
            answer.request();
            hit.request();
        }
        try {
            System.out.println("CPU per request on the pipeline: " + InterleavedRounds.measure(Thread.currentThread().threadId(), 41, 20_000,
                    n -> requests(answer, n), n -> requests(hit, n)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        answer.close();
        hit.close();
    }

    private static void requests(Pipeline p, int n) {
        for (int i = 0; i < n; i++) {
            p.request();
        }
    }

    /** The HTTP/1.1 pipeline of one connection, with the cache in front of a stand-in upstream. */
    static final class Pipeline implements Forwarder {
        private static final String YAML = """
                clusters:
                  app: {destinations: [{url: "http://192.0.2.10:8080"}]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /answer, respond: {status: 200, content_type: text/plain, body: "0123456789abcdef"}}
                      - {path: /cached, forward: app, cache: {}}
                """;
        private static final String HEADERS = "Host: a.test\r\n"
                + "User-Agent: " + BenchFixtures.CHROME_UA + "\r\n"
                + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
                + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
                + "Accept-Language: en-US,en;q=0.9\r\n"
                + "sec-ch-ua: \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"\r\n"
                + "sec-ch-ua-mobile: ?0\r\n"
                + "sec-ch-ua-platform: \"Linux\"\r\n"
                + "sec-fetch-site: same-origin\r\n"
                + "sec-fetch-mode: navigate\r\n"
                + "sec-fetch-dest: document\r\n"
                + "priority: u=0, i\r\n"
                + "Cookie: session=abc123def456; theme=dark; consent=yes\r\n\r\n";
        private static final int VARIANTS = 64;
        private static final ResponseHead HEAD = new StoredLikeHead();

        private final boolean cached;
        private final Snapshot snapshot;
        private final CacheStore cache = new CacheStore(CacheSpec.DEFAULT);
        private final EmbeddedChannel channel = new EmbeddedChannel();
        private final ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        private final ByteBuf upstreamBody = PooledByteBufAllocator.DEFAULT.directBuffer(16).writeBytes("0123456789abcdef".getBytes(ISO_8859_1));
        private final byte[][] requests = new byte[VARIANTS][];
        private int next;
        private long upstreamCalls;

        Pipeline(boolean cached) {
            this.cached = cached;
            try {
                snapshot = SnapshotCompiler.compile(ConfigLoader.parse("bench.yaml", YAML), PooledByteBufAllocator.DEFAULT);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            String path = cached ? "/cached/app.js?v=" : "/answer/app.js?v=";
            for (int i = 0; i < VARIANTS; i++) {
                requests[i] = ("GET " + path + i + " HTTP/1.1\r\n" + HEADERS).getBytes(ISO_8859_1);
            }
            channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
            channel.attr(ClientInfoHandler.CLIENT_INFO).set(BenchFixtures.client("203.0.113.9", false));
            SnapshotStore store = new SnapshotStore(snapshot);
            DateHeader date = new DateHeader();
            ListenerServices services = new ListenerServices(new Gate(store), new CachingForwarder(this, cache, date), date, null);
            Http1RequestDecoder decoder = new Http1RequestDecoder();
            Http1Deadlines deadlines = new Http1Deadlines(10_000, 60_000, 0);
            channel.pipeline().addLast(deadlines, decoder, new Http1GateHandler(services, decoder, deadlines, 8192));
            for (int i = 0; i < VARIANTS * 2; i++) {
                request(); // the first round stores the 64 responses
            }
            check();
        }

        /** One request in, read complete (the flush), the answer out and released; returns its bytes. */
        int request() {
            in.clear().writeBytes(requests[next++ & (VARIANTS - 1)]);
            channel.pipeline().fireChannelRead(in.retain());
            channel.pipeline().fireChannelReadComplete();
            int bytes = 0;
            for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
                bytes += ((ByteBuf) out).readableBytes();
                ((ByteBuf) out).release();
            }
            return bytes;
        }

        private void check() {
            if (cached && upstreamCalls != VARIANTS) {
                throw new IllegalStateException("expected one upstream call per URL, got " + upstreamCalls);
            }
        }

        Void close() {
            check(); // no request of the run reached the upstream
            channel.finishAndReleaseAll();
            in.release();
            upstreamBody.release();
            cache.clear();
            snapshot.release();
            return null;
        }

        /** The stand-in upstream behind the cache: a storable 200 with the same body as the gate's answer. */
        @Override
        public void forward(RequestState state, ForwardExchange exchange) {
            upstreamCalls++;
            exchange.responseHead(HEAD, state.host().responseHeaders(), null);
            exchange.responseBody(upstreamBody.retainedDuplicate());
            exchange.responseEnd(null);
        }
    }

    /** The upstream's head: Content-Type and Cache-Control, 16 bytes of body. */
    static final class StoredLikeHead implements ResponseHead {
        private final AsciiString[] names = {AsciiString.of("Content-Type"), AsciiString.of("Cache-Control")};
        private final AsciiString[] values = {AsciiString.of("text/plain"), AsciiString.of("max-age=86400")};

        @Override
        public int status() {
            return 200;
        }

        @Override
        public int headerCount() {
            return names.length;
        }

        @Override
        public CharSequence headerName(int index) {
            return names[index];
        }

        @Override
        public CharSequence headerValue(int index) {
            return values[index];
        }

        @Override
        public long contentLength() {
            return 16;
        }

        @Override
        public boolean hasBody() {
            return true;
        }

        @Override
        public boolean isConnectionOption(CharSequence headerName) {
            return false;
        }
    }
}
