package io.paduraksa.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.testing.CompiledFixtures;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code response_headers} compiled into {@link ResponseHeaderRules}, and a host's merged over the defaults. */
class ResponseHeaderRulesTest {

    private static final String CONFIG = """
            clusters:
              app:
                destinations: [{url: "http://192.0.2.10:9001"}]
            forwarding:
              response_headers:
                set: {X-Frame-Options: DENY, Referrer-Policy: no-referrer, X-Content-Type-Options: nosniff}
                remove: [Server]
            hosts:
              - names: [plain.example.test]
                routes: [{path: /, forward: app}]
              - names: [strict.example.test]
                response_headers:
                  set: {Strict-Transport-Security: "max-age=31536000", x-frame-options: SAMEORIGIN}
                  remove: [X-Powered-By, Referrer-Policy]
                routes: [{path: /, forward: app}]
            """;

    private record Compiled(ResponseHeaderRules defaults, ResponseHeaderRules plain, ResponseHeaderRules strict) {
    }

    private static Compiled compiled() {
        Snapshot s = CompiledFixtures.compile("edge.yaml", CONFIG);
        try {
            return new Compiled(s.defaultResponseHeaders(), s.hostList().get(0).responseHeaders(), s.hostList().get(1).responseHeaders());
        } finally {
            s.release();
        }
    }

    private static String lines(ResponseHeaderRules r) {
        return new String(r.http1Lines(), StandardCharsets.US_ASCII);
    }

    @Test
    void defaultsAreWrittenInFileOrder() {
        ResponseHeaderRules d = compiled().defaults();

        assertThat(lines(d)).isEqualTo("X-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\n");
        assertThat(Arrays.stream(d.names()).map(AsciiString::toString))
                .containsExactly("x-frame-options", "referrer-policy", "x-content-type-options");
        assertThat(Arrays.stream(d.values()).map(AsciiString::toString)).containsExactly("DENY", "no-referrer", "nosniff");
    }

    @Test
    void aHostWithoutItsOwnSharesTheDefaults() {
        Compiled c = compiled();

        assertThat(c.plain()).isSameAs(c.defaults());
    }

    @Test
    void aHostSetReplacesTheDefaultOfTheSameNameAndItsRemoveDropsADefault() {
        ResponseHeaderRules strict = compiled().strict();

        // X-Frame-Options keeps the default's place with the host's value; Referrer-Policy is removed by the host.
        assertThat(lines(strict)).isEqualTo("X-Content-Type-Options: nosniff\r\n"
                + "Strict-Transport-Security: max-age=31536000\r\nx-frame-options: SAMEORIGIN\r\n");
        assertThat(Arrays.stream(strict.names()).map(AsciiString::toString))
                .containsExactly("x-content-type-options", "strict-transport-security", "x-frame-options");
        assertThat(Arrays.stream(strict.values()).map(AsciiString::toString))
                .containsExactly("nosniff", "max-age=31536000", "SAMEORIGIN");
    }

    @ParameterizedTest(name = "{0}: {1} -> default {2}, strict {3}")
    @CsvSource(delimiter = '|', textBlock = """
            hop-by-hop     | Connection                | true  | true
            hop-by-hop     | keep-alive                | true  | true
            hop-by-hop     | TE                        | true  | true
            hop-by-hop     | Trailer                   | true  | true
            hop-by-hop     | Transfer-Encoding         | true  | true
            hop-by-hop     | Upgrade                   | true  | true
            hop-by-hop     | Proxy-Authenticate        | true  | true
            default remove | Server                    | true  | true
            host remove    | X-Powered-By              | false | true
            host remove    | referrer-policy           | true  | true
            set, replaced  | X-FRAME-OPTIONS           | true  | true
            set, replaced  | Strict-Transport-Security | false | true
            passes         | Content-Type              | false | false
            passes         | Content-Length            | false | false
            passes         | Set-Cookie                | false | false
            passes         | Cache-Control             | false | false
            """)
    void isRemoved(String why, String header, boolean byDefault, boolean byStrict) {
        Compiled c = compiled();

        assertThat(c.defaults().isRemoved(header)).isEqualTo(byDefault);
        assertThat(c.strict().isRemoved(header)).isEqualTo(byStrict);
        assertThat(c.strict().isRemoved(new AsciiString(header))).isEqualTo(byStrict);
    }

    @Test
    void noConfigurationStillRemovesHopByHopAndSetsNothing() {
        Snapshot s = CompiledFixtures.compile("edge.yaml", "hosts: []\n");
        try {
            ResponseHeaderRules r = s.defaultResponseHeaders();
            assertThat(r.http1Lines()).isEmpty();
            assertThat(r.names()).isEmpty();
            assertThat(r.values()).isEmpty();
            assertThat(r.isRemoved("Connection")).isTrue();
            assertThat(r.isRemoved("Server")).isFalse();
        } finally {
            s.release();
        }
    }
}
