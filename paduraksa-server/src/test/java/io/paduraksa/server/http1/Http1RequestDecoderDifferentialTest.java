package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One corpus through Netty's {@link HttpRequestDecoder} (same size limits) and through ours. When
 * both accept, method, target, version, header names and values in order, and body bytes must be
 * equal. When they differ, the row says why, and ours must be the stricter one: it rejects what
 * Netty accepts, or stops after a request whose Connection option is close (RFC 9112 section 9.6).
 * A {@code why} on a row whose outcomes agree fails too, so explanations cannot go stale.
 */
class Http1RequestDecoderDifferentialTest {
    private static final String H = "Host: a.test\r\n";

    /** One decoded request in the shape both decoders can produce. */
    record Seen(String method, String target, int version, List<String> headers, String body) {
    }

    record Result(List<Seen> requests, boolean rejected) {
    }

    static Stream<Arguments> corpus() {
        return Stream.of(
                // ---- valid: both accept, results equal
                row("minimal GET", "GET / HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("query string", "GET /search?q=a+b&x=%20#frag HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("browser-like", "GET /shop/item-7?ref=home HTTP/1.1\r\nHost: www.example\r\nConnection: keep-alive\r\n"
                        + "sec-ch-ua: \"Chromium\";v=\"124\", \"Not-A.Brand\";v=\"99\"\r\nsec-ch-ua-mobile: ?0\r\n"
                        + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0\r\n"
                        + "Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8\r\nSec-Fetch-Site: same-origin\r\n"
                        + "Accept-Encoding: gzip, deflate, br, zstd\r\nAccept-Language: en-US,en;q=0.9\r\n"
                        + "Cookie: session=0123456789abcdef; theme=dark\r\n\r\n", 0, ""),
                row("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n", 0, ""),
                row("HTTP/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 0, ""),
                row("HEAD", "HEAD /x HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("OPTIONS *", "OPTIONS * HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("absolute-form", "GET http://a.test/x?y=1 HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("CONNECT authority-form", "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n", 0, ""),
                row("token methods", "PROPFIND /d HTTP/1.1\r\n" + H + "\r\nDELETE /d HTTP/1.1\r\n" + H + "\r\nPATCH /d HTTP/1.1\r\n" + H + "Content-Length: 2\r\n\r\n{}", 0, ""),
                row("POST Content-Length", "POST /f HTTP/1.1\r\n" + H + "Content-Length: 11\r\n\r\nhello world", 0, ""),
                row("POST Content-Length 0", "POST /f HTTP/1.1\r\n" + H + "Content-Length: 0\r\n\r\n", 0, ""),
                row("Content-Length leading zeros", "POST /f HTTP/1.1\r\n" + H + "Content-Length: 0003\r\n\r\nabc", 0, ""),
                row("binary body", "POST /f HTTP/1.1\r\n" + H + "Content-Length: 6\r\n\r\n\0\r\n\u00ff\n\r", 0, ""),
                row("chunked", "PUT /u HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", 0, ""),
                row("chunked, upper-case hex", "PUT /u HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", 0, ""),
                row("chunked, extensions", "PUT /u HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n5;a=b;c=\"d e\"\r\nhello\r\n0;last\r\n\r\n", 0, ""),
                row("chunked, trailers", "PUT /u HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 42\r\n\r\n", 0, ""),
                row("chunked, empty body", "PUT /u HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0, ""),
                row("Transfer-Encoding case", "PUT /u HTTP/1.1\r\n" + H + "Transfer-Encoding: Chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 0, ""),
                row("Transfer-Encoding trailing OWS", "PUT /u HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked \t\r\n\r\n1\r\nx\r\n0\r\n\r\n", 0, ""),
                row("pipelined", "GET /1 HTTP/1.1\r\n" + H + "\r\nPOST /2 HTTP/1.1\r\n" + H + "Content-Length: 1\r\n\r\nxGET /3 HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("leading CRLF", "\r\nGET / HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("CRLF between requests", "POST / HTTP/1.1\r\n" + H + "Content-Length: 1\r\n\r\nx\r\nGET / HTTP/1.1\r\n" + H + "\r\n", 0, ""),
                row("empty value", "GET / HTTP/1.1\r\n" + H + "X-Empty:\r\nX-Blank:   \r\n\r\n", 0, ""),
                row("OWS around and inside values", "GET / HTTP/1.1\r\n" + H + "X-A:\t a \t b\t \r\nX-B:c\r\n\r\n", 0, ""),
                row("obs-text in value", "GET / HTTP/1.1\r\n" + H + "X-Name: caf\u00e9\r\n\r\n", 0, ""),
                row("all tchar in a name", "GET / HTTP/1.1\r\n" + H + "!#$%&'*+-.^_`|~09AZaz: 1\r\n\r\n", 0, ""),
                row("repeated non-framing headers", "GET / HTTP/1.1\r\n" + H + "Accept: a\r\nAccept: b\r\nCookie: x=1\r\nCookie: y=2\r\n\r\n", 0, ""),
                row("Host with port", "GET / HTTP/1.1\r\nHost: a.test:8080\r\n\r\n", 0, ""),
                row("Host IPv6 literal", "GET / HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\n\r\n", 0, ""),
                row("empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", 0, ""),
                row("Expect 100-continue", "POST / HTTP/1.1\r\n" + H + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\nok", 0, ""),
                row("WebSocket upgrade", "GET /ws HTTP/1.1\r\n" + H + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 0, ""),
                row("Connection close, alone", "GET / HTTP/1.1\r\n" + H + "Connection: close\r\n\r\n", 0, ""),

                // ---- valid for Netty, and ours differs on purpose
                row("request after Connection: close", "GET /1 HTTP/1.1\r\n" + H + "Connection: close\r\n\r\nGET /2 HTTP/1.1\r\n" + H + "\r\n", 0,
                        "RFC 9112 9.6: a server MUST NOT process further requests after a close option; Netty's decoder leaves that to the handler"),
                row("request after HTTP/1.0 without keep-alive", "GET /1 HTTP/1.0\r\n\r\nGET /2 HTTP/1.0\r\n\r\n", 0,
                        "HTTP/1.0 defaults to close (RFC 9112 9.3), so the second request is not processed"),

                // ---- hostile or malformed: ours rejects
                row("CL and TE", "POST / HTTP/1.1\r\n" + H + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, ""),
                row("two equal CL", "POST / HTTP/1.1\r\n" + H + "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400, ""),
                row("two different CL", "POST / HTTP/1.1\r\n" + H + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nxx", 400, ""),
                row("CL list", "POST / HTTP/1.1\r\n" + H + "Content-Length: 1,1\r\n\r\nx", 400, ""),
                row("CL plus sign", "POST / HTTP/1.1\r\n" + H + "Content-Length: +1\r\n\r\nx", 400, ""),
                row("CL negative", "POST / HTTP/1.1\r\n" + H + "Content-Length: -1\r\n\r\n", 400, ""),
                row("CL empty", "POST / HTTP/1.1\r\n" + H + "Content-Length:\r\n\r\n", 400, ""),
                row("CL overflow", "POST / HTTP/1.1\r\n" + H + "Content-Length: 99999999999999999999\r\n\r\n", 400, ""),
                row("CL above body limit", "POST / HTTP/1.1\r\n" + H + "Content-Length: 10485761\r\n\r\n", 413, "Netty's decoder has no body limit (an aggregator would add one); ours answers 413 from the declared length before reading the body"),
                row("TE xchunked", "POST / HTTP/1.1\r\n" + H + "Transfer-Encoding: xchunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 400, ""),
                row("TE chunked, identity", "POST / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked, identity\r\n\r\n1\r\nx\r\n0\r\n\r\n", 400, ""),
                row("TE gzip, chunked", "POST / HTTP/1.1\r\n" + H + "Transfer-Encoding: gzip, chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 501, "Netty hands gzip to the handler; we implement no coding but chunked, and RFC 9112 6.1 says a server SHOULD answer 501 to codings it does not understand"),
                row("TE chunked with junk", "POST / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked x\r\n\r\n1\r\nx\r\n0\r\n\r\n", 400, ""),
                row("two TE lines", "POST / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 400, ""),
                row("TE space before colon", "POST / HTTP/1.1\r\n" + H + "Transfer-Encoding : chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 400, ""),
                row("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 400, ""),
                row("obs-fold", "GET / HTTP/1.1\r\n" + H + "X-A: 1\r\n 2\r\n\r\n", 400, "Netty unfolds into the previous value; RFC 9112 5.2 lets a server reject obs-fold with 400, and unfolding is a header-smuggling vector between parsers"),
                row("whitespace before first field", "GET / HTTP/1.1\r\n " + H + "\r\n", 400, ""),
                row("bare LF line ends", "GET / HTTP/1.1\n" + H.replace("\r\n", "\n") + "\n", 400, ""),
                row("bare LF in one field line", "GET / HTTP/1.1\r\nX-A: 1\n" + H + "\r\n", 400, ""),
                row("bare CR in value", "GET / HTTP/1.1\r\n" + H + "X-A: 1\r2\r\n\r\n", 400, ""),
                row("NUL in value", "GET / HTTP/1.1\r\n" + H + "X-A: 1\u00002\r\n\r\n", 400, ""),
                row("DEL in value", "GET / HTTP/1.1\r\n" + H + "X-A: 1\u007f2\r\n\r\n", 400, ""),
                row("control byte in name", "GET / HTTP/1.1\r\n" + H + "X\u0001A: 1\r\n\r\n", 400, ""),
                row("separator in name", "GET / HTTP/1.1\r\n" + H + "X(A): 1\r\n\r\n", 400, ""),
                row("line without colon", "GET / HTTP/1.1\r\n" + H + "X-No-Colon\r\n\r\n", 400, ""),
                row("empty name", "GET / HTTP/1.1\r\n" + H + ": v\r\n\r\n", 400, ""),
                row("space before colon", "GET / HTTP/1.1\r\n" + H + "X-A : 1\r\n\r\n", 400, ""),
                row("HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n", 400, "Netty does not look at Host; RFC 9112 3.2: a server MUST respond 400 to an HTTP/1.1 request without Host"),
                row("two Host lines", "GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n", 400, "Netty keeps both; RFC 9112 3.2: MUST respond 400 to more than one Host line (two hosts let us and the upstream route differently)"),
                row("two SP in request line", "GET  / HTTP/1.1\r\n" + H + "\r\n", 400, "Netty splits on runs of whitespace; RFC 9112 3 asks for single SPs and only MAY be lenient, which would let one line be read two ways"),
                row("HTAB in request line", "GET\t/ HTTP/1.1\r\n" + H + "\r\n", 400, "Netty accepts any whitespace between request-line parts; RFC 9112 3: exactly one SP"),
                row("trailing SP in request line", "GET / HTTP/1.1 \r\n" + H + "\r\n", 400, ""),
                row("method not a token", "G(T / HTTP/1.1\r\n" + H + "\r\n", 400, ""),
                row("SP inside target", "GET /a b HTTP/1.1\r\n" + H + "\r\n", 400, ""),
                row("CTL in target", "GET /a\u0001b HTTP/1.1\r\n" + H + "\r\n", 400, "Netty passes control bytes in the URI; a request-target holds RFC 3986 characters only (RFC 9112 3.2)"),
                row("non-ASCII in target", "GET /caf\u00e9 HTTP/1.1\r\n" + H + "\r\n", 400, "Netty passes raw obs-text in the URI; URIs are US-ASCII (RFC 3986) and clients percent-encode, so raw bytes here are an evasion attempt"),
                row("relative target", "GET a/b HTTP/1.1\r\n" + H + "\r\n", 400, "Netty accepts any string as the URI; RFC 9112 3.2 has only origin-, absolute-, authority- (CONNECT) and asterisk- (OPTIONS) forms"),
                row("asterisk with GET", "GET * HTTP/1.1\r\n" + H + "\r\n", 400, "asterisk-form is only for OPTIONS (RFC 9112 3.2.4); Netty does not check forms"),
                row("HTTP/0.9 request line", "GET /\r\n\r\n", 400, ""),
                row("lower-case version", "GET / http/1.1\r\n" + H + "\r\n", 400, "Netty reads the protocol name case-insensitively; HTTP-name is the case-sensitive \"HTTP\" (RFC 9112 2.3)"),
                row("HTTP/2.0 in an HTTP/1 line", "GET / HTTP/2.0\r\n" + H + "\r\n", 505, "Netty builds an HttpVersion for any HTTP/x.y; this decoder speaks 1.0 and 1.1 only and answers 505"),
                row("HTTP/1.2", "GET / HTTP/1.2\r\n" + H + "\r\n", 505, "Netty builds an HttpVersion for any HTTP/x.y; this decoder speaks 1.0 and 1.1 only and answers 505"),
                row("chunk size not hex", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\nxyz\r\nabc\r\n0\r\n\r\n", 400, ""),
                row("chunk size 17 hex digits", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n00000000000000001\r\nx\r\n0\r\n\r\n", 400, "Netty skips any number of leading zeros; ours caps chunk-size at 16 hex digits so that no size can overflow a long"),
                row("chunk size with trailing SP", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1 \r\nx\r\n0\r\n\r\n", 400, ""),
                row("chunk extension, unterminated quoted string", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1;a=\"b\r\nx\r\n0\r\n\r\n", 400, ""),
                row("last chunk, unterminated quoted string", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n0;a=\"b\r\n\r\n", 400, ""),
                row("chunk extension, obs-text in quoted string", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n0;a=\"\u0080\"\r\n\r\n", 400, ""),
                row("chunk extension, obs-text in a quoted-pair", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1;a=\"q\\\u00a2s\"\r\nx\r\n0\r\n\r\n", 400, ""),
                row("chunk extension without a name", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1;=b\r\nx\r\n0\r\n\r\n", 400, "Netty accepts an empty extension name; RFC 9112 7.1.1: chunk-ext-name is a token, at least one tchar"),
                row("chunk extension, quoted-pair", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1;a=\"q\\\"s\"\r\nx\r\n0\r\n\r\n", 0, ""),
                row("chunk data without CRLF", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n0\r\n\r\n", 400, ""),
                row("chunk line with bare LF", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1\nx\r\n0\r\n\r\n", 400, ""),
                row("chunk extension too long", "PUT / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n1;" + "a".repeat(2000) + "\r\nx\r\n0\r\n\r\n", 400, "Netty's chunk-line limit is the request-line limit (8 KiB here); ours is MAX_CHUNK_LINE_LENGTH = 1 KiB, chunk extensions being unused in practice"),
                row("request line too long", "GET /" + "a".repeat(9000) + " HTTP/1.1\r\n" + H + "\r\n", 414, ""),
                row("head too large", "GET / HTTP/1.1\r\n" + H + "X-Big: " + "v".repeat(33000) + "\r\n\r\n", 431, ""),
                row("too many headers", "GET / HTTP/1.1\r\n" + H + "X: 1\r\n".repeat(100) + "\r\n", 431, "Netty limits only the head size; ours also caps the field count at 100 (431)"));
    }

    private static Arguments row(String name, String request, int status, String why) {
        return Arguments.of(name, request, status, why);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void oursAgreesWithNettyOrIsStricterForAStatedReason(String name, String request, int status, String why) {
        byte[] bytes = request.getBytes(ISO_8859_1);
        Http1Collector.Outcome ours = Http1Collector.decode(new Http1RequestDecoder(), bytes);
        Result mine = new Result(toSeen(ours.requests()), ours.error() != null);
        Result netty = netty(bytes);
        assertThat(ours.status()).as("our status").isEqualTo(status);
        boolean same = mine.rejected() == netty.rejected() && (mine.rejected() || mine.requests().equals(netty.requests()));
        if (why.isEmpty()) {
            assertThat(mine.rejected()).as("rejected (ours vs Netty's)").isEqualTo(netty.rejected());
            if (!mine.rejected()) {
                assertThat(mine.requests()).as("decoded requests").isEqualTo(netty.requests());
            }
            return;
        }
        assertThat(same).as("the row explains a difference, but both decoders agree: drop the why").isFalse();
        if (mine.rejected()) {
            assertThat(netty.rejected()).as("ours rejects and so does Netty: no difference to explain").isFalse();
        } else {
            assertThat(netty.rejected()).as("ours accepts what Netty rejects").isFalse();
            assertThat(netty.requests()).as("ours stops early: its requests are a prefix of Netty's")
                    .startsWith(mine.requests().toArray(new Seen[0]));
        }
    }

    private static List<Seen> toSeen(List<Http1Collector.Request> requests) {
        List<Seen> out = new ArrayList<>();
        for (Http1Collector.Request r : requests) {
            out.add(new Seen(r.method(), r.target(), r.version(), r.headers(), r.body()));
        }
        return out;
    }

    static Result netty(byte[] bytes) {
        return netty(new byte[][] {bytes});
    }

    /** Netty's decoder fed the chunks one by one (the fuzzers split at random points). */
    static Result netty(byte[][] chunks) {
        HttpDecoderConfig config = new HttpDecoderConfig()
                .setMaxInitialLineLength(Http1RequestDecoder.DEFAULT_MAX_REQUEST_LINE_LENGTH)
                .setMaxHeaderSize(Http1RequestDecoder.DEFAULT_MAX_HEAD_SIZE);
        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestDecoder(config));
        List<Seen> seen = new ArrayList<>();
        boolean rejected = false;
        try {
            for (byte[] chunk : chunks) {
                ch.writeInbound(Unpooled.wrappedBuffer(chunk));
            }
            ch.finish();
            HttpRequest current = null;
            StringBuilder body = new StringBuilder();
            for (Object m; (m = ch.readInbound()) != null; ) {
                try {
                    if (((HttpObject) m).decoderResult().isFailure()) {
                        rejected = true;
                    }
                    if (m instanceof HttpRequest req) {
                        current = req;
                        body.setLength(0);
                    }
                    if (m instanceof HttpContent content) {
                        body.append(content.content().toString(ISO_8859_1));
                    }
                    if (m instanceof LastHttpContent && current != null && !rejected) {
                        seen.add(seen(current, body.toString()));
                        current = null;
                    }
                } finally {
                    ReferenceCountUtil.release(m);
                }
            }
        } finally {
            ch.finishAndReleaseAll();
        }
        return new Result(List.copyOf(seen), rejected);
    }

    private static Seen seen(HttpRequest req, String body) {
        List<String> headers = new ArrayList<>();
        for (Map.Entry<String, String> h : req.headers()) {
            headers.add(h.getKey() + ": " + h.getValue());
        }
        return new Seen(req.method().name(), req.uri(),
                req.protocolVersion().majorVersion() * 10 + req.protocolVersion().minorVersion(), List.copyOf(headers), body);
    }
}
