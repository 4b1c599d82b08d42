package io.paduraksa.proxy.http1;

import static io.paduraksa.proxy.http1.Http1ResponseCollector.END;
import static io.paduraksa.proxy.http1.Http1ResponseCollector.bytes;
import static io.paduraksa.proxy.http1.Http1ResponseCollector.decode;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AsciiString;
import io.paduraksa.http1.Http1Error.Kind;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.proxy.http1.Http1ResponseCollector.Head;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class Http1ResponseDecoderTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello";
    private static final String CHUNKED = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1 ; x\r\n \r\nA\r\n0123456789\r\n0\r\n\r\n";
    private static final String GRPC = "HTTP/1.1 200 OK\r\nContent-Type: application/grpc\r\nTransfer-Encoding: chunked\r\n"
            + "Trailer: grpc-status, grpc-message\r\n\r\n"
            + "3\r\nabc\r\n0\r\ngrpc-status: 0\r\ngrpc-message:\t all good \r\n\r\n";
    private static final String CLOSE_DELIMITED = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end";

    // ---- the head

    @Test
    void statusLineAndFieldsAreRecordedAsPositions() {
        String response = "HTTP/1.1 404 Not Found\r\nServer: origin.test\r\nx-PAD: \t v a l \t \r\nConnection: X-Hop, keep-alive\r\n"
                + "X-Hop: 1\r\nContent-Length: 0\r\n\r\n";
        EmbeddedChannel ch = new EmbeddedChannel(new Http1ResponseDecoder());
        ch.pipeline().get(Http1ResponseDecoder.class).expectResponse(false, false);
        ch.writeInbound(Unpooled.copiedBuffer(response, ISO_8859_1));
        Http1ResponseHead head = ch.readInbound();
        try {
            assertThat(head.buffer().toString(ISO_8859_1)).isEqualTo(response);
            assertThat(head.version()).isEqualTo(Http1ResponseHead.HTTP_1_1);
            assertThat(head.status()).isEqualTo(404);
            assertThat(head.isInformational()).isFalse();
            assertThat(head.reasonStart()).isEqualTo(13);
            assertThat(head.reasonEnd()).isEqualTo(22);
            assertThat(head.reason()).hasToString("Not Found");
            assertThat(head.headerCount()).isEqualTo(5);
            assertThat(head.headerName(0)).hasToString("Server");
            assertThat(head.headerNameStart(0)).isEqualTo(24);
            assertThat(head.headerNameEnd(0)).isEqualTo(30);
            assertThat(head.headerValueStart(0)).isEqualTo(32);
            assertThat(head.headerValueEnd(0)).isEqualTo(43);
            assertThat(head.headerValue(1)).hasToString("v a l");
            assertThat(head.findHeader(AsciiString.of("x-pad"))).isEqualTo(1);
            assertThat(head.findHeader(AsciiString.of("x-hop"), 3)).isEqualTo(3);
            assertThat(head.findHeader(AsciiString.of("missing"))).isEqualTo(-1);
            assertThat(head.isConnectionOption("x-hop")).isTrue();
            assertThat(head.isConnectionOption("X-HOP")).isTrue();
            assertThat(head.isConnectionOption(AsciiString.of("keep-alive"))).isTrue();
            assertThat(head.isConnectionOption("x-pad")).isFalse();
            assertThat(head.isConnectionOption("x-ho")).isFalse();
            assertThat(head.contentLength()).isZero();
            assertThat(head.hasBody()).isFalse();
            assertThat(head.isKeepAlive()).isTrue();
            assertThat((Object) ch.readInbound()).isSameAs(Http1ResponseEnd.INSTANCE);
            assertThat((Object) ch.readInbound()).isNull();
        } finally {
            head.release();
            ch.finishAndReleaseAll();
        }
        assertThat(head.isHeld()).isFalse();
        head.release(); // idempotent
    }

    static Stream<Arguments> statusLines() {
        return Stream.of(
                Arguments.of("HTTP/1.1 200 OK", 11, 200, "OK"),
                Arguments.of("HTTP/1.0 200 OK", 10, 200, "OK"),
                Arguments.of("HTTP/1.1 200 ", 11, 200, ""),
                Arguments.of("HTTP/1.1 200", 11, 200, ""),
                Arguments.of("HTTP/1.1 599 x", 11, 599, "x"),
                Arguments.of("HTTP/1.1 299 Tab\tand \u00e9 obs-text", 11, 299, "Tab\tand \u00e9 obs-text"),
                Arguments.of("HTTP/1.1 200  two spaces ", 11, 200, " two spaces "));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statusLines")
    void statusLineFormsAreAccepted(String line, int version, int status, String reason) {
        List<Object> events = decode("G", line + "\r\nContent-Length: 0\r\n\r\n");
        assertThat(events).hasSize(2);
        Head head = (Head) events.get(0);
        assertThat(head.version()).isEqualTo(version);
        assertThat(head.status()).isEqualTo(status);
        assertThat(head.reason()).isEqualTo(reason);
        assertThat(events.get(1)).isEqualTo(END);
    }

    // ---- framing: every way a response body can be delimited

    static Stream<Arguments> framings() {
        return Stream.of(
                frames("Content-Length", "G", OK, "data:hello", END),
                frames("Content-Length 0", "G", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", END),
                frames("Content-Length repeated equal", "G", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab", "data:ab", END),
                frames("Content-Length list equal", "G", "HTTP/1.1 200 OK\r\nContent-Length: 2 ,2\r\n\r\nab", "data:ab", END),
                frames("chunked, extensions skipped", "G", CHUNKED, "data:hello 0123456789", END),
                frames("chunked, upper-case hex and leading zeros", "G", "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n00B\r\nhello world\r\n000\r\n\r\n", "data:hello world", END),
                frames("chunked, empty", "G", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", END),
                frames("gzip, chunked", "G", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n", "data:z", END),
                frames("gzip then chunked on two lines", "G", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n", "data:z", END),
                frames("chunked with trailers", "G", GRPC, "data:abc", "trailers:[grpc-status: 0, grpc-message: all good]", END),
                frames("close-delimited ends at close", "G", CLOSE_DELIMITED, "data:until the end", END),
                frames("close-delimited, empty", "G", "HTTP/1.1 200 OK\r\n\r\n", END),
                frames("HTTP/1.0 close-delimited", "G", "HTTP/1.0 200 OK\r\n\r\nold", "data:old", END),
                frames("HEAD with Content-Length", "H", "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", END),
                frames("HEAD with chunked", "H", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", END),
                frames("HEAD without framing", "H", "HTTP/1.1 200 OK\r\n\r\n", END),
                frames("204 with Content-Length", "G", "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", END),
                frames("304 with Content-Length", "G", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", END),
                frames("100 Continue then 200", "G", "HTTP/1.1 100 Continue\r\n\r\n" + OK, "data:hello", END),
                frames("103 Early Hints then 200", "G", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n" + OK, "data:hello", END),
                frames("101 with an upgrade request", "U", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                        + "\u0081\u0002hi\r\n\r\nHTTP/1.1 200 OK\r\n", "data:\u0081\u0002hi\r\n\r\nHTTP/1.1 200 OK\r\n"),
                frames("200 to an upgrade request", "U", OK, "data:hello", END));
    }

    private static Arguments frames(String name, String expect, String response, String... afterHeads) {
        return Arguments.of(name, expect, response, List.of(afterHeads));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("framings")
    void everyFramingDeliversHeadBodyAndEnd(String name, String expect, String response, List<String> afterHeads) {
        List<Object> events = decode(expect, response);
        List<Object> rest = new ArrayList<>();
        for (Object e : events) {
            if (!(e instanceof Head)) {
                rest.add(e);
            }
        }
        assertThat(rest).isEqualTo(afterHeads);
        assertThat(events).filteredOn(e -> e instanceof Head h && !h.informational()).hasSize(1);
    }

    static Stream<Arguments> facts() {
        // response, expect, contentLength, chunked, closeDelimited, keepAlive, hasBody
        return Stream.of(
                Arguments.of(OK, "G", 5L, false, false, true, true),
                Arguments.of(CHUNKED, "G", -1L, true, false, true, true),
                Arguments.of(CLOSE_DELIMITED, "G", -1L, false, true, false, true),
                Arguments.of("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "G", 0L, false, false, true, false),
                Arguments.of("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", "G", 0L, false, false, false, false),
                Arguments.of("HTTP/1.1 200 OK\r\nConnection: foo, CLOSE\r\nContent-Length: 0\r\n\r\n", "G", 0L, false, false, false, false),
                Arguments.of("HTTP/1.1 200 OK\r\nConnection: closed\r\nContent-Length: 0\r\n\r\n", "G", 0L, false, false, true, false),
                Arguments.of("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", "G", 0L, false, false, false, false),
                Arguments.of("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", "G", 0L, false, false, true, false),
                Arguments.of("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", "G", 0L, false, false, false, false),
                Arguments.of("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n", "G", -1L, false, true, false, true),
                Arguments.of("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", "H", 1234L, false, false, true, false),
                Arguments.of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "H", -1L, true, false, true, false),
                Arguments.of("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", "G", 10L, false, false, true, false),
                Arguments.of("HTTP/1.1 304 Not Modified\r\n\r\n", "G", -1L, false, false, true, false));
    }

    @ParameterizedTest
    @MethodSource("facts")
    void framingFactsFollowRfc9112Section6(String response, String expect, long contentLength, boolean chunked,
            boolean closeDelimited, boolean keepAlive, boolean hasBody) {
        Head head = (Head) decode(expect, response).get(0);
        assertThat(head.contentLength()).as("content length").isEqualTo(contentLength);
        assertThat(head.chunked()).as("chunked").isEqualTo(chunked);
        assertThat(head.closeDelimited()).as("close-delimited").isEqualTo(closeDelimited);
        assertThat(head.keepAlive()).as("keep-alive").isEqualTo(keepAlive);
        assertThat(head.hasBody()).as("has body").isEqualTo(hasBody);
    }

    @Test
    void interimHeadsComeBeforeTheFinalHeadOfTheSameResponse() {
        List<Object> events = decode("G", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.js>\r\n\r\n" + OK);
        assertThat(events).hasSize(5);
        assertThat(events.get(0)).isInstanceOfSatisfying(Head.class, h -> {
            assertThat(h.status()).isEqualTo(100);
            assertThat(h.informational()).isTrue();
            assertThat(h.hasBody()).isFalse();
            assertThat(h.bytes()).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        });
        assertThat(events.get(1)).isInstanceOfSatisfying(Head.class, h -> assertThat(h.headers()).containsExactly("Link: </s.js>"));
        assertThat(events.get(2)).isInstanceOfSatisfying(Head.class, h -> assertThat(h.informational()).isFalse());
        assertThat(events.subList(3, 5)).containsExactly("data:hello", END);
    }

    @Test
    void switchingProtocolsIsFinalAndPassesEverythingAfterItRaw() {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        Http1ResponseCollector collector = new Http1ResponseCollector();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, collector);
        try {
            decoder.expectResponse(false, true);
            ch.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", ISO_8859_1));
            assertThat(decoder.isReusable()).isFalse();
            ch.writeInbound(Unpooled.copiedBuffer("\0\0garbage\n", ISO_8859_1));
            ch.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\n\r\n", ISO_8859_1));
            ch.close();
            assertThat(collector.events()).hasSize(2);
            assertThat(((Head) collector.events().get(0)).informational()).isFalse();
            assertThat(collector.events().get(1)).isEqualTo("data:\0\0garbage\nHTTP/1.1 200 OK\r\n\r\n");
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    // ---- errors

    static Stream<Arguments> rejected() {
        return Stream.of(
                // status line
                rejects("leading empty line", "\r\n" + OK, Http1Error.NOT_HTTP_1),
                rejects("leading SP", " " + OK, Http1Error.NOT_HTTP_1),
                rejects("lower-case version", "http/1.1 200 OK\r\n\r\n", Http1Error.NOT_HTTP_1),
                rejects("HTTP/2.0", "HTTP/2.0 200 OK\r\n\r\n", Http1Error.NOT_HTTP_1),
                rejects("HTTP/1.2", "HTTP/1.2 200 OK\r\n\r\n", Http1Error.NOT_HTTP_1),
                rejects("HTTP/0.9 body", "<html>hello</html>", Http1Error.NOT_HTTP_1),
                rejects("TLS alert", "\u0015\u0003\u0003\u0000\u0002\u0002\u0046", Http1Error.NOT_HTTP_1),
                rejects("no status", "HTTP/1.1\r\n\r\n", Http1Error.MALFORMED_STATUS_LINE),
                rejects("two SP after version", "HTTP/1.1  200 OK\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("HTAB after version", "HTTP/1.1\t200 OK\r\n\r\n", Http1Error.MALFORMED_STATUS_LINE),
                rejects("HTAB after status", "HTTP/1.1 200\tOK\r\n\r\n", Http1Error.MALFORMED_STATUS_LINE),
                rejects("two-digit status", "HTTP/1.1 20 OK\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("two-digit status, no reason", "HTTP/1.1 20\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("status 099", "HTTP/1.1 099 Low\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("status 600", "HTTP/1.1 600 High\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("status with letter", "HTTP/1.1 2x0 OK\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("status with sign", "HTTP/1.1 +20 OK\r\n\r\n", Http1Error.INVALID_STATUS_CODE),
                rejects("control byte in reason", "HTTP/1.1 200 O\u0001K\r\n\r\n", Http1Error.INVALID_REASON),
                rejects("DEL in reason", "HTTP/1.1 200 O\u007fK\r\n\r\n", Http1Error.INVALID_REASON),
                rejects("NUL in reason", "HTTP/1.1 200 O\0K\r\n\r\n", Http1Error.NUL),
                rejects("bare CR in reason", "HTTP/1.1 200 O\rK\r\n\r\n", Http1Error.BARE_CR),
                rejects("bare LF ends status line", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", Http1Error.BARE_LF),
                // field lines
                rejects("bare LF ends a field", "HTTP/1.1 200 OK\r\nA: 1\nContent-Length: 0\r\n\r\n", Http1Error.BARE_LF),
                rejects("bare LF ends head", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\n", Http1Error.BARE_LF),
                rejects("bare CR in value", "HTTP/1.1 200 OK\r\nA: 1\rContent-Length: 0\r\n\r\n", Http1Error.BARE_CR),
                rejects("bare CR in name", "HTTP/1.1 200 OK\r\nA\rB: 1\r\n\r\n", Http1Error.BARE_CR),
                rejects("CR CR LF", "HTTP/1.1 200 OK\r\nA: 1\r\r\n\r\n", Http1Error.BARE_CR),
                rejects("NUL in value", "HTTP/1.1 200 OK\r\nA: 1\0 2\r\n\r\n", Http1Error.NUL),
                rejects("NUL in name", "HTTP/1.1 200 OK\r\nA\0: 1\r\n\r\n", Http1Error.NUL),
                rejects("obs-fold SP", "HTTP/1.1 200 OK\r\nA: 1\r\n 2\r\n\r\n", Http1Error.OBS_FOLD),
                rejects("obs-fold HTAB", "HTTP/1.1 200 OK\r\nA: 1\r\n\t2\r\n\r\n", Http1Error.OBS_FOLD),
                rejects("SP before colon", "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello", Http1Error.WHITESPACE_BEFORE_COLON),
                rejects("HTAB before colon", "HTTP/1.1 200 OK\r\nTransfer-Encoding\t: chunked\r\n\r\n", Http1Error.WHITESPACE_BEFORE_COLON),
                rejects("control byte in value", "HTTP/1.1 200 OK\r\nA: 1\u001b2\r\n\r\n", Http1Error.INVALID_HEADER_VALUE),
                rejects("DEL in value", "HTTP/1.1 200 OK\r\nA: 1\u007f\r\n\r\n", Http1Error.INVALID_HEADER_VALUE),
                rejects("slash in name", "HTTP/1.1 200 OK\r\nA/B: 1\r\n\r\n", Http1Error.INVALID_HEADER_NAME),
                rejects("non-ASCII in name", "HTTP/1.1 200 OK\r\nA\u00e9: 1\r\n\r\n", Http1Error.INVALID_HEADER_NAME),
                rejects("no colon", "HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n", Http1Error.INVALID_HEADER_NAME),
                rejects("empty name", "HTTP/1.1 200 OK\r\n: 1\r\n\r\n", Http1Error.EMPTY_HEADER_NAME),
                // Content-Length and Transfer-Encoding
                rejects("CL and TE", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", Http1Error.CONTENT_LENGTH_WITH_TRANSFER_ENCODING),
                rejects("TE and CL", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", Http1Error.CONTENT_LENGTH_WITH_TRANSFER_ENCODING),
                rejects("CL and TE on a 204", "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n", Http1Error.CONTENT_LENGTH_WITH_TRANSFER_ENCODING),
                rejects("two CL differing", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", Http1Error.CONFLICTING_CONTENT_LENGTH),
                rejects("CL list differing", "HTTP/1.1 200 OK\r\nContent-Length: 2, 1\r\n\r\nxx", Http1Error.CONFLICTING_CONTENT_LENGTH),
                rejects("two CL, equal number written differently", "HTTP/1.1 200 OK\r\nContent-Length: 09\r\nContent-Length: 9\r\n\r\n123456789", Http1Error.CONFLICTING_CONTENT_LENGTH),
                rejects("CL list, equal number written differently", "HTTP/1.1 200 OK\r\nContent-Length: 1, 01\r\n\r\nx", Http1Error.CONFLICTING_CONTENT_LENGTH),
                rejects("chunk extension, unterminated quoted string", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;a=\"b\r\nx\r\n0\r\n\r\n", Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("last chunk, unterminated quoted string", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0;a=\"b\r\n\r\n", Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk extension, obs-text in a quoted-pair", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;a=\"q\\\u00a2s\"\r\nx\r\n0\r\n\r\n", Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk extension without a name", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;=b\r\nx\r\n0\r\n\r\n", Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("CL empty", "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL sign", "HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL negative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL hex", "HTTP/1.1 200 OK\r\nContent-Length: 0x1\r\n\r\nx", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL inner space", "HTTP/1.1 200 OK\r\nContent-Length: 1 0\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL empty list element", "HTTP/1.1 200 OK\r\nContent-Length: 1,\r\n\r\nx", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("CL overflow", "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n", Http1Error.INVALID_CONTENT_LENGTH),
                rejects("TE identity", "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\nx", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE gzip alone", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nx", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE chunked, gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE xchunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE chunked with junk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked x\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE with parameter", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE empty element", "HTTP/1.1 200 OK\r\nTransfer-Encoding: , chunked\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE empty", "HTTP/1.1 200 OK\r\nTransfer-Encoding:\r\n\r\n", Http1Error.INVALID_TRANSFER_ENCODING),
                rejects("TE in HTTP/1.0", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", Http1Error.TRANSFER_ENCODING_IN_HTTP_1_0),
                // chunked framing
                rejects("chunk size not hex", chunked("g\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size empty", chunked("\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size with sign", chunked("+1\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size leading SP", chunked(" 1\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size beyond a long", chunked("8000000000000000\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_SIZE),
                rejects("chunk size 0x", chunked("0x1\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk size trailing SP", chunked("1 \r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk data longer than size", chunked("1\r\nxy\r\n0\r\n\r\n"), Http1Error.MISSING_CHUNK_CRLF),
                rejects("chunk data with bare LF", chunked("1\r\nx\n0\r\n\r\n"), Http1Error.MISSING_CHUNK_CRLF),
                rejects("chunk line bare LF", chunked("1\nx\r\n0\r\n\r\n"), Http1Error.BARE_LF),
                rejects("chunk extension NUL", chunked("1;a\0\r\nx\r\n0\r\n\r\n"), Http1Error.NUL),
                rejects("chunk extension control byte", chunked("1;a\u0001\r\nx\r\n0\r\n\r\n"), Http1Error.INVALID_CHUNK_EXTENSION),
                rejects("chunk extension bare CR", chunked("1;a\rb\r\nx\r\n0\r\n\r\n"), Http1Error.BARE_CR),
                rejects("chunk line too long", chunked("1;" + "a".repeat(Http1ResponseDecoder.MAX_CHUNK_LINE_LENGTH) + "\r\nx\r\n0\r\n\r\n"), Http1Error.CHUNK_LINE_TOO_LONG),
                rejects("chunk line endless", chunked("1;" + "a".repeat(Http1ResponseDecoder.MAX_CHUNK_LINE_LENGTH + 10)), Http1Error.CHUNK_LINE_TOO_LONG),
                rejects("trailer obs-fold", chunked("0\r\nX: 1\r\n 2\r\n\r\n"), Http1Error.OBS_FOLD),
                rejects("trailer bare LF", chunked("0\r\nX: 1\n\r\n"), Http1Error.BARE_LF),
                rejects("trailer space before colon", chunked("0\r\nX : 1\r\n\r\n"), Http1Error.WHITESPACE_BEFORE_COLON),
                rejects("trailer NUL", chunked("0\r\nX: \0\r\n\r\n"), Http1Error.NUL),
                // unsolicited
                rejects("101 without an upgrade request", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", Http1Error.UNREQUESTED_SWITCHING_PROTOCOLS),
                rejects("two responses to one request", OK + OK, Http1Error.BYTES_AFTER_RESPONSE),
                rejects("CRLF after a response", OK + "\r\n", Http1Error.BYTES_AFTER_RESPONSE),
                rejects("body longer than Content-Length", OK + "!", Http1Error.BYTES_AFTER_RESPONSE),
                rejects("bytes after a 204", "HTTP/1.1 204 No Content\r\n\r\nsmuggled", Http1Error.BYTES_AFTER_RESPONSE),
                rejects("bytes after a chunked body", CHUNKED + "0\r\n\r\n", Http1Error.BYTES_AFTER_RESPONSE),
                // premature close
                rejects("closed inside the status line", "HTTP/1.1 200", Http1Error.CLOSED_IN_HEAD),
                rejects("closed inside the head", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", Http1Error.CLOSED_IN_HEAD),
                rejects("closed after an interim head", "HTTP/1.1 100 Continue\r\n\r\n", Http1Error.CLOSED_IN_HEAD),
                rejects("closed inside a Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhell", Http1Error.CLOSED_IN_BODY),
                rejects("closed before a Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", Http1Error.CLOSED_IN_BODY),
                rejects("closed inside a chunk", chunked("5\r\nhel"), Http1Error.CLOSED_IN_BODY),
                rejects("closed after a chunk", chunked("5\r\nhello"), Http1Error.CLOSED_IN_BODY),
                rejects("closed inside a chunk line", chunked("5"), Http1Error.CLOSED_IN_BODY),
                rejects("closed before the last chunk", chunked("5\r\nhello\r\n"), Http1Error.CLOSED_IN_BODY),
                rejects("closed inside the trailers", chunked("0\r\ngrpc-status: 0\r\n"), Http1Error.CLOSED_IN_BODY),
                rejects("closed before the final CRLF", chunked("0\r\n"), Http1Error.CLOSED_IN_BODY));
    }

    private static String chunked(String body) {
        return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body;
    }

    private static Arguments rejects(String name, String response, Http1Error error) {
        return Arguments.of(name, response, error);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void rejectsOnceAndDiscardsTheRest(String name, String response, Http1Error error) {
        List<Object> events = decode("G", true, bytes(response));
        assertThat(events).last().isEqualTo(error);
        assertThat(events).filteredOn(e -> e instanceof Http1Error).hasSize(1);
        if (error.kind() != Kind.PREMATURE_CLOSE) {
            // with the connection left open, a valid response after the bad bytes changes nothing
            assertThat(decode("G", false, bytes(response), bytes(OK), bytes(OK))).isEqualTo(decode("G", false, bytes(response)));
        }
    }

    @Test
    void everyErrorConstantIsCoveredAndEveryKindIsReachable() {
        Set<Http1Error> covered = EnumSet.noneOf(Http1Error.class);
        rejected().forEach(a -> covered.add((Http1Error) a.get()[2]));
        covered.add(Http1Error.HEAD_TOO_LARGE); // limits are tested below
        covered.add(Http1Error.TRAILERS_TOO_LARGE);
        covered.add(Http1Error.TOO_MANY_HEADERS);
        covered.add(Http1Error.TOO_MANY_TRAILERS);
        covered.add(Http1Error.TOO_MANY_INTERIM_RESPONSES);
        covered.add(Http1Error.CLOSED_BEFORE_RESPONSE);
        covered.add(Http1Error.UNSOLICITED_BYTES);
        Set<Http1Error> responseErrors = EnumSet.noneOf(Http1Error.class);
        for (Http1Error e : Http1Error.values()) {
            assertThat(e.reason()).isNotBlank();
            if (e.isResponseError()) {
                responseErrors.add(e);
            }
        }
        assertThat(covered).containsExactlyInAnyOrderElementsOf(responseErrors);
    }

    // ---- splitting

    static Stream<Arguments> fragmented() {
        return Stream.of(
                Arguments.of("G", OK),
                Arguments.of("G", CHUNKED),
                Arguments.of("G", GRPC),
                Arguments.of("G", CLOSE_DELIMITED),
                Arguments.of("G", "HTTP/1.1 100 Continue\r\n\r\n" + OK),
                Arguments.of("GHGG", OK + "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n" + GRPC + "HTTP/1.1 204 No Content\r\n\r\n"),
                Arguments.of("U", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nraw\r\n"),
                Arguments.of("G", "HTTP/1.1 200 OK\r\nA: 1\nContent-Length: 0\r\n\r\n"),
                Arguments.of("G", chunked("3\r\nabcX\r\n")),
                Arguments.of("G", chunked("3;\0\r\nabc\r\n")),
                Arguments.of("G", OK + "HTTP/1.1 200 OK\r\n\r\n"));
    }

    @ParameterizedTest
    @MethodSource("fragmented")
    void splittingAtEveryByteBoundaryChangesNothing(String expect, String response) {
        byte[] bytes = bytes(response);
        List<Object> whole = kinds(decode(expect, true, bytes));
        for (int at = 1; at < bytes.length; at++) {
            assertThat(kinds(Http1ResponseCollector.decodeSplit(expect, bytes, at))).as("split at %d", at).isEqualTo(whole);
        }
        assertThat(kinds(Http1ResponseCollector.decodeByteByByte(expect, bytes))).as("byte by byte").isEqualTo(whole);
    }

    /**
     * Errors compared by kind: bytes after a response are {@code BYTES_AFTER_RESPONSE} when they come
     * in the same read and {@code UNSOLICITED_BYTES} when they come later, both UNSOLICITED.
     */
    private static List<Object> kinds(List<Object> events) {
        List<Object> out = new ArrayList<>(events);
        out.replaceAll(e -> e instanceof Http1Error error ? error.kind() : e);
        return out;
    }

    // ---- expectations, pipelining, reuse

    @Test
    void pipelinedResponsesAreDecodedOnlyWhileExpected() {
        List<Object> events = decode("GHG", false, bytes(OK + "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + CHUNKED));
        assertThat(events).filteredOn(e -> e instanceof Head).hasSize(3);
        assertThat(events).filteredOn(e -> e instanceof String).containsExactly("data:hello", END, END, "data:hello 0123456789", END);
        assertThat(decode("GH", false, bytes(OK + "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + CHUNKED)))
                .last().isEqualTo(Http1Error.BYTES_AFTER_RESPONSE);
    }

    @Test
    void bytesBeforeAnyRequestAreUnsolicited() {
        assertThat(decode("", false, bytes(OK))).containsExactly(Http1Error.UNSOLICITED_BYTES);
        assertThat(decode("", false, bytes("\r\n"))).containsExactly(Http1Error.UNSOLICITED_BYTES);
    }

    @Test
    void reuseNeedsANewExpectationBeforeTheNextResponseArrives() {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        Http1ResponseCollector collector = new Http1ResponseCollector();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, collector);
        try {
            assertThat(decoder.isReusable()).as("fresh").isTrue();
            for (String response : List.of(OK, CHUNKED, GRPC, "HTTP/1.1 304 Not Modified\r\n\r\n")) {
                decoder.expectResponse(false, false);
                assertThat(decoder.isReusable()).as("while expecting").isFalse();
                ch.writeInbound(Unpooled.copiedBuffer(response, ISO_8859_1));
                assertThat(decoder.isReusable()).as("after %s", response).isTrue();
            }
            ch.writeInbound(Unpooled.copiedBuffer(OK, ISO_8859_1));
            assertThat(decoder.isReusable()).isFalse();
            assertThat(collector.events()).filteredOn(e -> e == END).hasSize(4);
            assertThat(collector.events()).last().isEqualTo(Http1Error.UNSOLICITED_BYTES);
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /**
     * A consumer that writes the next request (and so calls expectResponse) while handling an end
     * marker must not adopt bytes that were already buffered behind the response: they were sent
     * before that request and can only be a smuggled response.
     */
    @Test
    void anExpectationMadeWhileHandlingTheEndCannotAdoptBytesAlreadyBuffered() {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        List<Object> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                seen.add(msg instanceof Http1ResponseHead h ? h.status() : msg instanceof ByteBuf ? "data" : msg);
                if (msg instanceof Http1ResponseHead h) {
                    h.release();
                } else if (msg instanceof ByteBuf b) {
                    b.release();
                } else if (msg == Http1ResponseEnd.INSTANCE) {
                    decoder.expectResponse(false, false);
                }
            }
        });
        try {
            decoder.expectResponse(false, false);
            ch.writeInbound(Unpooled.copiedBuffer(OK + "HTTP/1.1 302 Found\r\nLocation: http://evil.example/\r\nContent-Length: 0\r\n\r\n", ISO_8859_1));
            assertThat(seen).containsExactly(200, "data", Http1ResponseEnd.INSTANCE, Http1Error.BYTES_AFTER_RESPONSE);
            assertThat(decoder.isReusable()).isFalse();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    static Stream<Arguments> reusability() {
        // expect, response, reusable after it
        return Stream.of(
                Arguments.of("G", OK, true),
                Arguments.of("G", GRPC, true),
                Arguments.of("H", "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", true),
                Arguments.of("G", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false),
                Arguments.of("G", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
                Arguments.of("G", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true),
                Arguments.of("G", CLOSE_DELIMITED, false),
                Arguments.of("G", "HTTP/1.1 100 Continue\r\n\r\n", false),
                Arguments.of("G", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", false),
                Arguments.of("U", "HTTP/1.1 101 Switching Protocols\r\n\r\n", false),
                Arguments.of("G", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Length: 1\r\n\r\n", false),
                Arguments.of("GG", OK, false));
    }

    @ParameterizedTest
    @MethodSource("reusability")
    void reusableOnlyAfterACleanKeepAliveResponse(String expect, String response, boolean reusable) {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, new Http1ResponseCollector());
        try {
            Http1ResponseCollector.expect(decoder, expect);
            ch.writeInbound(Unpooled.copiedBuffer(response, ISO_8859_1));
            assertThat(decoder.isReusable()).isEqualTo(reusable);
            ch.close();
            assertThat(decoder.isReusable()).as("after close").isFalse();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void closingAnIdleConnectionIsNoError() {
        assertThat(decode("", true)).isEmpty();
        assertThat(decode("G", true, bytes(OK))).last().isEqualTo(END);
        assertThat(decode("G", true, bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))).last().isEqualTo(END);
    }

    @Test
    void closingBeforeAnyByteOfAnExpectedResponseSaysSo() {
        assertThat(decode("G", true)).containsExactly(Http1Error.CLOSED_BEFORE_RESPONSE);
        assertThat(decode("GG", true, bytes(OK))).containsSubsequence(END, Http1Error.CLOSED_BEFORE_RESPONSE);
        assertThat(decode("GG", true, bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")))
                .last().isEqualTo(Http1Error.CLOSED_BEFORE_RESPONSE);
        assertThat(decode("GG", true, bytes(CLOSE_DELIMITED)))
                .containsSubsequence("data:until the end", END, Http1Error.CLOSED_BEFORE_RESPONSE);
    }

    @Test
    void inputShutdownThenInactiveReportsOnce() {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        Http1ResponseCollector collector = new Http1ResponseCollector();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, collector);
        try {
            decoder.expectResponse(false, false);
            ch.writeInbound(Unpooled.copiedBuffer(CLOSE_DELIMITED, ISO_8859_1));
            ch.pipeline().fireUserEventTriggered(io.netty.channel.socket.ChannelInputShutdownEvent.INSTANCE);
            ch.close();
            assertThat(collector.events()).filteredOn(e -> e == END).hasSize(1);
            assertThat(collector.events()).filteredOn(e -> e instanceof Http1Error).isEmpty();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    // ---- held heads and trailers

    @Test
    void aHeldHeadStopsTheNextHeadUntilReleaseAndResume() throws Exception {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        try {
            decoder.expectResponse(false, false);
            decoder.expectResponse(false, false);
            ch.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 100 Continue\r\n\r\n" + OK + "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", ISO_8859_1));
            Http1ResponseHead head = ch.readInbound();
            assertThat(head.status()).isEqualTo(100);
            assertThat((Object) ch.readInbound()).isNull();
            assertThat(decoder.isReusable()).isFalse();
            head.release();
            decoder.resume();
            assertThat((Object) ch.readInbound()).isSameAs(head);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.buffer().toString(ISO_8859_1)).startsWith("HTTP/1.1 200 OK\r\n");
            ByteBuf body = ch.readInbound();
            assertThat(body.toString(ISO_8859_1)).isEqualTo("hello");
            body.release();
            assertThat((Object) ch.readInbound()).isSameAs(Http1ResponseEnd.INSTANCE);
            assertThat((Object) ch.readInbound()).as("the 201 waits for the 200's head").isNull();
            decoder.resume(); // still held: nothing happens
            assertThat((Object) ch.readInbound()).isNull();
            head.release();
            decoder.resume();
            assertThat(((Http1ResponseHead) ch.readInbound()).status()).isEqualTo(201);
            assertThat((Object) ch.readInbound()).isSameAs(Http1ResponseEnd.INSTANCE);
            head.release();
            assertThat(decoder.isReusable()).isTrue();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void trailersAreRecordedAsPositionsAndHeldTrailersWait() throws Exception {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        try {
            decoder.expectResponse(false, false);
            decoder.expectResponse(false, false);
            ch.writeInbound(Unpooled.copiedBuffer(GRPC + GRPC, ISO_8859_1));
            Http1ResponseHead head = ch.readInbound();
            head.release();
            ((ByteBuf) ch.readInbound()).release();
            Http1ResponseTrailers trailers = ch.readInbound();
            assertThat(trailers.count()).isEqualTo(2);
            assertThat(trailers.buffer().toString(ISO_8859_1)).isEqualTo("grpc-status: 0\r\ngrpc-message:\t all good \r\n\r\n");
            assertThat(trailers.name(0)).hasToString("grpc-status");
            assertThat(trailers.nameEquals(1, AsciiString.of("grpc-message"))).isTrue();
            assertThat(trailers.valueStart(1)).isEqualTo(31);
            assertThat(trailers.value(1)).hasToString("all good");
            assertThat((Object) ch.readInbound()).isSameAs(Http1ResponseEnd.INSTANCE);
            decoder.resume();
            assertThat((Object) ch.readInbound()).isInstanceOf(Http1ResponseHead.class);
            head.release();
            ((ByteBuf) ch.readInbound()).release();
            assertThat((Object) ch.readInbound()).as("second trailers wait for the first").isNull();
            trailers.release();
            decoder.resume();
            assertThat((Object) ch.readInbound()).isSameAs(trailers);
            assertThat(trailers.value(0)).hasToString("0");
            trailers.release();
            assertThat((Object) ch.readInbound()).isSameAs(Http1ResponseEnd.INSTANCE);
            assertThat(decoder.isReusable()).isTrue();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    // ---- limits

    @Test
    void headSizeLimitCountsFromStatusLineToFinalCrlf() {
        String base = "HTTP/1.1 200 OK\r\nX: \r\nContent-Length: 0\r\n\r\n";
        int limit = 128;
        String atLimit = base.replace("X: ", "X: " + "v".repeat(limit - base.length()));
        assertThat(atLimit).hasSize(limit);
        assertThat(decodeWithLimits(limit, 10, atLimit)).last().isEqualTo(END);
        String above = atLimit.replace("X: ", "X: v");
        assertThat(decodeWithLimits(limit, 10, above)).containsExactly(Http1Error.HEAD_TOO_LARGE);
        assertThat(decodeWithLimits(limit, 10, above.substring(0, limit))).containsExactly(Http1Error.HEAD_TOO_LARGE);
        assertThat(decode("G", "HTTP/1.1 200 OK\r\nX: " + "v".repeat(64 * 1024) + "\r\n\r\n")).containsExactly(Http1Error.HEAD_TOO_LARGE);
    }

    @Test
    void headerCountLimitIsInclusive() {
        StringBuilder sb = new StringBuilder("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n");
        for (int i = 1; i < 100; i++) {
            sb.append("X-").append(i).append(": ").append(i).append("\r\n");
        }
        assertThat(((Head) decode("G", sb + "\r\n").get(0)).headers()).hasSize(100);
        assertThat(decode("G", sb + "X-100: 100\r\n\r\n")).containsExactly(Http1Error.TOO_MANY_HEADERS);
    }

    @Test
    void trailerLimitsReuseTheHeadLimits() {
        String ch = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
        assertThat(decodeWithLimits(64, 2, ch + "A: 1\r\nB: 2\r\n\r\n")).last().isEqualTo(END);
        assertThat(decodeWithLimits(64, 2, ch + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n")).last().isEqualTo(Http1Error.TOO_MANY_TRAILERS);
        assertThat(decodeWithLimits(64, 2, ch + "A: " + "v".repeat(60) + "\r\n\r\n")).last().isEqualTo(Http1Error.TRAILERS_TOO_LARGE);
        assertThat(decodeWithLimits(64, 2, ch + "A: " + "v".repeat(55) + "\r\n\r\n")).last().isEqualTo(END);
    }

    @Test
    void endlessInterimHeadsAreRefused() {
        String interim = "HTTP/1.1 103 Early Hints\r\n\r\n";
        String allowed = interim.repeat(Http1ResponseDecoder.MAX_INTERIM_RESPONSES);
        assertThat(decode("G", allowed + OK)).last().isEqualTo(END);
        assertThat(decode("G", allowed + interim + OK)).last().isEqualTo(Http1Error.TOO_MANY_INTERIM_RESPONSES);
        // the count is per response
        assertThat(decode("GG", false, bytes(allowed + OK + allowed + OK))).last().isEqualTo(END);
    }

    @Test
    void largeBodiesStreamWithoutALimit() {
        List<Object> events = decode("G", "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\nabc");
        assertThat(events).last().isEqualTo(Http1Error.CLOSED_IN_BODY);
        assertThat(decode("G", chunked("7fffffffffffffff\r\nabc"))).last().isEqualTo(Http1Error.CLOSED_IN_BODY);
    }

    @Test
    void invalidConstructionFailsFast() {
        assertThatThrownBy(() -> new Http1ResponseDecoder(63, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected: head >= 64");
        assertThatThrownBy(() -> new Http1ResponseDecoder(1024, 0)).isInstanceOf(IllegalArgumentException.class);
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        for (int i = 0; i < Http1ResponseDecoder.MAX_PENDING; i++) {
            decoder.expectResponse(false, false);
        }
        assertThatThrownBy(() -> decoder.expectResponse(false, false)).isInstanceOf(IllegalStateException.class);
    }

    private static List<Object> decodeWithLimits(int maxHeadSize, int maxHeaderCount, String response) {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder(maxHeadSize, maxHeaderCount);
        Http1ResponseCollector collector = new Http1ResponseCollector();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, collector);
        try {
            decoder.expectResponse(false, false);
            ch.writeInbound(Unpooled.copiedBuffer(response, ISO_8859_1));
            return collector.events();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /**
     * The Connection options of one head answer as a plain reading of the lists would (split at
     * commas, OWS trimmed, ASCII case ignored), over every Connection field, for names of a listed
     * length and of none (the length filter), and again for the next head on the same decoder.
     */
    @Test
    void connectionOptionsMatchAPlainReadingOfEveryConnectionField() throws Exception {
        SplittableRandom random = new SplittableRandom(20261206);
        String[] tokens = {"keep-alive", "close", "x-hop", "X-Hop", "upgrade", "te", "x-a", "x-b", "a".repeat(70),
            "b".repeat(63), "x_hop", "", "x-hop-2"};
        String[] names = {"keep-alive", "KEEP-ALIVE", "close", "x-hop", "x-ho", "x-hop-", "x-hop-2", "te", "upgrade",
            "x-a", "x-c", "a".repeat(70), "a".repeat(71), "b".repeat(63), "c".repeat(63), "x_hop", "x-pad"};
        EmbeddedChannel ch = new EmbeddedChannel(new Http1ResponseDecoder());
        Http1ResponseDecoder decoder = ch.pipeline().get(Http1ResponseDecoder.class);
        for (int round = 0; round < 2_000; round++) {
            List<List<String>> fields = new ArrayList<>();
            StringBuilder response = new StringBuilder("HTTP/1.1 200 OK\r\n");
            for (int f = random.nextInt(0, 4); f > 0; f--) {
                List<String> listed = new ArrayList<>();
                StringBuilder value = new StringBuilder();
                for (int t = random.nextInt(1, 4); t > 0; t--) {
                    String token = tokens[random.nextInt(tokens.length)];
                    listed.add(token);
                    value.append(value.length() > 0 ? "," : "").append(ows(random)).append(token).append(ows(random));
                }
                fields.add(listed);
                response.append("Connection: ").append(value).append("\r\n");
                response.append("X-Pad: ").append(round).append("\r\n");
            }
            response.append("Content-Length: 0\r\n\r\n");
            decoder.expectResponse(false, false);
            ch.writeInbound(Unpooled.copiedBuffer(response.toString(), ISO_8859_1));
            Object decoded = ch.readInbound();
            assertThat(decoded).as(response.toString()).isInstanceOf(Http1ResponseHead.class);
            Http1ResponseHead head = (Http1ResponseHead) decoded;
            try {
                for (String name : names) {
                    boolean expected = fields.stream().flatMap(List::stream).anyMatch(t -> t.equalsIgnoreCase(name));
                    assertThat(head.isConnectionOption(name)).as("%s in %s", name, response).isEqualTo(expected);
                    assertThat(head.isConnectionOption(AsciiString.of(name))).isEqualTo(expected);
                }
            } finally {
                head.release();
                decoder.resume();
            }
            assertThat((Object) ch.readInbound()).isSameAs(Http1ResponseEnd.INSTANCE);
            if (!head.isKeepAlive()) { // "close" listed: the connection ends, the next head comes on a new one
                ch.finishAndReleaseAll();
                ch = new EmbeddedChannel(new Http1ResponseDecoder());
                decoder = ch.pipeline().get(Http1ResponseDecoder.class);
            }
        }
        ch.finishAndReleaseAll();
    }

    private static String ows(SplittableRandom random) {
        return switch (random.nextInt(4)) {
            case 0 -> "";
            case 1 -> " ";
            case 2 -> "\t";
            default -> " \t ";
        };
    }
}
