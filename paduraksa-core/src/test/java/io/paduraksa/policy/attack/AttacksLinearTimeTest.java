package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.paduraksa.policy.BodyScan;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.TestPolicyInput;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * No input makes a request slow: ReDoS classics and adversarial bytes at 256 KiB, 512 KiB and 1 MiB
 * take time linear in their length (a ratio bound after warm-up, far from the 16x a quadratic scan
 * would take, and a generous cost per byte; thread CPU time, so the shared machine's other processes
 * count little). Paranoia 4 and an unreachable threshold, so every rule runs and nothing stops early.
 */
class AttacksLinearTimeTest {
    private static final int KIB = 1024;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final AttacksPolicy EVERY_RULE = new AttacksPolicy("waf", 4, 1_000_000, true, true, true,
            List.of("User-Agent", "Referer"), false, List.of(), PolicyDecision.DROP);
    private static final AttacksPolicy EVERY_BODY = new AttacksPolicy("waf", 4, 1_000_000, true, true, true,
            List.of("User-Agent", "Referer"), false, List.of(), PolicyDecision.DROP, 2 * 1024 * KIB, false, TimeUnit.SECONDS.toNanos(10),
            1024);

    /** Only the other header fields ({@code all_headers}), so the time measured is theirs. */
    private static final AttacksPolicy EVERY_HEADER = new AttacksPolicy("waf", 4, 1_000_000, false, false, false, List.of(), true,
            false, List.of(), PolicyDecision.DROP, 0, false, 0, 0);

    /** {@code (a+)+$}, {@code (a|aa)+$}, {@code (.*a){x}} inputs: a long run of one letter and a mismatch at the end. */
    @Test
    void redosClassicsTakeLinearTime() {
        assertLinear("a...a!", n -> "a".repeat(n - 1) + "!");
        assertLinear("<<<...", n -> "<".repeat(n));
        assertLinear("${${${...", n -> "${".repeat(n / 2));
        assertLinear("' or ' or ...", n -> "' or ".repeat(n / 5));
        assertLinear("union union ...", n -> "union ".repeat(n / 6));
        assertLinear("/*/*/*...", n -> "/*".repeat(n / 2));
        assertLinear("%25%25%25...", n -> "%25".repeat(n / 3));
        assertLinear("&#&#&#... (encoded: & splits parameters)", n -> "%26%23".repeat(n / 6));
        // The gap rules added after CRS 932140, 933180, 933210 and 941170: every prefix opens a gap that never closes.
        assertLinear("for /f for /f ... (cmdLine)", n -> "for+/f+%25a+in(".repeat(n / 15));
        assertLinear("if ( if ( ... (cmdLine)", n -> "if+(+not+".repeat(n / 9));
        assertLinear("$a[$a[$a[...", n -> "$a[{".repeat(n / 4));
        assertLinear("((((...", n -> "(".repeat(n));
        assertLinear("javascript:javascript:...", n -> "javascript:".repeat(n / 11));
    }

    /** Seeded random bytes over the characters and keywords the rules look for: near misses everywhere. */
    @Test
    void adversarialBytesTakeLinearTime() {
        String[] tokens = {"<", ">", "'", "\"", "(", ")", "/*", "*/", "--", "#", ";", "=", "%", "%u", "&#", "$", "{", "}", "\\",
            "|", "`", "..", "/", "on", "script", "union", "select", "from", "or", "and", "sleep", "${jndi", "<?", "php:", "etc",
            "passwd", " ", "+", "a", "1", "%0a", "&lt;", "java.lang", "eval", "for", "/f", "if", "not", "exist", "in(", "do", "^",
            ",", "$_", "[", "]", "string", "javascript:", "name", "~", "http/1", "get "};
        assertLinear("random tokens", n -> {
            Random random = new Random(17);
            StringBuilder b = new StringBuilder(n + 16);
            while (b.length() < n) {
                b.append(tokens[random.nextInt(tokens.length)]);
            }
            return b.substring(0, n);
        });
        assertLinear("random bytes", n -> {
            Random random = new Random(42);
            char[] c = new char[n];
            for (int i = 0; i < n; i++) {
                c[i] = (char) (0x20 + random.nextInt(0x5F));
            }
            return new String(c);
        });
    }

