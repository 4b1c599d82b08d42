package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AsciiString;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.server.http1.Http1Collector.Outcome;
import io.paduraksa.server.http1.Http1Collector.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class Http1RequestDecoderTest {
    private static final String GET = "GET /a?b=c HTTP/1.1\r\nHost: a.test\r\n\r\n";
    private static final String BROWSER = "GET /search?q=paduraksa&lang=en HTTP/1.1\r\n"
            + "Host: www.example\r\n"
            + "Connection: keep-alive\r\n"
            + "sec-ch-ua: \"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\"\r\n"
            + "sec-ch-ua-mobile: ?0\r\n"
            + "sec-ch-ua-platform: \"Linux\"\r\n"
            + "Upgrade-Insecure-Requests: 1\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n"
            + "Sec-Fetch-Site: none\r\n"
            + "Sec-Fetch-Mode: navigate\r\n"
            + "Sec-Fetch-User: ?1\r\n"
            + "Sec-Fetch-Dest: document\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
            + "Accept-Language: en-US,en;q=0.9\r\n"
            + "Cookie: session=0123456789abcdef; theme=dark; _ga=GA1.1.123456789.1700000000\r\n"
            + "\r\n";
    private static final String POST = "POST /upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: 11\r\n\r\nhello world";
    private static final String CHUNKED = "POST /c HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1 ; x\r\n \r\nA\r\n0123456789\r\n0\r\nX-Checksum: abc\r\nX-Other:\t1 \r\n\r\n";

    @Test
    void minimalGetRecordsPositionsAndFacts() {
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder());
        ch.writeInbound(Unpooled.copiedBuffer(GET, ISO_8859_1));
        Http1RequestHead head = ch.readInbound();
        try {
            assertThat(head.buffer().toString(ISO_8859_1)).isEqualTo(GET);
            assertThat(head.methodStart()).isZero();
            assertThat(head.methodEnd()).isEqualTo(3);
            assertThat(head.targetStart()).isEqualTo(4);
            assertThat(head.targetEnd()).isEqualTo(10);
            assertThat(head.method()).hasToString("GET");
            assertThat(head.isMethod(AsciiString.of("GET"))).isTrue();
            assertThat(head.isMethod(AsciiString.of("get"))).isFalse();
            assertThat(head.target()).hasToString("/a?b=c");
            assertThat(head.targetForm()).isEqualTo(Http1RequestHead.ORIGIN_FORM);
            assertThat(head.version()).isEqualTo(Http1RequestHead.HTTP_1_1);
            assertThat(head.headerCount()).isEqualTo(1);
            assertThat(head.headerName(0)).hasToString("Host");
            assertThat(head.headerValueStart(0)).isEqualTo(27);
            assertThat(head.headerValueEnd(0)).isEqualTo(33);
            assertThat(head.hostIndex()).isZero();
            assertThat(head.host()).hasToString("a.test");
            assertThat(head.contentLength()).isEqualTo(-1);
            assertThat(head.isChunked()).isFalse();
            assertThat(head.hasBody()).isFalse();
            assertThat(head.isKeepAlive()).isTrue();
            assertThat(head.isExpectContinue()).isFalse();
            assertThat(head.isUpgradeWebSocket()).isFalse();
            assertThat((Object) ch.readInbound()).isNull();
        } finally {
            head.release();
            ch.finishAndReleaseAll();
        }
        assertThat(head.isHeld()).isFalse();
        head.release(); // idempotent
    }

    /**
     * The head notes whether a field name has a {@code _} (the forwarder then searches the names for one to drop
     * them), for each request of a connection anew: with, without, with at the end, without.
     */
    @Test
    void eachHeadNotesWhetherANameHasAnUnderscore() {
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder());
        try {
            String[] fields = {"X_Custom: a\r\nHost: a.test\r\n", "Host: a.test\r\nX-Custom: a\r\n",
                "Host: a.test\r\nX-Custom: a_b\r\nCustom_: a\r\n", "Host: a.test\r\nX-Custom: a_b\r\n"};
            for (int i = 0; i < fields.length; i++) {
                ch.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n" + fields[i] + "\r\n", ISO_8859_1));
                Http1RequestHead head = ch.readInbound();
                try {
                    assertThat(head.hasUnderscoreNames()).as(fields[i]).isEqualTo(i % 2 == 0);
                } finally {
                    head.release();
                }
            }
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void headerLookupFoldsCaseInPlaceAndValuesAreTrimmed() {
        String request = "GET / HTTP/1.1\r\nhOsT:a.test\r\nX-Empty:\r\nX-Pad: \t v a l \t \r\nx-pad: second\r\n\r\n";
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder());
        ch.writeInbound(Unpooled.copiedBuffer(request, ISO_8859_1));
        Http1RequestHead head = ch.readInbound();
        try {
            assertThat(head.findHeader(AsciiString.of("host"))).isZero();
            assertThat(head.findHeader(AsciiString.of("x-pad"))).isEqualTo(2);
            assertThat(head.findHeader(AsciiString.of("x-pad"), 3)).isEqualTo(3);
            assertThat(head.findHeader(AsciiString.of("x-missing"))).isEqualTo(-1);
            assertThat(head.nameEquals(1, AsciiString.of("x-empty"))).isTrue();
            assertThat(head.nameEquals(1, AsciiString.of("x-empt"))).isFalse();
            assertThat(head.headerValue(1).length()).isZero();
            assertThat(head.headerValue(2)).hasToString("v a l");
            assertThat(head.headerValue(3)).hasToString("second");
            assertThat(head.host().contentEqualsIgnoreCase(AsciiString.of("a.test"))).isTrue();
        } finally {
            head.release();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void browserLikeHeadIsDecodedInOrder() {
        Outcome o = Http1Collector.decode(BROWSER);
        assertThat(o.error()).isNull();
        Request r = o.requests().get(0);
        assertThat(r.target()).isEqualTo("/search?q=paduraksa&lang=en");
        assertThat(r.headers()).hasSize(15);
        assertThat(r.headers().get(2)).isEqualTo(
                "sec-ch-ua: \"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\"");
        assertThat(r.headers().get(14)).startsWith("Cookie: session=");
        assertThat(r.host()).isEqualTo("www.example");
    }

    static Stream<Arguments> facts() {
        return Stream.of(
                Arguments.of("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true, false, false),
                Arguments.of("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false, false, false),
                Arguments.of("GET / HTTP/1.1\r\nHost: a\r\nConnection: foo, CLOSE\r\n\r\n", false, false, false),
                Arguments.of("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false, false, false),
                Arguments.of("GET / HTTP/1.1\r\nHost: a\r\nConnection: closed\r\n\r\n", true, false, false),
                Arguments.of("GET / HTTP/1.0\r\n\r\n", false, false, false),
                Arguments.of("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true, false, false),
                Arguments.of("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false, false, false),
                Arguments.of("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx", true, true, false),
                Arguments.of("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx", false, false, false),
                Arguments.of("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n\r\n", true, false, true),
                Arguments.of("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: h2c, websocket\r\nConnection: upgrade\r\n\r\n", true, false, true),
                Arguments.of("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n", true, false, false),
                Arguments.of("GET /ws HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n", true, false, false));
    }

    @ParameterizedTest
    @MethodSource("facts")
    void keepAliveExpectAndUpgradeComeFromVersionAndTokens(String request, boolean keepAlive, boolean expect, boolean ws) {
        Outcome o = Http1Collector.decode(request);
        assertThat(o.error()).isNull();
        Request r = o.requests().get(0);
        assertThat(r.keepAlive()).as("keep-alive").isEqualTo(keepAlive);
        assertThat(r.expectContinue()).as("100-continue").isEqualTo(expect);
        assertThat(r.upgradeWebSocket()).as("websocket").isEqualTo(ws);
    }

    static Stream<Arguments> targetForms() {
        return Stream.of(
                Arguments.of("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", "*", Http1RequestHead.ASTERISK_FORM),
                Arguments.of("GET http://a.test/x?y HTTP/1.1\r\nHost: a.test\r\n\r\n", "http://a.test/x?y", Http1RequestHead.ABSOLUTE_FORM),
                Arguments.of("GET https://a.test HTTP/1.1\r\nHost: a.test\r\n\r\n", "https://a.test", Http1RequestHead.ABSOLUTE_FORM),
                Arguments.of("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n", "a.test:443", Http1RequestHead.AUTHORITY_FORM),
                Arguments.of("CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n\r\n", "[2001:db8::1]:443", Http1RequestHead.AUTHORITY_FORM),
                Arguments.of("GET /%7Euser/a;b?c=d&e=%20#f HTTP/1.1\r\nHost: a\r\n\r\n", "/%7Euser/a;b?c=d&e=%20#f", Http1RequestHead.ORIGIN_FORM));
    }

    @ParameterizedTest
    @MethodSource("targetForms")
    void targetFormIsRecorded(String request, String target, int form) {
        Outcome o = Http1Collector.decode(request);
        assertThat(o.error()).isNull();
        assertThat(o.requests().get(0).target()).isEqualTo(target);
        assertThat(o.requests().get(0).targetForm()).isEqualTo(form);
    }

    /** RFC 9112 3.2.2: the head splits an absolute-form target; its authority wins over Host. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        "GET /a?b HTTP/1.1\\r\\nHost: a.test\\r\\n\\r\\n|a.test|/a?b",
        "GET / HTTP/1.0\\r\\n\\r\\n|null|/",
        "OPTIONS * HTTP/1.1\\r\\nHost: a.test\\r\\n\\r\\n|a.test|*",
        "GET http://b.test/x?y HTTP/1.1\\r\\nHost: a.test\\r\\n\\r\\n|b.test|/x?y",
        "GET https://b.test:8443 HTTP/1.1\\r\\nHost: a.test\\r\\n\\r\\n|b.test:8443|/",
        "GET http://b.test?q HTTP/1.1\\r\\nHost: a.test\\r\\n\\r\\n|b.test|null",
    })
    void authorityAndPathComeFromTheTargetOrHost(String request, String authority, String path) {
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder());
        ch.writeInbound(Unpooled.copiedBuffer(request.replace("\\r\\n", "\r\n"), ISO_8859_1));
        Http1RequestHead head = ch.readInbound();
        try {
            assertThat(head.authority() == null ? null : head.authority().toString()).isEqualTo(authority);
            assertThat(head.path() == null ? null : head.path().toString()).isEqualTo(path);
        } finally {
            head.release();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void contentLengthBodyIsStreamedThenEnded() {
        Outcome o = Http1Collector.decode(POST);
        assertThat(o.error()).isNull();
        assertThat(o.requests()).hasSize(1);
        assertThat(o.requests().get(0).body()).isEqualTo("hello world");
        assertThat(o.requests().get(0).contentLength()).isEqualTo(11);
        assertThat(o.requests().get(0).complete()).isTrue();
    }

    @Test
    void chunkedBodyLosesFramingExtensionsAndTrailers() {
        Outcome o = Http1Collector.decode(CHUNKED);
        assertThat(o.error()).isNull();
        assertThat(o.requests()).hasSize(1);
        Request r = o.requests().get(0);
        assertThat(r.chunked()).isTrue();
        assertThat(r.body()).isEqualTo("hello 0123456789");
        assertThat(r.complete()).isTrue();
    }

    @Test
    void emptyChunkedBodyStillEndsWithMarker() {
        Outcome o = Http1Collector.decode("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assertThat(o.requests()).singleElement().satisfies(r -> {
            assertThat(r.body()).isEmpty();
            assertThat(r.complete()).isTrue();
        });
    }

    @Test
    void zeroContentLengthHasNoBodyMessages() {
        List<Object> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                seen.add(msg.getClass());
                ((Http1RequestHead) msg).release();
            }
        });
        ch.writeInbound(Unpooled.copiedBuffer("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n" + GET, ISO_8859_1));
        assertThat(seen).containsExactly(Http1RequestHead.class, Http1RequestHead.class);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void pipelinedRequestsInOneReadAreDecodedInOrder() {
        Outcome o = Http1Collector.decode(GET + POST + CHUNKED + "\r\n" + BROWSER + "DELETE /x HTTP/1.1\r\nHost: b\r\n\r\n");
        assertThat(o.error()).isNull();
        assertThat(o.requests()).extracting(Request::method).containsExactly("GET", "POST", "POST", "GET", "DELETE");
        assertThat(o.requests()).extracting(Request::body).containsExactly("", "hello world", "hello 0123456789", "", "");
    }

    static Stream<String> fragmented() {
        return Stream.of(GET, BROWSER, POST, CHUNKED, GET + POST + CHUNKED + GET,
                "\r\n\r\nGET / HTTP/1.0\r\n\r\n",
                "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + GET,
                "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                "GET / HTTP/1.1\nHost: a\r\n\r\n",
                "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n",
                "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;\0\r\nabc\r\n");
    }

    @ParameterizedTest
    @MethodSource("fragmented")
    void splittingAtEveryByteBoundaryChangesNothing(String request) {
        byte[] bytes = request.getBytes(ISO_8859_1);
        Outcome whole = Http1Collector.decode(new Http1RequestDecoder(), bytes);
        for (int at = 1; at < bytes.length; at++) {
            assertThat(Http1Collector.decodeSplit(bytes, at)).as("split at %d", at).isEqualTo(whole);
        }
        assertThat(Http1Collector.decodeByteByByte(bytes)).as("byte by byte").isEqualTo(whole);
    }

    @Test
    void leadingEmptyLinesAreSkippedUpToTheLimit() {
        String lines = "\r\n".repeat(Http1RequestDecoder.MAX_EMPTY_LINES);
        assertThat(Http1Collector.decode(lines + GET).requests()).hasSize(1);
        assertThat(Http1Collector.decode(lines + "\r\n" + GET).error()).isEqualTo(Http1Error.TOO_MANY_EMPTY_LINES);
        assertThat(Http1Collector.decode(POST + "\r\n" + GET).requests()).hasSize(2);
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                // framing: Content-Length and Transfer-Encoding
                rejects("CL and TE", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", Http1Error.CONTENT_LENGTH_WITH_TRANSFER_ENCODING),
                rejects("TE and CL", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", Http1Error.CONTENT_LENGTH_WITH_TRANSFER_ENCODING),
                rejects("two CL, equal", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", Http1Error.DUPLICATE_CONTENT_LENGTH),
                rejects("two CL, different", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", Http1Error.DUPLICATE_CONTENT_LENGTH),
                rejects("CL list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\nx", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL plus", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\nx", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL minus", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL empty", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL hex", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x1\r\n\r\nx", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL inner space", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 0\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL overflow", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9223372036854775808\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL too large", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10485761\r\n\r\n", Http1Error.BODY_TOO_LARGE),
                rejects("CL max long", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9223372036854775807\r\n\r\n", Http1Error.BODY_TOO_LARGE),
                // Transfer-Encoding
                rejects("TE trailing junk", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked x\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE vertical tab", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\u000b\r\n\r\n", Http1Error.INVALID_HEADER_VALUE),
                rejects("TE xchunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE chunked, identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE chunked twice in a list", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE empty element", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: , chunked\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE empty", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE gzip, chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", Http1Error.UNSUPPORTED_TRANSFER_CODING),
                rejects("TE twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", Http1Error.DUPLICATE_TRANSFER_ENCODING),
                rejects("TE space before colon", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n", Http1Error.WHITESPACE_BEFORE_COLON),
                rejects("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", Http1Error.TRANSFER_ENCODING_IN_HTTP_1_0),
                // field lines
                rejects("obs-fold SP", "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n", Http1Error.OBS_FOLD),
                rejects("obs-fold HTAB", "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n\t2\r\n\r\n", Http1Error.OBS_FOLD),
                rejects("whitespace before first field", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", Http1Error.OBS_FOLD),
                rejects("bare LF ends a field", "GET / HTTP/1.1\r\nHost: a\nX: 1\r\n\r\n", Http1Error.BARE_LF),
                rejects("bare LF ends request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", Http1Error.BARE_LF),
                rejects("bare LF ends head", "GET / HTTP/1.1\r\nHost: a\r\n\n", Http1Error.BARE_LF),
                rejects("bare LF first", "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.BARE_LF),
                rejects("bare CR in value", "GET / HTTP/1.1\r\nHost: a\rX: 1\r\n\r\n", Http1Error.BARE_CR),
                rejects("bare CR in name", "GET / HTTP/1.1\r\nHost: a\r\nX\rY: 1\r\n\r\n", Http1Error.BARE_CR),
                rejects("CR CR LF", "GET / HTTP/1.1\r\nHost: a\r\r\n\r\n", Http1Error.BARE_CR),
                rejects("NUL in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n", Http1Error.INVALID_HEADER_VALUE),
                rejects("DEL in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\u007fb\r\n\r\n", Http1Error.INVALID_HEADER_VALUE),
                rejects("ESC in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\u001bb\r\n\r\n", Http1Error.INVALID_HEADER_VALUE),
                rejects("control byte in name", "GET / HTTP/1.1\r\nHost: a\r\nX\u0001: 1\r\n\r\n", Http1Error.INVALID_HEADER_NAME),
                rejects("slash in name", "GET / HTTP/1.1\r\nHost: a\r\nX/Y: 1\r\n\r\n", Http1Error.INVALID_HEADER_NAME),
                rejects("non-ASCII in name", "GET / HTTP/1.1\r\nHost: a\r\nX\u00e9: 1\r\n\r\n", Http1Error.INVALID_HEADER_NAME),
                rejects("no colon", "GET / HTTP/1.1\r\nHost: a\r\nX-No-Colon\r\n\r\n", Http1Error.INVALID_HEADER_NAME),
                rejects("tab before colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", Http1Error.WHITESPACE_BEFORE_COLON),
                rejects("empty name", "GET / HTTP/1.1\r\nHost: a\r\n: x\r\n\r\n", Http1Error.EMPTY_HEADER_NAME),
                rejects("no Host in 1.1", "GET / HTTP/1.1\r\nX: 1\r\n\r\n", Http1Error.MISSING_HOST),
                rejects("two Host", "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", Http1Error.DUPLICATE_HOST),
                rejects("two Host in 1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", Http1Error.DUPLICATE_HOST),
                // request line
                rejects("two SP after method", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("two SP before version", "GET /  HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_VERSION),
                rejects("SP after version", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", Http1Error.INVALID_VERSION),
                rejects("HTAB as separator", "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_METHOD),
                rejects("leading SP", " GET / HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_METHOD),
                rejects("method not a token", "GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_METHOD),
                rejects("no target", "GET HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("HTTP/0.9", "GET /\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("SP in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_VERSION),
                rejects("CTL in target", "GET /a\u0001b HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("DEL in target", "GET /a\u007f HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("non-ASCII in target", "GET /caf\u00e9 HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("relative target", "GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("asterisk with GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("authority-form with GET", "GET a.test:80 HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("CONNECT with origin-form", "CONNECT /x HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("CONNECT without port", "CONNECT a.test HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("absolute-form without authority", "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_TARGET),
                rejects("lower-case version", "GET / http/1.1\r\nHost: a\r\n\r\n", Http1Error.INVALID_VERSION),
                rejects("version 1.10", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", Http1Error.INVALID_VERSION),
                rejects("version junk", "GET / HTTP/1.x\r\nHost: a\r\n\r\n", Http1Error.INVALID_VERSION),
                rejects("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", Http1Error.UNSUPPORTED_VERSION),
                rejects("HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", Http1Error.UNSUPPORTED_VERSION),
                rejects("HTTP/0.9 versioned", "GET / HTTP/0.9\r\nHost: a\r\n\r\n", Http1Error.UNSUPPORTED_VERSION),
                // chunked framing
                rejects("chunk size not hex", chunked("g\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size empty", chunked("\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size with sign", chunked("+1\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size leading SP", chunked(" 1\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size 17 digits", chunked("00000000000000001\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size 0x", chunked("0x1\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk size trailing SP", chunked("1 \r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk size 16 digits, too large", chunked("ffffffffffffffff\r\nx\r\n0\r\n\r\n"), Http1Error.BODY_TOO_LARGE),
                rejects("chunk data longer than size", chunked("1\r\nxy\r\n0\r\n\r\n"), Http1Error.MISSING_CHUNK_CRLF),
                rejects("chunk data with bare LF", chunked("1\r\nx\n0\r\n\r\n"), Http1Error.MISSING_CHUNK_CRLF),
                rejects("chunk line bare LF", chunked("1\nx\r\n0\r\n\r\n"), Http1Error.BARE_LF),
                rejects("chunk extension control byte", chunked("1;a\0\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk extension bare CR", chunked("1;a\rb\r\nx\r\n0\r\n\r\n"), Http1Error.BARE_CR),
                rejects("chunk extension too long", chunked("1;" + "a".repeat(Http1RequestDecoder.MAX_CHUNK_LINE_LENGTH) + "\r\nx\r\n0\r\n\r\n"), Http1Error.CHUNK_LINE_TOO_LONG),
                rejects("chunk extension endless", chunked("1;" + "a".repeat(Http1RequestDecoder.MAX_CHUNK_LINE_LENGTH + 10)), Http1Error.CHUNK_LINE_TOO_LONG),
                rejects("trailer obs-fold", chunked("0\r\nX: 1\r\n 2\r\n\r\n"), Http1Error.OBS_FOLD),
                rejects("trailer bare LF", chunked("0\r\nX: 1\n\r\n"), Http1Error.BARE_LF),
                rejects("trailer invalid name", chunked("0\r\nX Y: 1\r\n\r\n"), Http1Error.WHITESPACE_BEFORE_COLON));
    }

    private static String chunked(String body) {
        return "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + body;
    }

    private static Arguments rejects(String name, String request, Http1Error error) {
        return Arguments.of(name, request, error);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void rejectsWithStatusAndDiscardsTheRest(String name, String request, Http1Error error) {
        Outcome o = Http1Collector.decode(new Http1RequestDecoder(), request.getBytes(ISO_8859_1),
                GET.getBytes(ISO_8859_1), GET.getBytes(ISO_8859_1));
        assertThat(o.error()).isEqualTo(error);
        assertThat(o.requests()).allSatisfy(r -> assertThat(r.complete()).as("a request before the error").isFalse());
    }

    @Test
    void requestLineLimitGives414OnlyAboveIt() {
        int limit = 64;
        String atLimit = "GET /" + "a".repeat(limit - "GET / HTTP/1.1".length()) + " HTTP/1.1";
        assertThat(atLimit).hasSize(limit);
        assertThat(decodeWithLimits(limit, 1024, 10, 100, atLimit + "\r\nHost: a\r\n\r\n").error()).isNull();
        String above = "GET /a" + atLimit.substring(5);
        assertThat(decodeWithLimits(limit, 1024, 10, 100, above + "\r\nHost: a\r\n\r\n").error())
                .isEqualTo(Http1Error.REQUEST_LINE_TOO_LONG);
        // without waiting for the line to end
        assertThat(decodeWithLimits(limit, 1024, 10, 100, above).error()).isEqualTo(Http1Error.REQUEST_LINE_TOO_LONG);
        assertThat(decodeWithLimits(limit, 1024, 10, 100, atLimit + "\r").error()).isNull();
        assertThat(Http1Collector.decode("GET /" + "a".repeat(8 * 1024) + " HTTP/1.1\r\nHost: a\r\n\r\n").error())
                .isEqualTo(Http1Error.REQUEST_LINE_TOO_LONG);
    }

    @Test
    void headSizeLimitGives431OnlyAboveIt() {
        String base = "GET / HTTP/1.1\r\nHost: a\r\nX: \r\n\r\n";
        int limit = 128;
        String atLimit = base.replace("X: ", "X: " + "v".repeat(limit - base.length()));
        assertThat(atLimit).hasSize(limit);
        assertThat(decodeWithLimits(64, limit, 10, 100, atLimit).error()).isNull();
        String above = atLimit.replace("X: ", "X: v");
        assertThat(decodeWithLimits(64, limit, 10, 100, above).error()).isEqualTo(Http1Error.HEAD_TOO_LARGE);
        assertThat(decodeWithLimits(64, limit, 10, 100, above.substring(0, limit)).error()).isEqualTo(Http1Error.HEAD_TOO_LARGE);
        assertThat(Http1Collector.decode("GET / HTTP/1.1\r\nHost: a\r\nX: " + "v".repeat(32 * 1024) + "\r\n\r\n").error())
                .isEqualTo(Http1Error.HEAD_TOO_LARGE);
    }

    @Test
    void headerCountLimitGives431OnlyAboveIt() {
        StringBuilder sb = new StringBuilder("GET / HTTP/1.1\r\nHost: a\r\n");
        for (int i = 1; i < 100; i++) {
            sb.append("X-").append(i).append(": ").append(i).append("\r\n");
        }
        assertThat(Http1Collector.decode(sb + "\r\n").requests().get(0).headers()).hasSize(100);
        assertThat(Http1Collector.decode(sb + "X-100: 100\r\n\r\n").error()).isEqualTo(Http1Error.TOO_MANY_HEADERS);
    }

    @Test
    void bodyLimitGives413ForDeclaredLengthAndForChunkSum() {
        String cl = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n";
        assertThat(decodeWithLimits(64, 1024, 10, 10, cl.formatted(10) + "0123456789").requests().get(0).body()).hasSize(10);
        assertThat(decodeWithLimits(64, 1024, 10, 10, cl.formatted(11)).error()).isEqualTo(Http1Error.BODY_TOO_LARGE);
        String ch = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n";
        assertThat(decodeWithLimits(64, 1024, 10, 10, ch + "5\r\n56789\r\n0\r\n\r\n").error()).isNull();
        Outcome over = decodeWithLimits(64, 1024, 10, 10, ch + "6\r\n567890\r\n0\r\n\r\n");
        assertThat(over.error()).isEqualTo(Http1Error.BODY_TOO_LARGE);
        assertThat(over.requests().get(0).body()).isEqualTo("01234");
    }

    @Test
    void trailerLimitsReuseTheHeadLimits() {
        String ch = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
        assertThat(decodeWithLimits(64, 128, 2, 100, ch + "A: 1\r\nB: 2\r\n\r\n").error()).isNull();
        assertThat(decodeWithLimits(64, 128, 2, 100, ch + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n").error()).isEqualTo(Http1Error.TRAILERS_TOO_LARGE);
        assertThat(decodeWithLimits(64, 128, 2, 100, ch + "A: " + "v".repeat(200) + "\r\n\r\n").error()).isEqualTo(Http1Error.TRAILERS_TOO_LARGE);
    }

    @Test
    void nothingIsDecodedAfterANonKeepAliveRequest() {
        Outcome o = Http1Collector.decode("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" + GET);
        assertThat(o.requests()).hasSize(1);
        assertThat(o.error()).isNull();
        Outcome post = Http1Collector.decode("POST / HTTP/1.0\r\nContent-Length: 1\r\n\r\nx" + GET);
        assertThat(post.requests()).extracting(Request::body).containsExactly("x");
    }

    @Test
    void limitsAreValidated() {
        assertThatThrownBy(() -> new Http1RequestDecoder(8192, 4096, 100, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected:");
        assertThatThrownBy(() -> new Http1RequestDecoder(64, 1024, 0, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHeldHeadHoldsBackThePipelinedNextOneUntilReleasedAndResumed() throws Exception {
        List<Http1RequestHead> heads = new ArrayList<>();
        Http1RequestDecoder decoder = new Http1RequestDecoder();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                Http1RequestHead head = (Http1RequestHead) msg;
                heads.add(head);
                assertThat(head.target()).hasToString(heads.size() == 1 ? "/first" : "/second");
            }
        });
        ch.writeInbound(Unpooled.copiedBuffer("GET /first HTTP/1.1\r\nHost: a\r\n\r\nGET /sec", ISO_8859_1));
        // a second read while the first head is held: the cumulation is shared, so Netty copies it
        // instead of compacting it, and the held slice still reads the first head
        ch.writeInbound(Unpooled.copiedBuffer("ond HTTP/1.1\r\nHost: a\r\n\r\n", ISO_8859_1));
        assertThat(heads).hasSize(1);
        assertThat(heads.get(0).target()).hasToString("/first");
        assertThat(heads.get(0).host()).hasToString("a");
        decoder.resume();
        assertThat(heads).as("still held").hasSize(1);
        heads.get(0).release();
        decoder.resume();
        assertThat(heads).hasSize(2);
        heads.get(1).release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void removingTheDecoderOnUpgradePassesTheRestOnUnparsed() {
        Http1RequestDecoder decoder = new Http1RequestDecoder();
        List<Object> after = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(decoder, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof Http1RequestHead head) {
                    assertThat(head.isUpgradeWebSocket()).isTrue();
                    head.release();
                    ctx.pipeline().remove(decoder);
                } else {
                    after.add(msg);
                }
            }
        });
        ch.writeInbound(Unpooled.copiedBuffer("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                + "\u0081\u0005frame", ISO_8859_1));
        assertThat(after).singleElement().satisfies(m -> {
            ByteBuf b = (ByteBuf) m;
            assertThat(b.toString(ISO_8859_1)).isEqualTo("\u0081\u0005frame");
            b.release();
        });
        ch.finishAndReleaseAll();
    }

    private static Outcome decodeWithLimits(int line, int head, int headers, long body, String request) {
        return Http1Collector.decode(new Http1RequestDecoder(line, head, headers, body), request.getBytes(ISO_8859_1));
    }
}
