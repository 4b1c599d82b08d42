package io.paduraksa.bench.policy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.attack.AttacksPolicy;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The {@code attacks} policy on a clean request shaped as the e2e harness's browser row (and the WAF
 * bench's cost row): path, a query, the harness's cookie, User-Agent and Referer, and with
 * {@code allHeaders} the other 10 Chrome-like header fields too. The control is the same request
 * with only the default parts, so the price of {@code inspect.all_headers} reads as a ratio; the
 * {@code values} parameter sets apart what the memo of clean values saves. Names and
 * values are {@link AsciiView}s over one pooled direct buffer, as the HTTP/1.1 request view hands them out.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class AttacksBenchmark {
    @Param({"1", "2"})
    int paranoia;

    @Param({"false", "true"})
    boolean allHeaders;

    /**
     * {@code repeated}: the same request every time (its values are answered from the thread's memo of
     * clean values after the first); {@code fresh}: 1,024 requests in turn whose path, query, cookie,
     * User-Agent, Referer and Accept-Language differ in every request (the memo mostly misses: the
     * price of a client that never repeats a value); {@code rows}: the WAF bench's cost rows (1,024 requests
     * in turn over four hosts: a Referer of its own in each, 64 paths and query values, four Accept
     * values, the rest the same), the mix of memo hits and walks the cost table measures.
     */
    @Param({"repeated", "fresh", "rows"})
    String values;

    private AttacksPolicy policy;
    private TestPolicyInput[] requests;
    private int next;
    private ByteBuf buffer;

    @Setup
    public void setUp() {
        policy = new AttacksPolicy("waf", paranoia, 5, true, true, true, List.of("User-Agent", "Referer"), allHeaders, false,
                List.of(), PolicyDecision.DROP, 0, false, 0, 0);
        buffer = PooledByteBufAllocator.DEFAULT.directBuffer(2 << 20);
        requests = new TestPolicyInput[values.equals("repeated") ? 1 : 1024];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = values.equals("rows") ? row(i) : request(values.equals("fresh") ? i : -1);
            if (!policy.evaluate(requests[i]).isContinue()) {
                throw new IllegalStateException("the clean request was denied: " + i);
            }
        }
        System.out.println("# bytes inspected per request: " + AttacksPolicy.inspectedBytesOnThisThread());
    }

    /** The browser row; {@code n >= 0}: with that number in each value that varies. */
    private TestPolicyInput request(int n) {
        String k = n < 0 ? "" : Integer.toString(n);
        TestPolicyInput r = new TestPolicyInput();
        r.path("/static/p17" + k);
        r.target("/static/p17" + k + "?from=3" + k + "&ref=home" + k);
        r.header("Host", view("h42.test"));
        r.header("sec-ch-ua", view("\"Google Chrome\";v=\"131\", \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\""));
        r.header("sec-ch-ua-mobile", view("?0"));
        r.header("sec-ch-ua-platform", view("\"Linux\""));
        r.header("user-agent", view(BenchFixtures.CHROME_UA + k));
        r.header("accept", view("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
                + "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"));
        r.header("sec-fetch-site", view("same-origin"));
        r.header("sec-fetch-mode", view("navigate"));
        r.header("sec-fetch-user", view("?1"));
        r.header("sec-fetch-dest", view("document"));
        r.header("referer", view("https://h42.test/page13?from=3" + k));
        r.header("accept-encoding", view("gzip, deflate, br, zstd"));
        r.header("accept-language", view("en-US,en;q=0.9,id;q=0.8" + (n < 0 ? "" : ",x" + k + ";q=0.1")));
        r.header("cookie", view("_ga=GA1.1.1234567890.17" + (n < 0 ? "00000000" : String.format("%08d", n))
                + "; session=3f9a1c2e7b5d4a60b8e1c9f2d3a4" + (n < 0 ? "b5c6" : String.format("%04x", n))
                + "; theme=dark; consent=analytics%3D1%26ads%3D0"));
        r.header("priority", view("u=0, i"));
        return r;
    }

    private static final String[] HOSTS = {"localhost", "www.shop.test", "news.example.test", "app.example.test"};
    private static final String[] ACCEPTS = {
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
            + "application/signed-exchange;v=b3;q=0.7",
        "text/css,*/*;q=0.1", "*/*", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"};

    /** Row {@code k} of the WAF bench's cost requests (paduraksa-bench/e2e/genconf.py's browser row, scenario static). */
    private TestPolicyInput row(int k) {
        String host = HOSTS[k % HOSTS.length];
        int p = k % 64;
        TestPolicyInput r = new TestPolicyInput();
        r.path("/static/asset" + p + ".css");
        r.target("/static/asset" + p + ".css?v=" + (1000 + p));
        r.header("Host", view(host));
        r.header("sec-ch-ua", view("\"Google Chrome\";v=\"131\", \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\""));
        r.header("sec-ch-ua-mobile", view("?0"));
        r.header("sec-ch-ua-platform", view("\"Linux\""));
        r.header("user-agent", view(BenchFixtures.CHROME_UA));
        r.header("accept", view(ACCEPTS[k % ACCEPTS.length]));
        r.header("sec-fetch-site", view("same-origin"));
        r.header("sec-fetch-mode", view("navigate"));
        r.header("sec-fetch-user", view("?1"));
        r.header("sec-fetch-dest", view("document"));
        r.header("referer", view("https://" + host + "/page" + (k * 13) % 97 + "?from=" + k % 7));
        r.header("accept-encoding", view("gzip, deflate, br, zstd"));
        r.header("accept-language", view("en-US,en;q=0.9,id;q=0.8"));
        r.header("cookie", view("_ga=GA1.1.1234567890.1700000000; session=3f9a1c2e7b5d4a60b8e1c9f2d3a4b5c6; "
                + "theme=dark; consent=analytics%3D1%26ads%3D0"));
        r.header("priority", view("u=0, i"));
        return r;
    }

    @TearDown
    public void tearDown() {
        buffer.release();
    }

    /** A view over {@code text} written at the end of the shared buffer. */
    private AsciiView view(String text) {
        int from = buffer.writerIndex();
        buffer.writeCharSequence(text, java.nio.charset.StandardCharsets.ISO_8859_1);
        return new AsciiView().point(buffer, from, buffer.writerIndex());
    }

    @Benchmark
    public PolicyDecision cleanBrowserRequest() {
        return policy.evaluate(requests[next++ & (requests.length - 1)]);
    }
}
