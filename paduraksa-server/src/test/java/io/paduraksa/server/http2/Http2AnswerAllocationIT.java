package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.testing.TestServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Everything the server's event-loop threads allocate per gate-answered HTTP/2 request (decoding,
 * stream bookkeeping, gate, answer, flush), over ONE h2c connection with {@value #IN_FLIGHT} streams
 * in flight and browser-like request headers, after a warm-up: 0 B per request, at most
 * {@value #LOOP_BYTES} B over all {@value #MEASURED} counted requests together (Netty's pools
 * refilling now and then, as on HTTP/1.1: {@code GateAllocationIT}).
 *
 * <p>On Netty's {@code Http2ConnectionHandler} this was 2,426 B per request (200 with a 30 B body,
 * JFR, 2026-12-01: request header objects ~1,060 B, stream state ~430 B, frame reading ~140 B,
 * promises and flow-controlled DATA ~730 B). On our codec ({@code io.paduraksa.http2.Http2Connection})
 * the last 40-80 B per read batch were Netty's {@code IdleStateHandler}, which turns every write's
 * void promise into a real one with a listener; the handler keeps its own idle clock instead.
 *
 * <p>Run with {@code -XX:-UseTLAB} (for example
 * {@code -Dpaduraksa.test.jvm="-Xss1m --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:-UseTLAB"})
 * and every allocation becomes a JFR {@code jdk.ObjectAllocationOutsideTLAB} event: the test then
 * records the counted requests and prints the exact breakdown (class, bytes per request, allocating
 * frames) of the server's event-loop threads.
 */
@Tag("allocation")
public class Http2AnswerAllocationIT {
    public static final int WARM_UP = 30_000;
    public static final int MEASURED = 10_000;
    public static final int IN_FLIGHT = 50;
    /**
     * The most all counted requests together may allocate on the server's loops: twice HTTP/1.1's
     * bound, under 1 B per request. Most runs measure 0 B; one run in about ten under load 7 measured
     * 4,608 B over the 10,000 (one refill of a pool's cache, not a per-request cost).
     */
    public static final long LOOP_BYTES = 8_192;

    static final String YAML = TestServer.EPOLL + """
            listeners:
              - {name: h2, address: "127.0.0.1:0", protocols: [h2c]}
            client_ip:
              trusted_proxies: [127.0.0.1/32]
              header: CF-Connecting-IP
            policies:
              bad-bots: {type: user_agent, deny: [sqlmap, nikto, masscan]}
              blocklist: {type: ip, deny: [198.51.100.0/24, "2001:db8:bad::/48"]}
              no-admin: {type: path, deny: [/admin]}
            hosts:
              - names: [a.test, "*.a.test", shop.example, "*.shop.example"]
                policies: [bad-bots, blocklist]
                routes:
                  - {path: /static, respond: {status: 200, content_type: text/html, body: "<!doctype html><h1>hello</h1>\\n"}}
                  - {path: /old, redirect: {location: "/new", status: 301}}
                  - {path: /admin, policies: [no-admin], respond: {status: 200}}
                  - {path: /, respond: {status: 204}}
            default: {respond: {status: 421}}
            """;
    static final String[] HOSTS = {"www.a.test", "www.shop.example"};
    public static final String[][] CHROME_HEADERS = {
        {"sec-ch-ua", "\"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\""},
        {"sec-ch-ua-mobile", "?0"},
        {"sec-ch-ua-platform", "\"Linux\""},
        {"user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"},
        {"accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8"},
        {"sec-fetch-site", "same-origin"},
        {"sec-fetch-mode", "navigate"},
        {"sec-fetch-dest", "document"},
        {"accept-encoding", "gzip, deflate, br, zstd"},
        {"accept-language", "en-GB,en-US;q=0.9,en;q=0.8"},
        {"priority", "u=0, i"},
        {"cookie", "session=3f1c2a9be47d4c0f9a6e; theme=dark; consent=1; _ga=GA1.1.1234567890.1700000000"},
        {"cf-connecting-ip", "203.0.113.77"},
    };

    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @ParameterizedTest(name = "HTTP/2 {0}")
    @CsvSource({"200 with body, /static/app, 200", "204 without body, /index, 204",
        "301 redirect, /old/page, 301", "403 policy denial, /admin/users, 403"})
    void serverLoopBytesPerRequestAreZero(String what, String path, int status) throws Exception {
        try (H2Client c = H2Client.connect(server.port("h2"))) {
            Http2Headers[] requests = requests(path);
            c.sendAll(requests, status, WARM_UP, IN_FLIGHT);
            boolean exact = !useTlab();
            Recording jfr = exact ? startRecording() : null;
            long[] loops = serverLoopThreads();
            long total = countedRun(c, requests, status, what, loops);
            if (exact) {
                printBreakdown(what, jfr);
            } else {
                if (total > LOOP_BYTES) {
                    // A pool refill can land in one counted run on a loaded machine (8,632 B seen once in the
                    // cache-hit twin); anything per request repeats, so a second run must be within the bound too.
                    total = countedRun(c, requests, status, what, loops);
                }
                assertThat(total).as("server event-loop bytes over %,d HTTP/2 %s", MEASURED, what).isLessThanOrEqualTo(LOOP_BYTES);
            }
        }
    }

