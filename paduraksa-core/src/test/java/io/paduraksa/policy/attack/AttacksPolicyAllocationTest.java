package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class AttacksPolicyAllocationTest {

    static final class Request extends TestPolicyInput {
        final AttacksPolicy policy;
        long decisions;
        long inspected;

        Request(AttacksPolicy policy) {
            this.policy = policy;
        }

        void run() {
            decisions += policy.evaluate(this).action().ordinal();
            inspected += AttacksPolicy.inspectedBytesOnThisThread();
        }
    }

    /** A browser's request: every default part is inspected (path, 4 query parameters, 3 cookies, User-Agent, Referer). */
    @ParameterizedTest(name = "paranoia {0}")
    @CsvSource({"1", "2", "4"})
    void aCleanBrowserRequestAllocatesNothing(int paranoia) {
        AttacksPolicy policy = new AttacksPolicy("waf", paranoia, 5, true, true, true, List.of("User-Agent", "Referer"), false,
                List.of(new AttackExclusion(List.of(942100), List.of("q"), List.of("/search"))), PolicyDecision.DROP);
        Request r = new Request(policy);
        r.path("/search/results");
        r.target("/search/results?q=red+running+shoes&size=42&sort=price-asc&page=2");
        r.header("User-Agent", new AsciiString("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"));
        r.header("Referer", new AsciiString("https://shop.example.test/search?q=red+shoes"));
        r.header("Cookie", new AsciiString("_ga=GA1.2.1234567890.1700000000; theme=dark; session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ"));
        assertThat(policy.evaluate(r)).isSameAs(PolicyDecision.CONTINUE);
        long perRequest = AttacksPolicy.inspectedBytesOnThisThread();
        assertThat(perRequest).as("bytes inspected per request").isGreaterThan(250);

        // 30k warm-up calls reach C2 (10k); 3 rounds of 5 x 5k counted calls: under 10 s for the three levels.
        AllocationAssert.assertZero("clean request at paranoia " + paranoia, r, Request::run, 30_000, 5_000);

        assertThat(r.decisions).as("every verdict was CONTINUE").isZero();
        assertThat(r.inspected).as("every run inspected the request").isGreaterThanOrEqualTo(perRequest * 5_000);
    }

    /**
     * The same with {@code all_headers}: Chrome's other header fields (Accept, Sec-Ch-Ua, Sec-Fetch-*,
     * ...) are listed and each walked by the rules CRS applies to every header.
     */
    @ParameterizedTest(name = "paranoia {0}")
    @CsvSource({"1", "2"})
    void aCleanBrowserRequestWithAllHeadersAllocatesNothing(int paranoia) {
        AttacksPolicy policy = new AttacksPolicy("waf", paranoia, 5, true, true, true, List.of("User-Agent", "Referer"), true, false,
                List.of(), PolicyDecision.DROP, 0, false, 0, 0);
        Request r = new Request(policy);
        r.path("/search/results");
        r.target("/search/results?q=red+running+shoes&size=42&sort=price-asc&page=2");
        r.header("Host", new AsciiString("shop.example.test"));
        r.header("User-Agent", new AsciiString("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"));
        r.header("Accept", new AsciiString("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"));
        r.header("Accept-Language", new AsciiString("id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7"));
        r.header("Accept-Encoding", new AsciiString("gzip, deflate, br, zstd"));
        r.header("Sec-Ch-Ua", new AsciiString("\"Not/A)Brand\";v=\"8\", \"Chromium\";v=\"126\", \"Google Chrome\";v=\"126\""));
        r.header("Sec-Ch-Ua-Mobile", new AsciiString("?0"));
        r.header("Sec-Ch-Ua-Platform", new AsciiString("\"Linux\""));
        r.header("Sec-Fetch-Dest", new AsciiString("document"));
        r.header("Sec-Fetch-Mode", new AsciiString("navigate"));
        r.header("Sec-Fetch-Site", new AsciiString("same-origin"));
        r.header("Upgrade-Insecure-Requests", new AsciiString("1"));
        r.header("Referer", new AsciiString("https://shop.example.test/search?q=red+shoes"));
        r.header("Cookie", new AsciiString("_ga=GA1.2.1234567890.1700000000; theme=dark; session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ"));
        assertThat(policy.evaluate(r)).isSameAs(PolicyDecision.CONTINUE);
        long perRequest = AttacksPolicy.inspectedBytesOnThisThread();
        assertThat(perRequest).as("bytes inspected per request, the other headers among them").isGreaterThan(450);

        AllocationAssert.assertZero("clean request with all headers at paranoia " + paranoia, r, Request::run, 30_000, 5_000);

        assertThat(r.decisions).as("every verdict was CONTINUE").isZero();
        assertThat(r.inspected).as("every run inspected the request").isGreaterThanOrEqualTo(perRequest * 5_000);
    }

    /**
     * Values the thread has not seen (a fresh query, cookie and Referer in every request, 4,096 in
     * turn: more than {@link CleanValues} holds) are walked, not answered from its memo; that path
     * allocates nothing either.
     */
    @ParameterizedTest(name = "paranoia {0}")
    @CsvSource({"1", "2"})
    void freshValuesInEveryRequestAllocateNothing(int paranoia) {
        AttacksPolicy policy = new AttacksPolicy("waf", paranoia, 5, true, true, true, List.of("User-Agent", "Referer"), true, false,
                List.of(), PolicyDecision.DROP, 0, false, 0, 0);
        Request[] requests = new Request[4096];
        for (int i = 0; i < requests.length; i++) {
            Request r = new Request(policy);
            r.path("/search/results");
            r.target("/search/results?q=red+running+shoes+" + i + "&size=" + (i * 7 % 50) + "&page=" + i);
            r.header("User-Agent", new AsciiString("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" + i));
            r.header("Accept", new AsciiString("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0." + i));
            r.header("Referer", new AsciiString("https://shop.example.test/search?q=red+shoes&n=" + i));
            r.header("Cookie", new AsciiString("_ga=GA1.2.1234567890." + (1700000000 + i) + "; theme=dark; n=" + i));
            assertThat(policy.evaluate(r)).isSameAs(PolicyDecision.CONTINUE);
            requests[i] = r;
        }
        long[] next = {0};
        Runnable run = () -> requests[(int) (next[0]++ & (requests.length - 1))].run();

        AllocationAssert.assertZero("fresh values at paranoia " + paranoia, run, Runnable::run, 30_000, 5_000);

        long decisions = 0;
        for (Request r : requests) {
            decisions += r.decisions;
        }
        assertThat(decisions).as("every verdict was CONTINUE").isZero();
    }
}
