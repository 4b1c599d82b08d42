package io.paduraksa.proxy.balance;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AffinityCookieTest {
    private static final String[] URLS = {"http://192.0.2.10:8080", "http://192.0.2.11:8080", "https://app.example"};
    private static final AffinityCookie COOKIE = new AffinityCookie("pdk", URLS, "app");

    /** {@code T0}..{@code T2} stand for the tokens of destinations 0..2; {@code |} separates cookies for readability only. */
    @ParameterizedTest(name = "[{index}] {0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "pdk=T0                                 | 0",
        "pdk=T1                                 | 1",
        "a=b; pdk=T2                            | 2",
        "a=b;pdk=T2                             | 2",
        "a=b; pdk=T1; c=d                       | 1",
        "pdk=\"T1\"                             | 1",
        "pdk=T1 ; c=d                           | 1",
        "pdk=UPPER0                             | 0",
        "pdk=0123456789abcdef                   | -1",
        "pdk=nothex0000000000                   | -1",
        "pdk=T1x                                | -1",
        "pdk=                                   | -1",
        "pdk                                    | -1",
        "''                                     | -1",
        ";;;                                    | -1",
        "PDK=T0                                 | -1",
        "xpdk=T0                                | -1",
        "pdkx=T0                                | -1",
        "a=pdk=T0                               | -1",
        "pdk=0123456789abcdef; pdk=T2           | 2",
        "pdk=T0; pdk=T2                         | 0",
        "pdk=\"T1                               | -1",
    })
    void findsTheDestinationNamedByTheCookie(String header, int expected) {
        String h = header.strip()
                .replace("UPPER0", token(0).toUpperCase())
                .replace("T0", token(0)).replace("T1", token(1)).replace("T2", token(2));
        assertThat(COOKIE.find(h)).isEqualTo(expected);
        assertThat(COOKIE.find(new AsciiString(h))).isEqualTo(expected);
        String padded = "zz" + h + "yy";
        if (expected >= 0 && !h.endsWith("\"")) {
            // Range variant: only [from, to) is read.
            assertThat(COOKIE.find(padded, 2, 2 + h.length())).isEqualTo(expected);
        }
    }

    @Test
    void tokenFollowsTheDestinationNotItsPosition() {
        AffinityCookie reordered = new AffinityCookie("pdk", new String[] {URLS[2], "http://192.0.2.99", URLS[0]}, "app");
        assertThat(reordered.find("pdk=" + token(0))).isEqualTo(2);
        assertThat(reordered.find("pdk=" + token(2))).isZero();
        assertThat(reordered.find("pdk=" + token(1))).isEqualTo(-1);
    }

    @Test
    void otherClusterGivesOtherTokens() {
        AffinityCookie other = new AffinityCookie("pdk", URLS, "billing");
        assertThat(other.setCookieLine(0)).isNotEqualTo(COOKIE.setCookieLine(0));
        assertThat(other.find("pdk=" + token(0))).isEqualTo(-1);
    }

    @Test
    void setCookieIsPrecomputed() {
        String t = token(1);
        assertThat(t).matches("[0-9a-f]{16}");
        assertThat(new String(COOKIE.setCookieLine(1), US_ASCII))
                .isEqualTo("Set-Cookie: pdk=" + t + "; Path=/; HttpOnly; SameSite=Lax\r\n");
        assertThat(COOKIE.setCookieLine(1)).isSameAs(COOKIE.setCookieLine(1));
    }

    @Test
    void tokenIsStableAcrossBuilds() {
        // Fixed value: a change here logs every user out of their destination after an upgrade.
        assertThat(token(0)).isEqualTo("83ec0301819f4989");
        assertThat(AffinityCookie.hex(0x0fL)).isEqualTo("000000000000000f");
        assertThat(AffinityCookie.token("ab", "c")).isNotEqualTo(AffinityCookie.token("a", "bc"));
    }

    @Test
    void cookieNameMustBeAToken() {
        assertThatThrownBy(() -> new AffinityCookie("a b", URLS, "app")).hasMessageContaining("is not an HTTP token");
        assertThatThrownBy(() -> new AffinityCookie("", URLS, "app")).hasMessageContaining("is not an HTTP token");
        assertThatThrownBy(() -> new AffinityCookie("a=b", URLS, "app")).hasMessageContaining("is not an HTTP token");
    }

    @Test
    void sameKeyTwiceSharesItsToken() {
        AffinityCookie dup = new AffinityCookie("pdk", new String[] {URLS[0], URLS[0]}, "app");
        assertThat(dup.find("pdk=" + token(0))).isZero();
    }

    private static String token(int destination) {
        String line = new String(COOKIE.setCookieLine(destination), US_ASCII);
        return line.substring("Set-Cookie: pdk=".length(), line.indexOf(';'));
    }
}