    /** The rules every header runs with {@code all_headers}: near misses of the Java, traversal and PHP-object rules in one field. */
    @Test
    void adversarialHeadersTakeLinearTime() {
        String[] tokens = {"java.", "lang.", "runtime", "processbuilder", "${", "jndi:", "${${", "..", "/", "\\", "%2e", "o:", "1:",
            "\"", ":{", "() {", "class.", "classloader", ".getclass(", "com.", "sun.", "org.", "apache.", "ro0ab", "aced", " ", "a"};
        IntFunction<String> input = n -> {
            Random random = new Random(23);
            StringBuilder b = new StringBuilder(n + 16);
            while (b.length() < n) {
                b.append(tokens[random.nextInt(tokens.length)]);
            }
            return b.substring(0, n);
        };
        assertLinear("random tokens in a header", EVERY_HEADER, value -> {
            TestPolicyInput r = new TestPolicyInput().path("/s");
            r.target("/s");
            r.header("X-Data", value);
            return r;
        }, input);
        assertLinear("${${${... in a header", EVERY_HEADER, value -> {
            TestPolicyInput r = new TestPolicyInput().path("/s");
            r.target("/s");
            r.header("X-Data", value);
            return r;
        }, n -> "${".repeat(n / 2));
    }

    /**
     * Bodies whose framing is the adversary: a multipart part full of near-delimiters (CR LF and the
     * boundary but its last byte), and XML whose every byte is a tag, attribute or comment boundary.
     */
    @Test
    void adversarialMultipartAndXmlBodiesTakeLinearTime() {
        String near = "\r\n------WebKitFormBoundaryx1y";
        String type = "multipart/form-data; boundary=----WebKitFormBoundaryx1y2";
        assertLinearBody("multipart near-delimiters", type, n -> "------WebKitFormBoundaryx1y2\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n"
                + near.repeat(n / near.length()) + "\r\n------WebKitFormBoundaryx1y2--");
        String field = "------WebKitFormBoundaryx1y2\r\nContent-Disposition: form-data; name=\"a'\"\r\n\r\n' or 1=1\r\n";
        assertLinearBody("multipart, many small parts (bounded)", type, n -> field.repeat(n / field.length()) + "------WebKitFormBoundaryx1y2--");
        assertLinearBody("XML attributes and comments", "application/xml", n -> {
            String unit = "<a b='x' c=\"' or 1=1\"/><!-- - -><- --><b>' or 1=1 <![CDATA[ ]] ]>]]></b>";
            return "<r>" + unit.repeat(n / unit.length()) + "</r>";
        });
        assertLinearBody("XML DOCTYPE keywords", "application/xml", n -> {
            String unit = "<!ENTITY SYSTEM PUBLIC [ ] ";
            return "<!DOCTYPE r [" + unit.repeat(n / unit.length()) + "]><r/>";
        });
    }

    private static void assertLinearBody(String what, String type, IntFunction<String> input) {
        byte[] small = input.apply(256 * KIB).getBytes(StandardCharsets.UTF_8);
        byte[] medium = input.apply(512 * KIB).getBytes(StandardCharsets.UTF_8);
        byte[] large = input.apply(1024 * KIB).getBytes(StandardCharsets.UTF_8);
        long t256 = bestBody(type, small);
        long t512 = bestBody(type, medium);
        long t1024 = bestBody(type, large);
        System.out.printf("%s: 256 KiB %.1f ms, 512 KiB %.1f ms, 1 MiB %.1f ms (%.1f ns/B)%n", what, t256 / 1e6, t512 / 1e6,
                t1024 / 1e6, t1024 / (1024.0 * KIB));
        assertThat(t1024).as("%s: 1 MiB took %d ns, 256 KiB %d ns", what, t1024, t256).isLessThan(12 * t256);
        assertThat(t1024 / (1024.0 * KIB)).as("%s: ns per byte at 1 MiB", what).isLessThan(1_000.0);
        assertThat(lastBodyBytes).as("bytes fed").isGreaterThan(900 * KIB);
    }

