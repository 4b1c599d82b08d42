package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.net.IpParser;
import io.paduraksa.ops.Metrics;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A gate-answered HTTP/1.1 request through our whole HTTP/1.1 pipeline (deadlines, decoder, gate
 * handler, answer write and flush) on an {@link EmbeddedChannel} with the pooled allocator, as the
 * server sets it: 0 B per request. Together with the process-wide measurement (wrk against the
 * server, about 0.4 B per request on epoll once Netty's leak detector is off, see
 * {@code Main.leakDetectionAsked}) this pins what is ours at zero.
 */
@Tag("allocation")
class Http1GateHandlerAllocationTest {
    private static final int VARIANTS = 64;
    /** Longer than the default warm-up, as in {@link Http1RequestDecoderAllocationTest} (JIT warm-up outliers). */
    private static final int WARMUP = 300_000;
    private static final String YAML = """
            policies:
              bots: {type: user_agent, deny: [sqlmap, nikto, masscan]}
              no-admin: {type: path, deny: [/admin]}
              roomy: {type: rate_limit, rate: 1000000/s, burst: 1000000, headers: true}
              spent: {type: rate_limit, rate: 1/h, burst: 1, headers: true}
            hosts:
              - names: [a.test]
                policies: [bots, no-admin]
                routes:
                  - {path: /static, respond: {status: 200, body: "0123456789abcdef"}}
                  - {path: /admin, respond: {status: 200, body: "never"}}
                  - {path: /limited, policies: [roomy], respond: {status: 200, body: "0123456789abcdef"}}
                  - {path: /spent, policies: [spent], respond: {status: 200, body: "once"}}
            """;
    private static final String BROWSER_HEADERS = "Host: a.test\r\n"
            + "User-Agent: %s\r\n"
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
            + "Cookie: session=abc123def456; theme=dark; consent=yes\r\n"
            + "Referer: https://a.test/page/%d\r\n\r\n";
    private static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";

    private State state;

    @AfterEach
    void close() {
        if (state != null) {
            state.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "200 from a route|/static?page=%d|" + CHROME + "|HTTP/1.1 200 ",
        "403 from the user-agent policy|/static?page=%d|sqlmap/1.7|HTTP/1.1 403 ",
        "403 from the path policy|/admin/%d|" + CHROME + "|HTTP/1.1 403 ",
        "404 with a request id in the body|/nothing/%d|" + CHROME + "|HTTP/1.1 404 ",
    })
    void answersWithoutAllocating(String what, String path, String userAgent, String statusLine) {
        state = new State(path, userAgent);
        assertThat(state.answerOnce()).startsWith(statusLine).doesNotContain("Connection: close")
                .containsPattern("\r\nX-Request-Id: [0-9a-f]{16}\r\n"); // forwarding.request_id.echo, on by default
        AllocationAssert.Result r = AllocationAssert.assertZero(what, state, State::step, WARMUP, AllocationAssert.DEFAULT_ITERATIONS);
        System.out.println(r);
        assertThat(state.answered).as("answers written, one per request").isEqualTo(state.steps).isGreaterThan(r.iterations());
        // The send-timeout's byte count runs on every write in the measured steps: one answer or more per step.
        assertThat(state.deadlines.bytesWritten()).isGreaterThanOrEqualTo(state.answered * 100);
    }

    /** The RateLimit-* fields are formatted into the answer's buffer: still 0 B, on a 200 and on the 429. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "200 with RateLimit fields|/limited?page=%d|HTTP/1.1 200 |RateLimit-Limit: 1000000",
        "429 with RateLimit fields|/spent?page=%d|HTTP/1.1 429 |RateLimit-Remaining: 0",
    })
    void answersWithRateLimitFieldsWithoutAllocating(String what, String path, String statusLine, String field) {
        state = new State(path, CHROME);
        if (statusLine.contains("429")) {
            state.answerOnce(); // the one request the bucket admits
        }
        assertThat(state.answerOnce()).startsWith(statusLine).contains(field + "\r\n", "RateLimit-Reset: ");
        AllocationAssert.Result r = AllocationAssert.assertZero(what, state, State::step, WARMUP, AllocationAssert.DEFAULT_ITERATIONS);
        System.out.println(r);
        assertThat(state.answered).as("answers written, one per request").isEqualTo(state.steps).isGreaterThan(r.iterations());
    }

    /**
     * Why {@code Main} turns Netty's leak detector off: at its default level (SIMPLE) it wraps one
     * answer buffer in 128 and records a stack trace when it is released: 12 B per request on average
     * here, more on a real event loop whose stacks are deeper (the whole-process 48 B per request
     * under wrk on epoll was this and nothing else).
     */
    @Test
    void nettysDefaultLeakDetectionIsWhatCostsBytes() {
        state = new State("/static?page=%d", CHROME);
        ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        try {
            AllocationAssert.Result simple = AllocationAssert.measure("200 with leak detection SIMPLE", state, State::step,
                    WARMUP, AllocationAssert.DEFAULT_ITERATIONS);
            System.out.println(simple);
            assertThat(simple.bytesPerCall()).isGreaterThan(8);
        } finally {
            ResourceLeakDetector.setLevel(before);
        }
    }

    static final class State {
        final Snapshot snapshot = CompiledFixtures.compile("answers.yaml", YAML);
        final byte[][] requests = new byte[VARIANTS][];
        final ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        final EmbeddedChannel channel = new EmbeddedChannel();
        final Http1Deadlines deadlines = new Http1Deadlines(10_000, 60_000, 0);
        long answered;
        long steps;
        int next;

        State(String path, String userAgent) {
            for (int i = 0; i < VARIANTS; i++) {
                requests[i] = ("GET " + path.formatted(i) + " HTTP/1.1\r\n" + BROWSER_HEADERS.formatted(userAgent, i % 17))
                        .getBytes(ISO_8859_1);
            }
            long[] ip = new long[2];
            IpParser.parse("203.0.113.9", 0, 11, ip);
            channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
            channel.attr(ClientInfoHandler.CLIENT_INFO).set(new ClientInfo(ip[0], ip[1], false, ClientInfo.NO_COUNTRY));
            SnapshotStore store = new SnapshotStore(snapshot);
            // With the server's counters installed, so the per-request metrics hook is measured too.
            ListenerServices context = new ListenerServices(new Gate(store), (state, exchange) -> exchange.answer(state.snapshot().statusAnswer(502)),
                    new DateHeader(), null, new Metrics(store, List.of("public"), new boolean[1]), 0);
            Http1RequestDecoder decoder = new Http1RequestDecoder();
            channel.pipeline().addLast(deadlines, decoder, new Http1GateHandler(context, decoder, deadlines, 8192));
        }

        /** One request in, read complete (the flush), the answer out and released. */
        static void step(State s) {
            s.steps++;
            s.in.clear().writeBytes(s.requests[s.next++ & (VARIANTS - 1)]);
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
            ByteBuf out = channel.readOutbound();
            assertThat(channel.<Object>readOutbound()).as("one buffer per answer").isNull();
            try {
                return out.toString(ISO_8859_1);
            } finally {
                out.release();
            }
        }

        void close() {
            channel.finishAndReleaseAll();
            in.release();
            snapshot.release();
        }
    }
}
