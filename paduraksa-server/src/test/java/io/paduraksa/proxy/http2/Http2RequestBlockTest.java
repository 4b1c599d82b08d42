package io.paduraksa.proxy.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.paduraksa.http2.HpackDecoder;
import io.paduraksa.http2.Http2FieldValidator;
import io.paduraksa.http2.Http2Violation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The upstream HTTP/2 request's field block, HPACK-encoded as it is written: pseudo-header fields
 * first, HTTP/1.1 lines with lower-case names, values as sent, computed fields from parts, the
 * client's content-length replaced by ours; every block decodes with our decoder as a valid request.
 */
class Http2RequestBlockTest {
    private static final String HEAD = "User-Agent: curl/8.5\r\nAccept: */*\r\nX-Custom: Kept As Sent\r\nContent-Length: 3\r\n";

    /** Offers every line of {@code head} (name, ": ", value, CRLF) to {@code b}. */
    static void offerLines(Http2RequestBlock b, ByteBuf head) {
        int start = 0;
        for (int i = 0; i < head.readableBytes(); i++) {
            if (head.getByte(i) == '\n') {
                int colon = head.indexOf(start, i, (byte) ':');
                b.line(head, start, colon, colon + 2, i - 1);
                start = i + 1;
            }
        }
    }

    /** The block decoded as a request (validated), as {@code name: value} texts. */
    static List<String> decoded(Http2RequestBlock b) {
        List<String> out = new ArrayList<>();
        HpackDecoder decoder = new HpackDecoder(4096, 64 * 1024, false);
        ByteBuf block = b.block();
        Http2Violation v = decoder.decode(block, block.readerIndex(), block.readableBytes(), Http2FieldValidator.REQUEST,
                (name, ni, nl, value, vi, vl, staticIndex) -> out.add(name.toString(ni, nl, ISO_8859_1) + ": "
                        + value.toString(vi, vl, ISO_8859_1)));
        assertThat(v).as("decoding %s", out).isNull();
        return out;
    }

    static Http2RequestBlock request(String method, String path) {
        Http2RequestBlock b = new Http2RequestBlock().start();
        b.method(method);
        b.scheme(false);
        b.authority("a.test");
        byte[] p = path.getBytes(ISO_8859_1);
        b.path(p, p.length, "", -1, -1);
        return b;
    }

    @Test
    void linesBecomeLowerCaseNamesAfterThePseudoHeaderFields() {
        ByteBuf head = Unpooled.copiedBuffer(HEAD, ISO_8859_1);
        Http2RequestBlock b = request("GET", "/x");
        offerLines(b, head);
        b.field(AsciiString.of("cookie"), AsciiString.of("a=1"));
        assertThat(decoded(b)).containsExactly(":method: GET", ":scheme: http", ":authority: a.test", ":path: /x",
                "user-agent: curl/8.5", "accept: */*", "x-custom: Kept As Sent", "cookie: a=1");
        assertThat(b.size()).isEqualTo(8);
        assertThat(b.hadContentLength()).isTrue();
        head.release();
    }

    @Test
    void theQueryFollowsTheNormalisedPathAndOtherMethodsAreLiterals() {
        Http2RequestBlock b = new Http2RequestBlock().start();
        b.method("PATCH");
        b.scheme(true);
        b.authority("b.test:8443");
        byte[] p = "/a/b".getBytes(ISO_8859_1);
        b.path(p, p.length, "/a/./b?q=1&r=2", 7, 14);
        assertThat(decoded(b)).containsExactly(":method: PATCH", ":scheme: https", ":authority: b.test:8443", ":path: /a/b?q=1&r=2");
    }

    @Test
    void contentLengthIsOursAlone() {
        ByteBuf head = Unpooled.copiedBuffer(HEAD, ISO_8859_1);
        Http2RequestBlock b = request("POST", "/upload");
        offerLines(b, head);
        b.contentLength(1234567890123L);
        assertThat(decoded(b)).containsExactly(":method: POST", ":scheme: http", ":authority: a.test", ":path: /upload",
                "user-agent: curl/8.5", "accept: */*", "x-custom: Kept As Sent", "content-length: 1234567890123");
        b.start();
        assertThat(b.size()).isZero();
        assertThat(b.block().readableBytes()).isZero();
        assertThat(b.hadContentLength()).isFalse();
        head.release();
    }

    @Test
    void computedFieldsAreBuiltFromParts() {
        Http2RequestBlock b = request("GET", "/");
        b.name(AsciiString.of("X-Forwarded-For"), AsciiString.of("x-forwarded-for"));
        b.value("192.0.2.1");
        b.value(new byte[] {',', ' '}, 0, 2);
        b.value("198.51.100.20");
        b.end();
        b.name(AsciiString.of("X-Request-Id"), AsciiString.of("X-Request-Id"));
        b.value("abc");
        b.end();
        assertThat(decoded(b)).endsWith("x-forwarded-for: 192.0.2.1, 198.51.100.20", "x-request-id: abc");
    }
}