    /** One counted run of {@code MEASURED} requests; returns the server event loops' bytes over it. */
    private static long countedRun(H2Client c, Http2Headers[] requests, int status, String what, long[] loops) throws Exception {
        long before = sum(THREADS.getThreadAllocatedBytes(loops));
        c.sendAll(requests, status, MEASURED, IN_FLIGHT);
        long total = sum(THREADS.getThreadAllocatedBytes(loops)) - before;
        System.out.printf("HTTP/2 %-18s server event loops: %,d B/request (%,d B in all)%n", what, total / MEASURED, total);
        return total;
    }

    static Http2Headers[] requests(String path) {
        Http2Headers[] requests = new Http2Headers[512];
        for (int n = 0; n < requests.length; n++) {
            Http2Headers h = new DefaultHttp2Headers().method("GET").scheme("https")
                    .authority(HOSTS[n % HOSTS.length])
                    .path(path + "/" + (n % 37) + "/item.js?v=" + n + "&utm_source=x" + (n % 5));
            for (String[] header : CHROME_HEADERS) {
                h.add(header[0], header[1]);
            }
            requests[n] = h;
        }
        return requests;
    }

    public static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    static final String SERVER_LOOP = "multiThreadIoEventLoopGroup-";

    public static long[] serverLoopThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(SERVER_LOOP))
                .mapToLong(Thread::threadId).toArray();
    }

    public static long sum(long[] values) {
        long total = 0;
        for (long v : values) {
            total += Math.max(0, v);
        }
        return total;
    }

    static boolean useTlab() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return Boolean.parseBoolean(vm.getVMOption("UseTLAB").getValue());
    }

    static Recording startRecording() {
        Recording r = new Recording();
        r.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
        r.setToDisk(true);
        r.start();
        return r;
    }

    /** Aggregates the server loops' allocations by class and by class plus allocating frames. */
    static void printBreakdown(String what, Recording jfr) throws Exception {
        jfr.stop();
        Path file = Files.createTempFile("h2-alloc", ".jfr");
        try {
            jfr.dump(file);
            Map<String, long[]> byClass = new HashMap<>();
            Map<String, long[]> bySite = new HashMap<>();
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (e.getThread("eventThread") == null || !e.getThread("eventThread").getJavaName().startsWith(SERVER_LOOP)) {
                    continue;
                }
                long size = e.getLong("allocationSize");
                String type = e.getClass("objectClass").getName();
                add(byClass, type, size);
                add(bySite, type + " <- " + frames(e), size);
            }
            System.out.println("== " + what + ": bytes/request by class");
            print(byClass);
            System.out.println("== " + what + ": bytes/request by class and allocating frames");
            print(bySite);
        } finally {
            jfr.close();
            Files.deleteIfExists(file);
        }
    }

    static void add(Map<String, long[]> map, String key, long size) {
        long[] v = map.computeIfAbsent(key, k -> new long[2]);
        v[0] += size;
        v[1]++;
    }

    static String frames(RecordedEvent e) {
        StringBuilder b = new StringBuilder();
        List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
        int shown = 0;
        for (int i = 0; i < frames.size() && shown < 4; i++) {
            RecordedFrame f = frames.get(i);
            String type = f.getMethod().getType().getName();
            b.append(shown == 0 ? "" : " < ").append(type.substring(type.lastIndexOf('.') + 1)).append('.').append(f.getMethod().getName());
            shown++;
        }
        return b.toString();
    }

    static void print(Map<String, long[]> map) {
        map.entrySet().stream().sorted(Comparator.comparingLong((Map.Entry<String, long[]> en) -> -en.getValue()[0]))
                .limit(40)
                .forEach(en -> System.out.printf("  %8.1f B  %6.2f obj  %s%n", en.getValue()[0] / (double) MEASURED,
                        en.getValue()[1] / (double) MEASURED, en.getKey()));
    }
}
