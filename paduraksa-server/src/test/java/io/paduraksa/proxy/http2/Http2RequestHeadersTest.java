package io.paduraksa.proxy.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The upstream HTTP/2 request's header block: HTTP/1.1 lines become lower-case names and values
 * (the same objects again for the same bytes, from the loop's field cache), pseudo-header fields
 * iterate first as HPACK needs, twice in a row the same, and a clear forgets everything.
 */
class Http2RequestHeadersTest {
    private static final String HEAD = "User-Agent: curl/8.5\r\nAccept: */*\r\nX-Custom: Kept As Sent\r\n";

    /** Offers every line of {@link #HEAD} (name, ": ", value, CRLF) to {@code h}. */
    private static void offerLines(Http2RequestHeaders h, ByteBuf head) {
        int start = 0;
        for (int i = 0; i < head.readableBytes(); i++) {
            if (head.getByte(i) == '\n') {
                int colon = head.indexOf(start, i, (byte) ':');
                h.line(head, start, colon, colon + 2, i - 1);
                start = i + 1;
            }
        }
    }

    private static List<String> entries(Http2RequestHeaders h) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            out.add(e.getKey() + ": " + e.getValue());
        }
        return out;
    }

    @Test
    void linesBecomeLowerCaseNamesAfterThePseudoHeaderFields() {
        ByteBuf head = Unpooled.copiedBuffer(HEAD, ISO_8859_1);
        Http2RequestHeaders h = new Http2RequestHeaders();
        h.method(AsciiString.of("GET")).scheme(AsciiString.of("http")).authority(AsciiString.of("a.test"))
                .path(AsciiString.of("/x"));
        offerLines(h, head);
        h.field(AsciiString.of("cookie"), AsciiString.of("a=1"));
        List<String> expected = List.of(":method: GET", ":scheme: http", ":authority: a.test", ":path: /x",
                "user-agent: curl/8.5", "accept: */*", "x-custom: Kept As Sent", "cookie: a=1");
        assertThat(entries(h)).containsExactlyElementsOf(expected);
        assertThat(entries(h)).as("HPACK iterates twice: once for the size, once to encode").containsExactlyElementsOf(expected);
        assertThat(h.size()).isEqualTo(8);
        assertThat(h.get("x-custom").toString()).isEqualTo("Kept As Sent");
        assertThat(h.method().toString()).isEqualTo("GET");
        head.release();
    }

    @Test
    void theSameBytesGiveTheSameObjectsAgain() {
        ByteBuf head = Unpooled.copiedBuffer(HEAD, ISO_8859_1);
        Http2RequestHeaders h = new Http2RequestHeaders();
        offerLines(h, head);
        CharSequence name = h.names().iterator().next();
        CharSequence value = h.get("user-agent");
        h.clear();
        assertThat(h.size()).isZero();
        assertThat(h.get("user-agent")).isNull();
        ByteBuf again = Unpooled.copiedBuffer(HEAD.replace("User-Agent", "USER-AGENT"), ISO_8859_1);
        offerLines(h, again);
        assertThat(h.names().iterator().next()).isSameAs(name);
        assertThat(h.get("user-agent")).isSameAs(value);
        head.release();
        again.release();
    }

    @Test
    void aValueLongerThanTheCacheTakesIsCopiedEveryTime() {
        String big = "c".repeat(Http2FieldCache.MAX_VALUE + 1);
        ByteBuf head = Unpooled.copiedBuffer("Cookie: " + big + "\r\n", ISO_8859_1);
        Http2RequestHeaders h = new Http2RequestHeaders();
        offerLines(h, head);
        CharSequence first = h.get("cookie");
        h.clear();
        offerLines(h, head);
        assertThat(h.get("cookie").toString()).isEqualTo(big);
        assertThat(h.get("cookie")).isNotSameAs(first);
        head.release();
    }

    @Test
    void contentLengthReplacesAnEarlierOne() {
        Http2RequestHeaders h = new Http2RequestHeaders();
        h.add(AsciiString.of("content-length"), AsciiString.of("1"));
        h.add(AsciiString.of("x-a"), AsciiString.of("b"));
        h.contentLength(42);
        assertThat(entries(h)).containsExactly("x-a: b", "content-length: 42");
    }

    @Test
    void computedFieldsAreBuiltFromParts() {
        Http2RequestHeaders h = new Http2RequestHeaders();
        h.name(AsciiString.of("X-Forwarded-For"), AsciiString.of("x-forwarded-for"));
        h.value("192.0.2.1");
        h.value(new byte[] {',', ' '}, 0, 2);
        h.value("198.51.100.20");
        h.end();
        assertThat(entries(h)).containsExactly("x-forwarded-for: 192.0.2.1, 198.51.100.20");
    }
}
