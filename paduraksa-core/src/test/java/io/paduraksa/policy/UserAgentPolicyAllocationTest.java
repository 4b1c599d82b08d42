package io.paduraksa.policy;

import io.paduraksa.testing.TestPolicyInput;
import io.paduraksa.testing.AllocationAssert;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
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
    static class Request extends TestPolicyInput {
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

    /**
     * Browsers of several kinds in turn, each unlike the last clean one, so that each is answered by the memo
     * (kept after its first two scans), not by the neighbour window.
     */
    @Test
    void agentsAnsweredByTheMemoAllocateNothing() {
        UserAgentPolicy policy = new UserAgentPolicy("bad-bots", NEEDLES, true, PolicyDecision.DROP);
        AsciiString[] agents = {new AsciiString(CHROME), new AsciiString(SCANNER),
            new AsciiString("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"),
            new AsciiString("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                    + "Version/17.1 Mobile/15E148 Safari/604.1")};
        Request request = inTurn(policy, agents);
        AllocationAssert.assertZero("browsers of several kinds in turn", request, Request::run);
    }

    /**
     * A new agent in every call (1,024 Chrome versions, more than the memo's slots, and a scanner's agent now
     * and then): the memo misses, and the scan runs where each differs from the last clean one.
     */
    @Test
    void aNewAgentInEveryCallAllocatesNothing() {
        UserAgentPolicy policy = new UserAgentPolicy("bad-bots", NEEDLES, true, PolicyDecision.DROP);
        AsciiString[] agents = new AsciiString[1_024];
        for (int i = 0; i < agents.length; i++) {
            agents[i] = new AsciiString(i % 100 == 7 ? SCANNER + " " + i : CHROME.replace("126.0.0.0", "126.0." + i / 32 + "." + i % 32));
        }
        Request request = inTurn(policy, agents);
        assertThat(policy.evaluate(new Request(policy, agents[7]))).isEqualTo(PolicyDecision.DROP);
        assertThat(policy.evaluate(new Request(policy, agents[8]))).isEqualTo(PolicyDecision.CONTINUE);
        AllocationAssert.assertZero("a new user agent in every call", request, Request::run);
    }

    /** A request whose agent is the next of {@code agents} (a power of two of them) at every run. */
    private static Request inTurn(UserAgentPolicy policy, AsciiString[] agents) {
        return new Request(policy, agents[0]) {
            int next;

            @Override
            void run() {
                userAgent(agents[next++ & agents.length - 1]);
                super.run();
            }
        };
    }
}