    private static long lastBodyBytes;

    /** The least thread CPU time of 3 body phases over {@code body} (one chunk); the first run warms up. */
    private static long bestBody(String type, byte[] body) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            TestPolicyInput r = new TestPolicyInput().path("/upload");
            r.target("/upload");
            r.method("POST");
            r.header("Content-Type", type);
            r.hasBody(true);
            long t = THREADS.getCurrentThreadCpuTime();
            assertThat(EVERY_BODY.evaluate(r)).isSameAs(PolicyDecision.NEEDS_ASYNC);
            BodyScan scan = EVERY_BODY.startBody(r, Long.MAX_VALUE);
            if (scan.feed(Unpooled.wrappedBuffer(body)) == null) {
                scan.end();
            }
            lastBodyBytes = ((BodyScanner) scan).inspection().inspectedBytes;
            scan.release();
            long took = THREADS.getCurrentThreadCpuTime() - t;
            best = i == 0 ? best : Math.min(best, took);
        }
        return best;
    }

    private static void assertLinear(String what, IntFunction<String> input) {
        assertLinear(what, EVERY_RULE, AttacksLinearTimeTest::request, input);
    }

    private static void assertLinear(String what, AttacksPolicy policy, Function<String, TestPolicyInput> request,
            IntFunction<String> input) {
        TestPolicyInput small = request.apply(input.apply(256 * KIB));
        TestPolicyInput medium = request.apply(input.apply(512 * KIB));
        TestPolicyInput large = request.apply(input.apply(1024 * KIB));
        policy.evaluate(small);
        policy.evaluate(medium);
        policy.evaluate(large);
        long t256 = best(policy, small);
        long t512 = best(policy, medium);
        long t1024 = best(policy, large);
        System.out.printf("%s: 256 KiB %.1f ms, 512 KiB %.1f ms, 1 MiB %.1f ms (%.1f ns/B)%n", what, t256 / 1e6, t512 / 1e6,
                t1024 / 1e6, t1024 / (1024.0 * KIB));
        // Linear is 4x from 256 KiB to 1 MiB; quadratic would be 16x (and backtracking far more). The
        // bound leaves room for 1 MiB no longer fitting the caches that 256 KiB fits (8.5x seen on CI
        // with another build on the other core), and the cost per byte must stay far below what any
        // superlinear scan of 1 MiB would take: a quadratic one is milliseconds per byte. Seen per byte at 1 MiB:
        // 7-112 ns for the repeated and token inputs, 100-228 ns for random bytes (the slowest in a clean
        // CI run), so the bound is 1 us/B; the ratio above is the linearity check.
        assertThat(t1024).as("%s: 1 MiB took %d ns, 256 KiB %d ns", what, t1024, t256).isLessThan(12 * t256);
        assertThat(t1024 / (1024.0 * KIB)).as("%s: ns per byte at 1 MiB", what).isLessThan(1_000.0);
        assertThat(AttacksPolicy.inspectedBytesOnThisThread()).as("bytes inspected").isGreaterThan(900 * KIB);
    }

    private static TestPolicyInput request(String value) {
        TestPolicyInput r = new TestPolicyInput().path("/s");
        r.target("/s?q=" + value);
        return r;
    }

    /** The least thread CPU time of 3 runs: other processes on the shared machine do not count. */
    private static long best(AttacksPolicy policy, TestPolicyInput request) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long t = THREADS.getCurrentThreadCpuTime();
            policy.evaluate(request);
            best = Math.min(best, THREADS.getCurrentThreadCpuTime() - t);
        }
        return best;
    }
}
