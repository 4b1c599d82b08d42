package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AsciiString;
import io.paduraksa.config.CacheSpec;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.RequestState;
import io.paduraksa.net.IpParser;
import io.paduraksa.ops.Metrics;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.cache.CacheStore;
import io.paduraksa.proxy.cache.CachingForwarder;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A cache hit through the whole HTTP/1.1 pipeline (deadlines, decoder, gate handler, gate, the
 * cache's lookup, the stored head and body written by the client exchange, flush) on an
 * {@link EmbeddedChannel} with the pooled allocator: 0 B per hit, as a gate answer
 * ({@link Http1GateHandlerAllocationTest}). The upstream behind the cache is a stand-in that
 * answers each miss with a storable response, so after the first 64 requests (64 distinct
 * queries) every request is a hit. Positive control: misses (a new query each time) allocate.
 */
@Tag("allocation")
class CacheHitAllocationTest {
    private static final int VARIANTS = 64;
    private static final int WARMUP = 300_000;
    private static final String YAML = """
            hosts:
              - names: [a.test]
                routes:
                  - {path: /cached, forward: app, cache: {}}
            clusters:
              app: {destinations: [{url: "http://192.0.2.10:8080"}]}
            """;
    private static final String HEADERS = "Host: a.test\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
            + "Accept-Language: en-US,en;q=0.9\r\n"
            + "sec-fetch-site: same-origin\r\n"
            + "Cookie: session=abc123def456; theme=dark; consent=yes\r\n\r\n";

    private State state;

    @AfterEach
    void close() {
        if (state != null) {
            state.close();
        }
    }

    @Test
    void aHitAllocatesNothing() {
        state = new State("/cached/app.js?v=%d");
        String first = state.answerOnce();
        assertThat(first).startsWith("HTTP/1.1 200 ").doesNotContain("\r\nAge: ");
        for (int i = 0; i < VARIANTS; i++) {
            State.step(state); // one miss per variant: the rest are hits
        }
        assertThat(state.answerOnce()).startsWith("HTTP/1.1 200 ").contains("\r\nAge: 0\r\n", "\r\nCache-Control: max-age=3600\r\n")
                .endsWith("\r\n\r\n0123456789abcdef");
        long missesBefore = state.upstreamCalls;
        AllocationAssert.Result r = AllocationAssert.assertZero("cache hit", state, State::step, WARMUP, AllocationAssert.DEFAULT_ITERATIONS);
        System.out.println(r);
        assertThat(state.upstreamCalls).as("no request went upstream: all were hits").isEqualTo(missesBefore);
        assertThat(state.answered).as("answers written").isGreaterThanOrEqualTo(state.steps);
        assertThat(state.cache.figures().hits()).isGreaterThan(r.iterations());
    }

    @Test
    void missesAllocateWhichShowsTheProbeSeesTheCache() {
        state = new State("/cached/app.js?v=%d");
        state.distinct = true;
        AllocationAssert.Result r = AllocationAssert.measure("cache misses", state, State::step, 2_000, 2_000);
        System.out.println(r);
        assertThat(r.bytesPerCall()).isGreaterThan(100);
        assertThat(state.upstreamCalls).isGreaterThanOrEqualTo(4_000);
    }

    /** A storable upstream response: 200, a 16-byte body, fresh for an hour. */
    static final class UpstreamHead implements ResponseHead {
        private static final AsciiString[] NAMES = {AsciiString.of("Content-Type"), AsciiString.of("Cache-Control")};
        private static final AsciiString[] VALUES = {AsciiString.of("text/plain"), AsciiString.of("max-age=3600")};

        @Override
        public int status() {
            return 200;
        }

        @Override
        public int headerCount() {
            return NAMES.length;
        }

        @Override
        public CharSequence headerName(int index) {
            return NAMES[index];
        }

        @Override
        public CharSequence headerValue(int index) {
            return VALUES[index];
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

    static final class State implements Forwarder {
        final Snapshot snapshot = CompiledFixtures.compile("cache.yaml", YAML);
        final byte[][] requests = new byte[VARIANTS][];
        final ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        final ByteBuf upstreamBody = PooledByteBufAllocator.DEFAULT.directBuffer(16).writeBytes("0123456789abcdef".getBytes(ISO_8859_1));
        final UpstreamHead upstreamHead = new UpstreamHead();
        final EmbeddedChannel channel = new EmbeddedChannel();
        final CacheStore cache = new CacheStore(CacheSpec.DEFAULT);
        final String path;
        boolean distinct;
        long answered;
        long steps;
        long upstreamCalls;
        int next;

        State(String path) {
            this.path = path;
            for (int i = 0; i < VARIANTS; i++) {
                requests[i] = request(i);
            }
            long[] ip = new long[2];
            IpParser.parse("203.0.113.9", 0, 11, ip);
            channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
            channel.attr(ClientInfoHandler.CLIENT_INFO).set(new ClientInfo(ip[0], ip[1], false, ClientInfo.NO_COUNTRY));
            SnapshotStore store = new SnapshotStore(snapshot);
            DateHeader date = new DateHeader();
            ListenerServices context = new ListenerServices(new Gate(store), new CachingForwarder(this, cache, date),
                    date, null, new Metrics(store, List.of("public"), new boolean[1]), 0);
            Http1RequestDecoder decoder = new Http1RequestDecoder();
            Http1Deadlines deadlines = new Http1Deadlines(10_000, 60_000, 0);
            channel.pipeline().addLast(deadlines, decoder, new Http1GateHandler(context, decoder, deadlines, 8192));
        }

        byte[] request(int i) {
            return ("GET " + path.formatted(i) + " HTTP/1.1\r\n" + HEADERS).getBytes(ISO_8859_1);
        }

        /** The stand-in upstream: answers at once with the storable response. */
        @Override
        public void forward(RequestState state, ForwardExchange exchange) {
            upstreamCalls++;
            exchange.responseHead(upstreamHead, state.host().responseHeaders(), null);
            exchange.responseBody(upstreamBody.retainedDuplicate());
            exchange.responseEnd(null);
        }

        /** One request in, read complete (the flush), the answer out and released. */
        static void step(State s) {
            s.steps++;
            byte[] request = s.distinct ? s.request(VARIANTS + (int) s.steps) : s.requests[s.next++ & (VARIANTS - 1)];
            s.in.clear().writeBytes(request);
            s.channel.pipeline().fireChannelRead(s.in.retain());
            s.channel.pipeline().fireChannelReadComplete();
            for (Object out = s.channel.readOutbound(); out != null; out = s.channel.readOutbound()) {
                s.answered++;
                ((ByteBuf) out).release();
            }
        }

        String answerOnce() {
            in.clear().writeBytes(requests[0]);
            channel.pipeline().fireChannelRead(in.retain());
            channel.pipeline().fireChannelReadComplete();
            StringBuilder sb = new StringBuilder();
            for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
                sb.append(((ByteBuf) out).toString(ISO_8859_1));
                ((ByteBuf) out).release();
            }
            return sb.toString();
        }

        void close() {
            channel.finishAndReleaseAll();
            in.release();
            upstreamBody.release();
            cache.clear();
            snapshot.release();
        }
    }
}
