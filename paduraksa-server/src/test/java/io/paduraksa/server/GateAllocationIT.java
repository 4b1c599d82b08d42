package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.cycle.GateMeter;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The key proof, over real connections with browser-like requests: what the server's
 * event loops allocate per request, all of it (decoding, gate, answers, forwarding, flushes, the
 * access log's hand-off, and anything else those threads run meanwhile), measured with each loop
 * thread's allocated-bytes counter around {@link #MEASURED} requests after warm-up. Asserted:
 * <ul>
 *   <li>HTTP/1.1 gate answers (200, 301, 403) and HTTP/1.1 -> HTTP/1.1 forwarding: 0 B per request,
 *       at most {@link #H1_LOOP_BYTES} over all counted requests together (Netty's pools refilling
 *       now and then), with the access log on and off;</li>
 *   <li>HTTP/2 (h2c) answers and h2c -> HTTP/1.1 forwarding, on our own HTTP/2 codec: 0 B per
 *       request as well, at most {@link #H1_LOOP_BYTES} over all counted requests together (on
 *       Netty's {@code Http2ConnectionHandler} it was 2,011-3,571 B per request, 2026-12-01);</li>
 *   <li>the gate's synchronous part alone ({@link GateMeter}, which brackets {@code Gate.run}): 0 B
 *       on HTTP/1.1, at most 1 % non-zero requests of at most 1 KiB on HTTP/2 (none seen so far);</li>
 *   <li>that the work was done: every answer's status is checked by the client, the meter counted
 *       every request, and the origin received every forwarded one.</li>
 * </ul>
 * Per scenario: 2,000 warm-up requests with the meter off, rounds of 2,000 with the meter on until
 * one is clean (in practice the first), then the counted ones, over ONE keep-alive HTTP/1.1
 * connection (pipelined 8 at a time) and over ONE HTTP/2 connection (50 streams in flight). Before
 * all that, a JIT warm-up of 20,000 requests per scenario and protocol (see {@link #warmUpAndSettle}).
 *
 * <p>Requests carry 13 Chrome-like headers (Host or :authority, sec-ch-ua*, user-agent, accept*,
 * sec-fetch-*, priority, cookie) plus CF-Connecting-IP from a trusted proxy (so the gate parses
 * the client IP from a header), on rotating paths with query strings, to 6 hosts whose requests
 * pass three host policies (user agent, IP deny list, method) before the route's.
 *
 * <p>Also prints, without asserting, the whole process's allocated bytes per request over the same
 * counted requests ({@code getTotalThreadAllocatedBytes}): that includes the test's own client in
 * this JVM (for HTTP/2 a full Netty client: most of the figure), the clock thread and JIT work.
 */
@Tag("allocation")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // HTTP/2 then HTTP/1.1: one server restart (access log off)
public class GateAllocationIT {
    static final int WARM_UP = 2_000;
    public static final int MEASURED = 10_000;
    static final int PIPELINE = 8;
    static final int IN_FLIGHT = 50;
    static final int MAX_SETTLE_ROUNDS = 15;
    /** Requests per scenario and protocol before any test (meter off), to get the gate's methods through the JIT. */
    static final int JIT_WARM_UP = 20_000;
    /** H2: at most this share of counted requests may allocate in the gate, each at most {@link #H2_MAX_SINGLE} bytes. */
    static final double H2_MAX_NON_ZERO_SHARE = 0.01;
    static final long H2_MAX_SINGLE = 1_024;
    /**
     * HTTP/1.1: the most the server's event loops may allocate over all {@link #MEASURED} counted
     * requests together (0.4 B per request: one byte per request anywhere would be 10,000 B).
     * Nothing is allocated per request; what shows, in some runs and not others, is 0 to 760 B per
     * 10,000 requests from Netty's own pools refilling (recorded with JFR, TLABs off:
     * {@code PoolThreadCache$MemoryRegionCache$Entry} and {@code Recycler} handles when a per-thread
     * recycler pool runs dry, a recycler queue growing), and now and then the heap metadata of a new
     * {@code PoolChunk} when the arena frees an empty chunk and makes a new one (2,952 and 3,128 B in
     * two consecutive counted runs of the 200 answer with the log off on CI, 2026-12-01; the same
     * 3,128 B {@code PoolArena.allocateNormal -> newChunk} traced in {@code AllocationAssert}).
     */
    static final long H1_LOOP_BYTES = 4_096;
    /**
     * Counted runs a scenario may take to come in under its bound: a one-off (a pool refill, a new
     * chunk) lands in one run and rarely in two in a row; an allocation per request, even one byte,
     * exceeds the bound in every run.
     */
    public static final int COUNTED_RUNS = 3;

    static final String YAML = TestServer.EPOLL + """
            listeners:
              - {name: h1, address: "127.0.0.1:0", protocols: [http1]}
              - {name: h2, address: "127.0.0.1:0", protocols: [h2c]}
            client_ip:
              trusted_proxies: [127.0.0.1/32]
              header: CF-Connecting-IP
            policies:
              bad-bots: {type: user_agent, deny: [sqlmap, nikto, masscan, zgrab, nuclei, python-requests, curl/]}
              blocklist: {type: ip, deny: [198.51.100.0/24, "2001:db8:bad::/48", 192.0.2.128/25]}
              read-only: {type: method, allow: [GET, HEAD, OPTIONS]}
              no-admin: {type: path, deny: [/admin, /.git, /.env]}
            clusters:
              app: {destinations: [{url: "%s"}]}
            hosts:
            %s
            default: {respond: {status: 421}}
            %s
            """;
    public static final String[] HOSTS = {"a.test", "b.test", "c.test", "shop.example", "api.example", "news.example"};

    static TestServer server;
    static TestOrigin origin;
    /** Whether {@link #server} runs with the access log (JSON, to a temporary file). */
    static boolean accessLog;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        use(true);
    }

    /** (Re)starts the server with the access log on or off; the first start warms the JIT up. */
    static void use(boolean withAccessLog) throws Exception {
        if (server != null && accessLog == withAccessLog) {
            return;
        }
        boolean first = server == null;
        if (server != null) {
            server.close();
        }
        StringBuilder hosts = new StringBuilder();
        for (String h : HOSTS) {
            hosts.append("  - names: [").append(h).append(", \"*.").append(h).append("\"]\n")
                    .append("    policies: [bad-bots, blocklist, read-only]\n")
                    .append("    routes:\n")
                    // Bodies and locations are the same length on every host: the HTTP/1.1 reader counts bytes.
                    .append("      - {path: /static, respond: {status: 200, content_type: text/html, body: \"<!doctype html><h1>hello</h1>\\n\"}}\n")
                    .append("      - {path: /old, redirect: {location: \"/new\", status: 301}}\n")
                    .append("      - {path: /admin, policies: [no-admin], respond: {status: 200}}\n")
                    .append("      - {path: /fixed, forward: app}\n")
                    .append("      - {path: /, respond: {status: 200}}\n");
        }
        java.nio.file.Path log = java.nio.file.Files.createTempFile("gate-allocation-access", ".log");
        log.toFile().deleteOnExit();
        server = TestServer.startMetered(YAML.formatted(origin.url(), hosts,
                withAccessLog ? "access_log: {enabled: true, path: \"" + log + "\"}" : ""));
        accessLog = withAccessLog;
        System.out.println("GateAllocationIT: access log " + (withAccessLog ? "on (" + log + ")" : "off"));
        jitWarmUp(first ? JIT_WARM_UP : JIT_WARM_UP / 4);
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @ParameterizedTest(name = "HTTP/1.1 {0}, access log {3}: at most 4,096 B per 10,000 requests on the server's loops")
    @CsvSource({"200 answer, /static/app, 200, on", "301 redirect, /old/page, 301, on", "403 policy denial, /admin/users, 403, on",
        "200 forwarded, /fixed/app, 200, on",
        "200 answer, /static/app, 200, off", "301 redirect, /old/page, 301, off", "403 policy denial, /admin/users, 403, off",
        "200 forwarded, /fixed/app, 200, off"})
    @Order(2)
    void http1EventLoopsAllocateNothingPerRequest(String what, String path, int status, String log) throws Exception {
        use(log.equals("on"));
        GateMeter meter = server.meter();
        int originBefore = origin.requests();
        try (H1Connection c = new H1Connection(path, status)) {
            String settling = warmUpAndSettle(meter, c::run);
            int originAtStart = origin.requests();
            long[] allocated = measure(meter, c::run);
            report("HTTP/1.1 " + what + ", log " + log, meter, allocated, settling);
            int counted = MEASURED;
            for (int run = 2; allocated[1] > H1_LOOP_BYTES && run <= COUNTED_RUNS; run++) {
                // A pool refill can land in one counted run on a loaded machine (6,080 B seen once with
                // seven builds on two cores); anything per request repeats, so a later run must be clean too.
                assertThat(meter.requests()).isEqualTo(MEASURED);
                assertThat(meter.bytes()).as("gate bytes over counted run %d: %s", run - 1, meter).isZero();
                allocated = measure(meter, c::run);
                report("HTTP/1.1 " + what + ", log " + log + " (counted run " + run + ")", meter, allocated, settling);
                counted += MEASURED;
            }
            assertThat(meter.requests()).isEqualTo(MEASURED);
            if (path.startsWith("/fixed")) {
                assertThat(origin.requests() - originAtStart).as("requests the origin answered").isEqualTo(counted);
            } else {
                assertThat(origin.requests()).isEqualTo(originBefore);
            }
            assertThat(meter.bytes()).as("gate bytes over %d HTTP/1.1 requests: %s", MEASURED, meter).isZero();
            assertThat(allocated[1]).as("bytes the server's event loops allocated over %,d HTTP/1.1 requests (%s, access log %s)",
                    MEASURED, what, log).isLessThanOrEqualTo(H1_LOOP_BYTES);
        }
    }

    /**
     * HTTP/2 on our own codec. Gate answers: 0 B per request on the server's event loops, like
     * HTTP/1.1: at most {@link #H1_LOOP_BYTES} over all counted requests together (measured
     * 2026-12-02 under load 7-8: 96, 152 and 320 B over 10,000 requests). Forwarded to HTTP/1.1: the
     * same bound (measured 1,120 B over 10,000, JFR: Netty's buffer and outbound-entry pools). It was
     * 35,016-255,344 B, and red on CI once, while the per-request objects came from Netty's default
     * {@code Recycler}, which keeps one new object in eight (see {@code RequestRecycler}). On
     * Netty's codec it was 2,556, 2,011, 2,538 and 3,571 B per request. The gate's own part stays
     * (nearly) 0 B.
     */
    @ParameterizedTest(name = "HTTP/2 {0}: at most {3} B over all counted requests on the server's loops")
    @CsvSource({"200 answer, /static/app, 200, 4096", "301 redirect, /old/page, 301, 4096",
        "403 policy denial, /admin/users, 403, 4096", "200 forwarded, /fixed/app, 200, 4096"})
    @Order(1)
    void http2EventLoopAllocationsAreBounded(String what, String path, int status, long maxTotal) throws Exception {
        use(true);
        GateMeter meter = server.meter();
        try (H2Client c = H2Client.connect(server.port("h2"))) {
            Http2Headers[] requests = h2Requests(path);
            String settling = warmUpAndSettle(meter, n -> h2Run(c, requests, status, n));
            int originAtStart = origin.requests();
            long[] allocated = measure(meter, n -> h2Run(c, requests, status, n));
            report("HTTP/2 " + what, meter, allocated, settling);
            int counted = MEASURED;
            for (int run = 2; allocated[1] > maxTotal && run <= COUNTED_RUNS; run++) {
                // As on HTTP/1.1: a pool refill or a new pool chunk can land in a counted run (4,560 B
                // seen once on h2c forwarding; 5,912 and then 4,576 B in two runs on CI, 2026-12-06, and
                // 0 B in the next CI run); a per-request cost repeats in every run.
                assertThat(meter.requests()).isEqualTo(MEASURED);
                allocated = measure(meter, n -> h2Run(c, requests, status, n));
                report("HTTP/2 " + what + " (counted run " + run + ")", meter, allocated, settling);
                counted += MEASURED;
            }
            assertThat(meter.requests()).isEqualTo(MEASURED);
            if (path.startsWith("/fixed")) {
                assertThat(origin.requests() - originAtStart).as("requests the origin answered").isEqualTo(counted);
            }
            assertThat(meter.nonZeroRequests()).as("%s", meter).isLessThanOrEqualTo((long) (MEASURED * H2_MAX_NON_ZERO_SHARE));
            assertThat(meter.maxSingleRequest()).as("%s", meter).isLessThanOrEqualTo(H2_MAX_SINGLE);
            assertThat(allocated[1]).as("bytes over %,d HTTP/2 requests on the server's event loops (%s)", MEASURED, what)
                    .isLessThanOrEqualTo(maxTotal);
        }
    }

    /**
     * Before any scenario: {@link #JIT_WARM_UP} requests of every scenario over both protocols,
     * interleaved, meter off, so that every method of the gate's path reaches C2 with profiles that
     * have seen all three outcomes (see {@link #warmUpAndSettle} for what the JIT costs otherwise).
     */
    static void jitWarmUp(int requests) throws Exception {
        String[] paths = {"/static/app", "/old/page", "/admin/users", "/fixed/app"};
        int[] statuses = {200, 301, 403, 200};
        H1Connection[] h1 = new H1Connection[paths.length];
        Http2Headers[][] h2 = new Http2Headers[paths.length][];
        try (H2Client c = H2Client.connect(server.port("h2"))) {
            for (int i = 0; i < paths.length; i++) {
                h1[i] = new H1Connection(paths[i], statuses[i]);
                h2[i] = h2Requests(paths[i]);
            }
            for (int chunk = 0; chunk < requests / 1_000; chunk++) {
                for (int i = 0; i < paths.length; i++) {
                    h1[i].run(1_000);
                    h2Run(c, h2[i], statuses[i], 1_000);
                }
            }
        } finally {
            for (H1Connection c : h1) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    /** Sends {@code requests} requests of one scenario on the test's one connection. */
    public interface Round {
        void run(int requests) throws Exception;
    }

    /**
     * {@link #WARM_UP} requests with the meter off, then rounds of as many with the meter on until
     * one round's gate allocates nothing (at most {@link #MAX_SETTLE_ROUNDS}); returns what each
     * round allocated, for the report.
     *
     * <p>Why: a short warm-up leaves the JIT mid-way. Recorded with JFR
     * ({@code jdk.ObjectAllocationOutsideTLAB} with stacks, TLABs off, next to {@code jdk.Compilation}),
     * the gate's rare non-zero requests on the event loop were all JIT transitions, never request
     * data: a few {@code String}/{@code byte[]} pairs (24 B + 24-112 B each) made in the same
     * millisecond as the event loop asked for a C2 (tier 4) compilation of the method on top of the
     * stack ({@code PathNormalizer.write}, {@code Http1RequestHead.nameEquals}, {@code AsciiString.b2c},
     * an OSR of {@code UserAgentPolicy$Automaton.occursIn}, ...), and once about 4 KB for loading
     * the class {@code GateTrace} when C2-compiled {@code Gate.runPolicies} first ran (the interpreter
     * never needed the class: the trace is always null). Each happens once per method, hence
     * {@link #jitWarmUp} first, and this check that the counted requests start in a steady state.
     */
    public static String warmUpAndSettle(GateMeter meter, Round round) throws Exception {
        meter.enabled(false);
        round.run(WARM_UP);
        StringBuilder rounds = new StringBuilder();
        for (int i = 0; i < MAX_SETTLE_ROUNDS; i++) {
            meter.reset();
            meter.enabled(true);
            round.run(WARM_UP);
            meter.enabled(false);
            rounds.append(i == 0 ? "" : ", ").append(meter.bytes()).append(" B/").append(meter.nonZeroRequests());
            if (meter.bytes() == 0) {
                break;
            }
        }
        return rounds.toString();
    }

    /**
     * The counted requests; returns the bytes allocated over them by the whole process and by the
     * server's event-loop threads alone (all their work: decoding, gate, answers, flushes, and
     * anything else those threads did meanwhile).
     */
    public static long[] measure(GateMeter meter, Round round) throws Exception {
        long[] loops = serverLoopThreads();
        meter.reset();
        meter.enabled(true);
        long process = totalAllocated();
        long server = sum(THREADS.getThreadAllocatedBytes(loops));
        round.run(MEASURED);
        server = sum(THREADS.getThreadAllocatedBytes(loops)) - server;
        process = totalAllocated() - process;
        meter.enabled(false);
        return new long[] {process, server};
    }

    /** The server's event loops (the client's loop is named h2-test-client). */
    static long[] serverLoopThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("multiThreadIoEventLoopGroup-"))
                .mapToLong(Thread::threadId).toArray();
    }

    static long sum(long[] values) {
        long total = 0;
        for (long v : values) {
            total += Math.max(0, v);
        }
        return total;
    }

    /** One keep-alive HTTP/1.1 connection sending one scenario's pre-built batches. */
    static final class H1Connection implements AutoCloseable {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        final byte[][] batches;
        final byte[] answers;
        final int length;
        final int status;

        H1Connection(String path, int status) throws Exception {
            this.socket = new Socket("127.0.0.1", server.port("h1"));
            socket.setSoTimeout(5_000);
            socket.setTcpNoDelay(true);
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
            this.batches = h1Batches(path);
            this.status = status;
            out.write(h1Request(HOSTS[0], path + "?first=1"));
            out.flush();
            this.length = firstResponseLength(in, status);
            this.answers = new byte[length * PIPELINE];
        }

        void run(int requests) throws Exception {
            h1Run(in, out, batches, answers, length, status, requests);
        }

        @Override
        public void close() throws Exception {
            socket.close();
        }
    }

    // ---- HTTP/1.1: pre-built pipelined batches, answers read into one reused array ----

    static final String[] CHROME_HEADERS = {
        "sec-ch-ua: \"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\"",
        "sec-ch-ua-mobile: ?0",
        "sec-ch-ua-platform: \"Linux\"",
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8",
        "Sec-Fetch-Site: same-origin",
        "Sec-Fetch-Mode: navigate",
        "Sec-Fetch-Dest: document",
        "Accept-Encoding: gzip, deflate, br, zstd",
        "Accept-Language: en-GB,en-US;q=0.9,en;q=0.8",
        "Priority: u=0, i",
        "Cookie: session=3f1c2a9be47d4c0f9a6e; theme=dark; consent=1; _ga=GA1.1.1234567890.1700000000",
        "CF-Connecting-IP: 203.0.113.77",
    };

    static byte[] h1Request(String host, String target) {
        StringBuilder b = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\nHost: www.").append(host).append("\r\n");
        for (String h : CHROME_HEADERS) {
            b.append(h).append("\r\n");
        }
        return b.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** 64 batches of {@link #PIPELINE} requests over every host, each path and query different. */
    static byte[][] h1Batches(String path) {
        byte[][] batches = new byte[64][];
        int n = 0;
        for (int i = 0; i < batches.length; i++) {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (int j = 0; j < PIPELINE; j++, n++) {
                batch.writeBytes(h1Request(HOSTS[n % HOSTS.length], path + "/" + (n % 37) + "/item.js?v=" + n + "&utm_source=x" + (n % 5)));
            }
            batches[i] = batch.toByteArray();
        }
        return batches;
    }

    /** Reads the first answer with its head parsed; answers of one scenario all have this length (Date is fixed-width). */
    static int firstResponseLength(InputStream in, int status) throws Exception {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        assertThat(text).startsWith("HTTP/1.1 " + status + " ");
        int at = text.toLowerCase().indexOf("content-length: ") + 16;
        int contentLength = Integer.parseInt(text.substring(at, text.indexOf('\r', at)));
        in.readNBytes(contentLength);
        return head.size() + contentLength;
    }

    static void h1Run(InputStream in, OutputStream out, byte[][] batches, byte[] answers, int length, int status, int requests)
            throws Exception {
        byte s0 = (byte) ('0' + status / 100);
        byte s1 = (byte) ('0' + status / 10 % 10);
        byte s2 = (byte) ('0' + status % 10);
        for (int sent = 0, i = 0; sent < requests; sent += PIPELINE, i++) {
            out.write(batches[i % batches.length]);
            out.flush();
            int n = in.readNBytes(answers, 0, answers.length);
            if (n != answers.length) {
                throw new AssertionError("connection ended after " + sent + " requests");
            }
            for (int k = 0; k < PIPELINE; k++) {
                int at = k * length + 9;
                if (answers[at] != s0 || answers[at + 1] != s1 || answers[at + 2] != s2) {
                    throw new AssertionError("request " + (sent + k) + ": " + new String(answers, k * length, 12, StandardCharsets.ISO_8859_1));
                }
            }
        }
    }

    // ---- HTTP/2: pre-built headers, IN_FLIGHT streams at a time ----

    public static Http2Headers[] h2Requests(String path) {
        Http2Headers[] requests = new Http2Headers[64 * PIPELINE];
        for (int n = 0; n < requests.length; n++) {
            Http2Headers h = new DefaultHttp2Headers().method("GET").scheme("https")
                    .authority("www." + HOSTS[n % HOSTS.length])
                    .path(path + "/" + (n % 37) + "/item.js?v=" + n + "&utm_source=x" + (n % 5));
            for (String line : CHROME_HEADERS) {
                int colon = line.indexOf(':');
                h.add(line.substring(0, colon).toLowerCase(), line.substring(colon + 2));
            }
            requests[n] = h;
        }
        return requests;
    }

    public static void h2Run(H2Client c, Http2Headers[] requests, int status, int count) throws Exception {
        c.sendAll(requests, status, count, IN_FLIGHT);
    }

    static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static long totalAllocated() {
        return THREADS.getTotalThreadAllocatedBytes();
    }

    public static void report(String what, GateMeter meter, long[] allocated, String settling) {
        System.out.printf("%-36s gate: %s; settling rounds of %,d (bytes/non-zero requests): [%s]; "
                + "whole process incl. the in-JVM test client: %,d B/request; server event loops: %,d B in all, %,d B/request%n",
                what, meter, WARM_UP, settling, allocated[0] / MEASURED, allocated[1], allocated[1] / MEASURED);
    }
}
