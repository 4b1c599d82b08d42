package io.paduraksa.policy;

import io.paduraksa.testing.TestPolicyInput;
import io.paduraksa.testing.AllocationAssert;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class UserAgentPolicyAllocationTest {

    private static final List<String> NEEDLES = List.of(
            "sqlmap", "nikto", "masscan", "zgrab", "curl/", "wget/", "python-requests", "python-urllib", "go-http-client",
            "libwww-perl", "nmap", "nuclei", "dirbuster", "gobuster", "wpscan", "acunetix", "netsparker", "nessus",
            "openvas", "w3af", "havij", "jorgee", "zmeu", "httpx", "fuzz faster", "feroxbuster", "censysinspect",
            "semrush", "mj12bot", "petalbot");
    private static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/126.0.0.0 Safari/537.36";
    private static final String SCANNER = "Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)";

    /** The gate's request state: a reused object handing out the header it holds. */
    static final class Request extends TestPolicyInput {
        final UserAgentPolicy policy;
        long sink;

        Request(UserAgentPolicy policy, CharSequence userAgent) {
            this.policy = policy;
            userAgent(userAgent);
        }

        void run() {
            sink += policy.evaluate(this).action().ordinal();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"chrome, CONTINUE", "scanner, DROP", "absent, DROP"})
    void evaluatesWithoutAllocating(String kind, String expected) {
        UserAgentPolicy policy = new UserAgentPolicy("bad-bots", NEEDLES, true, PolicyDecision.DROP);
        String ua = switch (kind) {
            case "chrome" -> CHROME;
            case "scanner" -> SCANNER;
            default -> null;
        };
        Request string = new Request(policy, ua);
        Request ascii = new Request(policy, ua == null ? null : new AsciiString(ua));
        assertThat(policy.evaluate(string).toString()).isEqualTo(expected);
        assertThat(policy.evaluate(ascii).toString()).isEqualTo(expected);
        AllocationAssert.assertZero("user agent " + kind + " (String)", string, Request::run);
        AllocationAssert.assertZero("user agent " + kind + " (AsciiString)", ascii, Request::run);
    }
}
