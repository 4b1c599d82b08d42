package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UserAgentPolicyTest {

    static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/126.0.0.0 Safari/537.36";
    static final List<String> SCANNERS = List.of("sqlmap", "nikto", "masscan", "zgrab", "curl/", "python-requests",
            "Go-http-client");

    /** The gate's request state, reduced to what this policy reads. */
    static final class Request implements PolicyInput {
        private static final AsciiString USER_AGENT = AsciiString.of("user-agent");
        CharSequence userAgent;

        Request(CharSequence userAgent) {
            this.userAgent = userAgent;
        }

        @Override public long clientIpHigh() { return 0; }
        @Override public long clientIpLow() { return 0; }
        @Override public byte[] path() { return new byte[] {'/'}; }
        @Override public int pathLength() { return 1; }
        @Override public CharSequence method() { return "GET"; }

        @Override
        public CharSequence header(AsciiString lowerCaseName) {
            return USER_AGENT.contentEquals(lowerCaseName) ? userAgent : null;
        }
    }

    private final UserAgentPolicy policy = new UserAgentPolicy("bad-bots", SCANNERS, false, PolicyDecision.DROP);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "sqlmap/1.7.2#stable (https://sqlmap.org)|DROP",
        "Mozilla/5.00 (Nikto/2.1.6) (Evasions:None) (Test:Port Check)|DROP",
        "masscan/1.3 (https://github.com/robertdavidgraham/masscan)|DROP",
        "Mozilla/5.0 zgrab/0.x|DROP",
        "curl/8.5.0|DROP",
        "CURL/8.5.0|DROP",
        "python-requests/2.31.0|DROP",
        "Go-http-client/1.1|DROP",
        "go-HTTP-client/2.0|DROP",
        "xxsqlmapxx|DROP",
        "sqlma|CONTINUE",
        "curl|CONTINUE",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36|CONTINUE",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)|CONTINUE",
    })
    void deniesWhenANeedleOccurs(String userAgent, String expected) {
        assertThat(policy.evaluate(new Request(userAgent)).toString()).isEqualTo(expected);
        assertThat(policy.evaluate(new Request(new AsciiString(userAgent))).toString()).isEqualTo(expected);
    }

    @Test
    void missingOrEmptyUserAgentIsDeniedOnlyWhenAsked() {
        UserAgentPolicy strict = new UserAgentPolicy("strict", SCANNERS, true, PolicyDecision.DROP);
        assertThat(policy.evaluate(new Request(null))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(new Request(""))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(strict.evaluate(new Request(null))).isSameAs(PolicyDecision.DROP);
        assertThat(strict.evaluate(new Request(AsciiString.EMPTY_STRING))).isSameAs(PolicyDecision.DROP);
        assertThat(strict.evaluate(new Request(CHROME))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(strict.evaluate(new Request("nikto"))).isSameAs(PolicyDecision.DROP);
    }

    @Test
    void noNeedlesDeniesNothingButMayStillDenyEmpty() {
        UserAgentPolicy onlyEmpty = new UserAgentPolicy("ua-required", List.of(), true, PolicyDecision.DROP);
        assertThat(onlyEmpty.evaluate(new Request("sqlmap"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(onlyEmpty.evaluate(new Request(null))).isSameAs(PolicyDecision.DROP);
    }

    @Test
    void overlappingNeedlesAreAllFound() {
        // Classic Aho-Corasick shapes: needles inside needles and shared suffixes, where only failure links find the match.
        UserAgentPolicy p = new UserAgentPolicy("overlap", List.of("he", "she", "his", "hers", "abcd", "bc"), false,
                PolicyDecision.DROP);
        for (String hit : List.of("ushers", "xhe", "xxhis", "abc", "abx bc", "aabcd", "sHe")) {
            assertThat(p.matches(hit)).as(hit).isTrue();
        }
        for (String miss : List.of("hx", "s h e", "ab cd", "hi", "")) {
            assertThat(p.matches(miss)).as(miss).isFalse();
        }
    }

    @Test
    void nonAsciiNeedlesMatchTheirUtf8Bytes() {
        UserAgentPolicy p = new UserAgentPolicy("utf8", List.of("Bötchen"), false, PolicyDecision.DROP);
        String headerBytes = new String("x BÖTCHEN bötchen/1".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        assertThat(p.matches(headerBytes)).isTrue();
        // Only ASCII letters fold: Ö (C3 96) is not ö (C3 B6).
        String upper = new String("BÖTCHEN".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        assertThat(p.matches(upper)).isFalse();
        assertThat(p.matches("b\u00f6tchen")).as("a char per byte, not a decoded String").isFalse();
        assertThat(p.matches("b\u0100tchen")).isFalse();
    }

    @Test
    void emptyOrNullNeedlesAreRejected() {
        assertThatThrownBy(() -> new UserAgentPolicy("bots", List.of("sqlmap", ""), false, PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("user_agent policy 'bots': deny[1] is empty (expected a non-empty substring such as 'sqlmap')");
        assertThatThrownBy(() -> new UserAgentPolicy("bots", Arrays.asList("a", null), false, PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deny[1] is empty");
        assertThatThrownBy(() -> new UserAgentPolicy("bots", List.of("a"), false, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void describesItself() {
        assertThat(policy.name()).isEqualTo("bad-bots");
        assertThat(policy.toString()).startsWith("UserAgentPolicy[bad-bots, 7 needles, ").endsWith(" -> DROP]");
    }

    /** Random needles and user agents over a small alphabet (so that matches are common), against a naive search. */
    @Test
    void agreesWithANaiveSearch() {
        char[] alphabet = "aAbBcC/ .-".toCharArray();
        SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 3_000; round++) {
            List<String> needles = new ArrayList<>();
            for (int k = 1 + random.nextInt(8); k > 0; k--) {
                needles.add(randomString(random, alphabet, 1 + random.nextInt(5)));
            }
            UserAgentPolicy p = new UserAgentPolicy("random", needles, false, PolicyDecision.DROP);
            for (int u = 0; u < 30; u++) {
                String ua = randomString(random, alphabet, random.nextInt(24));
                boolean expected = false;
                for (String needle : needles) {
                    expected |= ua.toLowerCase(Locale.ROOT).contains(needle.toLowerCase(Locale.ROOT));
                }
                if (p.matches(ua) != expected) {
                    assertThat(p.matches(ua)).as("'%s' against %s", ua, needles).isEqualTo(expected);
                }
            }
        }
    }

    private static String randomString(SplittableRandom random, char[] alphabet, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return new String(chars);
    }
}
