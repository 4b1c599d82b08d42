package io.paduraksa.respond;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ValueTemplateTest {

    /** A request as a template sees it: host as received, normalised path, target with its query. */
    static final class Request implements ValueTemplate.Input {
        String authority;
        byte[] path;
        String target;
        int queryStart = -1;
        int queryEnd = -1;
        boolean tls;

        static Request of(String authority, String normalisedPath, String target, boolean tls) {
            Request r = new Request();
            r.authority = authority;
            r.path = normalisedPath.getBytes(StandardCharsets.ISO_8859_1);
            r.target = target;
            int q = target.indexOf('?');
            if (q >= 0) {
                r.queryStart = q + 1;
                r.queryEnd = target.length();
            }
            r.tls = tls;
            return r;
        }

        @Override
        public CharSequence authority() {
            return authority;
        }

        @Override
        public byte[] path() {
            return path;
        }

        @Override
        public int pathLength() {
            return path.length;
        }

        @Override
        public CharSequence target() {
            return target;
        }

        @Override
        public int queryStart() {
            return queryStart;
        }

        @Override
        public int queryEnd() {
            return queryEnd;
        }

        @Override
        public boolean isTls() {
            return tls;
        }
    }

    static String expand(String template, Request r) {
        ValueTemplate t = ValueTemplate.compile(template);
        assertThat(t.expands(r)).as("expands").isTrue();
        ByteBuf out = Unpooled.buffer();
        t.write(out, r);
        assertThat(out.readableBytes()).as("length() matches write()").isEqualTo(t.length(r));
        String s = out.toString(StandardCharsets.ISO_8859_1);
        out.release();
        return s;
    }

    @ParameterizedTest(name = "{0} for {1}{3} -> {4}")
    @CsvSource(delimiter = '|', value = {
        "https://${host}${request_uri} | Example.TEST       | /a/b      | /a/b?x=1&y=2 | https://example.test/a/b?x=1&y=2",
        "https://${host}${request_uri} | example.test.:8080 | /a        | /a           | https://example.test/a",
        "https://${host}${path}        | example.test       | /a        | /a?q=1       | https://example.test/a",
        "${scheme}://${host}:${port}/x | example.test:8443  | /         | /            | http://example.test:8443/x",
        "${scheme}://${host}:${port}/x | example.test       | /         | /            | http://example.test:80/x",
        "/new${query}                  | example.test       | /old      | /old?a=1     | /new?a=1",
        "/new${query}                  | example.test       | /old      | /old?        | /new",
        "/new${query}                  | example.test       | /old      | /old         | /new",
        "https://${host}${request_uri} | [2001:DB8::1]:443  | /         | /            | https://[2001:db8::1]/",
        "https://new.test${path}       | anything           | /x/y      | /x/y         | https://new.test/x/y",
    })
    void fillsPlaceholdersFromTheRequest(String template, String host, String path, String target, String expected) {
        assertThat(expand(template.strip(), Request.of(host.strip(), path.strip(), target.strip(), false))).isEqualTo(expected.strip());
    }

    @Test
    void schemeAndDefaultPortFollowTheConnection() {
        Request r = Request.of("example.test", "/", "/", true);
        assertThat(expand("${scheme}://${host}:${port}", r)).isEqualTo("https://example.test:443");
    }

    /** No request byte can end the header or start another one: CR, LF and the like are escaped. */
    @Test
    void bytesAHeaderCannotCarryArePercentEncoded() {
        Request r = Request.of("example.test", "/a b\"<x>\\\r\n\u00e9", "/p?q=a b\r\nSet-Cookie: x=1&\"<>", false);
        String out = expand("https://${host}${request_uri}", r);
        assertThat(out).isEqualTo("https://example.test/a%20b%22%3Cx%3E%5C%0D%0A%E9?q=a%20b%0D%0ASet-Cookie:%20x=1&%22%3C%3E");
        for (char c : out.toCharArray()) {
            assertThat(c).isBetween('!', '~');
        }
    }

    /** The host is the request's own and only ever a name or an IPv6 literal: anything else does not expand. */
    @ParameterizedTest
    @ValueSource(strings = {"evil.test/x", "evil.test\\x", "a@evil.test", "evil.test?x", "evil.test#x", "a b.test",
        "-a.test", "a-.test", "a..test", ".test", "", "evil.test:", "evil.test:123456", "evil.test:80x", "[::1", "[]",
        "[::1]x", "[::1]:x", "[::g]", "a.test\r\nX: y", "\u00e9.test", "xn--\u00e9.test"})
    void aHostThatIsNoValidNameDoesNotExpand(String host) {
        ValueTemplate t = ValueTemplate.compile("https://${host}${request_uri}");
        assertThat(t.expands(Request.of(host, "/", "/", false))).as(host).isFalse();
        assertThat(ValueTemplate.compile("https://new.test${request_uri}").expands(Request.of(host, "/", "/", false)))
                .as("a template without ${host} does not read the host").isTrue();
    }

    @Test
    void aLabelOfMoreThan63CharactersOrANameOfMoreThan253IsNoName() {
        ValueTemplate t = ValueTemplate.compile("https://${host}/");
        assertThat(t.expands(Request.of("a".repeat(63) + ".test", "/", "/", false))).isTrue();
        assertThat(t.expands(Request.of("a".repeat(64) + ".test", "/", "/", false))).isFalse();
        String long254 = ("a".repeat(62) + ".").repeat(4) + "ab";
        assertThat(t.expands(Request.of(long254, "/", "/", false))).isFalse();
    }

    /** Placeholders that would let the request choose the site are refused when the file is compiled. */
    @ParameterizedTest
    @ValueSource(strings = {"https://${path}", "https://${request_uri}", "//${query}", "https://${query}/x",
        "${scheme}://${path}", "https://${scheme}/", "//${request_uri}", "http:///${path}"})
    void aPathOrQueryWhereTheHostGoesIsRefused(String template) {
        assertThatThrownBy(() -> ValueTemplate.compile(template)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("where the host goes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://${host}${request_uri}", "${path}", "${request_uri}", "/x${query}",
        "https://${host}:${port}${path}", "//${host}/", "https://www.${host}/", "${query}"})
    void safeShapesCompile(String template) {
        assertThat(ValueTemplate.compile(template).text()).isEqualTo(template);
    }

    @Test
    void unknownAndUnclosedPlaceholdersAreErrors() {
        assertThatThrownBy(() -> ValueTemplate.compile("https://${hostname}/")).hasMessageContaining("unknown placeholder ${hostname}")
                .hasMessageContaining("${request_uri}");
        assertThatThrownBy(() -> ValueTemplate.compile("https://${host")).hasMessageContaining("without its '}'");
        assertThatThrownBy(() -> ValueTemplate.compile("https://${host}/a b")).hasMessageContaining("space");
    }

    /** A normalised path never starts with "//", so "${path}" alone stays on this site. */
    @Test
    void aRelativeLocationStaysOnThisSite() {
        assertThat(expand("${request_uri}", Request.of("example.test", "/evil.test/x", "//evil.test/x", false)))
                .isEqualTo("/evil.test/x");
    }
}
