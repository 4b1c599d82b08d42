package io.paduraksa.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Field validation at decode time, one case per rule of RFC 9113 sections 8.1-8.5, named after its
 * section: the block is HPACK-encoded, decoded with validation and must give the violation (a
 * stream PROTOCOL_ERROR, the message being malformed).
 */
class Http2FieldValidatorTest {
    private static final String[] GET = {":method", "GET", ":scheme", "https", ":path", "/", ":authority", "a.example"};

    /** Encodes name/value pairs as literals (static names by index, so both name paths are used). */
    static ByteBuf block(String... pairs) {
        ByteBuf out = TestBuffers.buffer();
        for (int i = 0; i < pairs.length; i += 2) {
            ByteBuf n = TestBuffers.ascii(pairs[i]);
            ByteBuf v = TestBuffers.ascii(pairs[i + 1]);
            HpackEncoder.field(out, n, 0, n.readableBytes(), v, 0, v.readableBytes(), i % 4 == 0);
        }
        return out;
    }

    static Http2Violation validate(int kind, String... pairs) {
        ByteBuf b = block(pairs);
        return new HpackDecoder(4096, 16384, false).decode(b, 0, b.readableBytes(), kind, new CollectingSink());
    }

    static String[] get(String... more) {
        String[] all = new String[GET.length + more.length];
        System.arraycopy(GET, 0, all, 0, GET.length);
        System.arraycopy(more, 0, all, GET.length, more.length);
        return all;
    }

    static Stream<Arguments> malformedRequests() {
        return Stream.of(
                Arguments.of("8.2.1 upper case in a field name", get("X-Foo", "1"), Http2Violation.FIELD_NAME_UPPER_CASE),
                Arguments.of("8.2.1 space in a field name", get("x foo", "1"), Http2Violation.FIELD_NAME_INVALID),
                Arguments.of("8.2.1 colon inside a field name", get("x:foo", "1"), Http2Violation.FIELD_NAME_INVALID),
                Arguments.of("8.2.1 byte above 0x7e in a field name", get("x\u00e9", "1"), Http2Violation.FIELD_NAME_INVALID),
                Arguments.of("8.2.1 empty field name", get("", "1"), Http2Violation.FIELD_NAME_EMPTY),
                Arguments.of("8.2.1 CR LF in a field value", get("x-a", "a\r\nb: c"), Http2Violation.FIELD_VALUE_INVALID),
                Arguments.of("8.2.1 NUL in a field value", get("x-a", "a\u0000b"), Http2Violation.FIELD_VALUE_INVALID),
                Arguments.of("8.2.1 LF in a pseudo-header value", new String[] {":method", "GET", ":scheme", "https", ":path",
                        "/a\nb"}, Http2Violation.FIELD_VALUE_INVALID),
                Arguments.of("8.2.1 leading space in a value", get("x-a", " a"), Http2Violation.FIELD_VALUE_WHITESPACE),
                Arguments.of("8.2.1 trailing tab in a value", get("x-a", "a\t"), Http2Violation.FIELD_VALUE_WHITESPACE),
                Arguments.of("8.2.2 connection", get("connection", "keep-alive"), Http2Violation.CONNECTION_SPECIFIC_FIELD),
                Arguments.of("8.2.2 proxy-connection", get("proxy-connection", "close"), Http2Violation.CONNECTION_SPECIFIC_FIELD),
                Arguments.of("8.2.2 keep-alive", get("keep-alive", "5"), Http2Violation.CONNECTION_SPECIFIC_FIELD),
                Arguments.of("8.2.2 transfer-encoding", get("transfer-encoding", "chunked"),
                        Http2Violation.CONNECTION_SPECIFIC_FIELD),
                Arguments.of("8.2.2 upgrade", get("upgrade", "h2c"), Http2Violation.CONNECTION_SPECIFIC_FIELD),
                Arguments.of("8.2.2 te other than trailers", get("te", "gzip"), Http2Violation.TE_NOT_TRAILERS),
                Arguments.of("8.3 pseudo-header after a regular field", new String[] {":method", "GET", ":scheme", "https",
                        "x-a", "1", ":path", "/"}, Http2Violation.PSEUDO_AFTER_REGULAR),
                Arguments.of("8.3 undefined pseudo-header", get(":foo", "1"), Http2Violation.PSEUDO_UNKNOWN),
                Arguments.of("8.3 undefined pseudo-header among pseudo-headers", new String[] {":method", "GET", ":foo", "1",
                        ":scheme", "https", ":path", "/"}, Http2Violation.PSEUDO_UNKNOWN),
                Arguments.of("8.3 response pseudo-header in a request", new String[] {":status", "200", ":method", "GET",
                        ":scheme", "https", ":path", "/"}, Http2Violation.PSEUDO_UNKNOWN),
                Arguments.of("8.3.1 :method twice", new String[] {":method", "GET", ":method", "GET", ":scheme", "https",
                        ":path", "/"}, Http2Violation.PSEUDO_DUPLICATE),
                Arguments.of("8.3.1 :path twice", new String[] {":method", "GET", ":scheme", "https", ":path", "/",
                        ":path", "/b"}, Http2Violation.PSEUDO_DUPLICATE),
                Arguments.of("8.3.1 no :method", new String[] {":scheme", "https", ":path", "/"}, Http2Violation.PSEUDO_MISSING),
                Arguments.of("8.3.1 no :scheme", new String[] {":method", "GET", ":path", "/"}, Http2Violation.PSEUDO_MISSING),
                Arguments.of("8.3.1 no :path", new String[] {":method", "GET", ":scheme", "https"}, Http2Violation.PSEUDO_MISSING),
                Arguments.of("8.3.1 empty :path", new String[] {":method", "GET", ":scheme", "https", ":path", ""},
                        Http2Violation.PATH_EMPTY),
                Arguments.of("8.3.1 host differs from :authority", get("host", "b.example"), Http2Violation.AUTHORITY_HOST_MISMATCH),
                Arguments.of("8.5 CONNECT with :path", new String[] {":method", "CONNECT", ":authority", "a.example:443",
                        ":path", "/"}, Http2Violation.CONNECT_WITH_SCHEME_OR_PATH),
                Arguments.of("8.5 CONNECT without :authority", new String[] {":method", "CONNECT"}, Http2Violation.PSEUDO_MISSING),
                Arguments.of("RFC 8441 4 :protocol when extended CONNECT is off", new String[] {":method", "CONNECT",
                        ":protocol", "websocket", ":scheme", "https", ":path", "/", ":authority", "a.example"},
                        Http2Violation.PSEUDO_UNKNOWN));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRequests")
    void malformed_request_is_a_stream_protocol_error(String rule, String[] pairs, Http2Violation expected) {
        Http2Violation v = validate(Http2FieldValidator.REQUEST, pairs);
        assertThat(v).as(rule).isEqualTo(expected);
        assertThat(v.isConnectionError()).isFalse();
        assertThat(v.code()).isEqualTo(Http2ErrorCodes.PROTOCOL_ERROR);
    }

    static Stream<Arguments> validRequests() {
        return Stream.of(
                Arguments.of("8.3.1 a GET", GET),
                Arguments.of("8.2.2 te: trailers", get("te", "trailers")),
                Arguments.of("8.3.1 host equal to :authority but for case", get("host", "A.Example")),
                Arguments.of("8.3.1 no :authority, a host", new String[] {":method", "GET", ":scheme", "https", ":path", "/",
                        "host", "a.example"}),
                Arguments.of("8.3.1 OPTIONS *", new String[] {":method", "OPTIONS", ":scheme", "https", ":path", "*"}),
                Arguments.of("8.5 CONNECT with :authority only", new String[] {":method", "CONNECT", ":authority", "a.example:443"}),
                Arguments.of("8.2.1 empty value, inner spaces, obs-text", get("x-a", "", "x-b", "a b\tc", "x-c", "\u00e9")),
                Arguments.of("8.2.3 split cookies", get("cookie", "a=1", "cookie", "b=2")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validRequests")
    void valid_request_passes(String rule, String[] pairs) {
        assertThat(validate(Http2FieldValidator.REQUEST, pairs)).as(rule).isNull();
    }

    @Test
    void s8_3_2_a_response_needs_a_three_digit_status() {
        assertThat(validate(Http2FieldValidator.RESPONSE, ":status", "200", "content-type", "text/plain")).isNull();
        assertThat(validate(Http2FieldValidator.RESPONSE, "content-type", "text/plain")).isEqualTo(Http2Violation.PSEUDO_MISSING);
        assertThat(validate(Http2FieldValidator.RESPONSE, ":status", "20")).isEqualTo(Http2Violation.STATUS_INVALID);
        assertThat(validate(Http2FieldValidator.RESPONSE, ":status", "2x0")).isEqualTo(Http2Violation.STATUS_INVALID);
        assertThat(validate(Http2FieldValidator.RESPONSE, ":status", "200", ":path", "/")).isEqualTo(Http2Violation.PSEUDO_UNKNOWN);
    }

    @Test
    void s8_1_trailers_carry_no_pseudo_header() {
        assertThat(validate(Http2FieldValidator.TRAILERS, "grpc-status", "0")).isNull();
        assertThat(validate(Http2FieldValidator.TRAILERS, ":status", "200")).isEqualTo(Http2Violation.PSEUDO_IN_TRAILERS);
        assertThat(validate(Http2FieldValidator.TRAILERS, "connection", "close"))
                .isEqualTo(Http2Violation.CONNECTION_SPECIFIC_FIELD);
    }

    @Test
    void rfc8441_extended_connect_when_enabled() {
        String[] ws = {":method", "CONNECT", ":protocol", "websocket", ":scheme", "https", ":path", "/chat",
                ":authority", "a.example"};
        ByteBuf b = block(ws);
        assertThat(new HpackDecoder(4096, 16384, true).decode(b, 0, b.readableBytes(), Http2FieldValidator.REQUEST,
                new CollectingSink())).isNull();
        String[] notConnect = {":method", "GET", ":protocol", "websocket", ":scheme", "https", ":path", "/chat"};
        b = block(notConnect);
        assertThat(new HpackDecoder(4096, 16384, true).decode(b, 0, b.readableBytes(), Http2FieldValidator.REQUEST,
                new CollectingSink())).isEqualTo(Http2Violation.PSEUDO_UNKNOWN);
    }

    @Test
    void fields_after_a_violation_are_decoded_but_not_delivered() {
        ByteBuf b = block(get("connection", "close", "x-after", "1"));
        CollectingSink sink = new CollectingSink();
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        assertThat(d.decode(b, 0, b.readableBytes(), Http2FieldValidator.REQUEST, sink))
                .isEqualTo(Http2Violation.CONNECTION_SPECIFIC_FIELD);
        assertThat(sink.fields).hasSize(4).noneMatch(f -> f.startsWith("x-after"));
    }

    /** Every pair as a literal with incremental indexing (names as literals too), so each makes an entry. */
    static ByteBuf indexingBlock(String... pairs) {
        return HpackFieldValidatorBlocks.literals(0x40, true, pairs);
    }

    /** The entries {@link #indexingBlock} made (all of them, newest last), indexed in the same order. */
    static ByteBuf indexedBlock(int fields) {
        ByteBuf out = TestBuffers.buffer();
        for (int i = 0; i < fields; i++) {
            HpackEncoder.indexed(out, HpackStaticTable.LENGTH + fields - i);
        }
        return out;
    }

    static Stream<Arguments> everyRequest() {
        return Stream.concat(malformedRequests().map(a -> Arguments.of(a.get()[0], a.get()[1], a.get()[2])),
                validRequests().map(a -> Arguments.of(a.get()[0], a.get()[1], null)));
    }

    /**
     * A field indexed from a dynamic table entry is checked as the literal that made the entry was,
     * though what that check proved of the name and value is not checked again: the same violation
     * (or none) and the same fields, for every rule above, when the whole request comes as indices.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("everyRequest")
    void a_request_indexed_from_the_dynamic_table_is_checked_as_its_literals_were(String rule, String[] pairs,
            Http2Violation expected) {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        ByteBuf literals = indexingBlock(pairs);
        CollectingSink first = new CollectingSink();
        assertThat(d.decode(literals, 0, literals.readableBytes(), Http2FieldValidator.REQUEST, first)).as(rule)
                .isEqualTo(expected);
        assertThat(d.table().length()).isEqualTo(pairs.length / 2);
        for (int round = 0; round < 2; round++) {
            ByteBuf indices = indexedBlock(pairs.length / 2);
            CollectingSink again = new CollectingSink();
            assertThat(d.decode(indices, 0, indices.readableBytes(), Http2FieldValidator.REQUEST, again)).as(rule)
                    .isEqualTo(expected);
            assertThat(again.fields).as(rule).isEqualTo(first.fields);
        }
    }

    @Test
    void entries_proven_in_a_request_are_checked_again_in_trailers() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        ByteBuf literals = indexingBlock(get("x-a", "1", "host", "a.example"));
        assertThat(d.decode(literals, 0, literals.readableBytes(), Http2FieldValidator.REQUEST, new CollectingSink())).isNull();
        // entries, newest first: 62 host, 63 x-a, 64 :authority, 65 :path, 66 :scheme, 67 :method
        ByteBuf trailers = TestBuffers.buffer();
        HpackEncoder.indexed(trailers, 63);
        HpackEncoder.indexed(trailers, 62);
        assertThat(d.decode(trailers, 0, trailers.readableBytes(), Http2FieldValidator.TRAILERS, new CollectingSink())).isNull();
        ByteBuf path = TestBuffers.buffer();
        HpackEncoder.indexed(path, 63);
        HpackEncoder.indexed(path, 65);
        assertThat(d.decode(path, 0, path.readableBytes(), Http2FieldValidator.TRAILERS, new CollectingSink()))
                .isEqualTo(Http2Violation.PSEUDO_IN_TRAILERS);
        ByteBuf twice = TestBuffers.buffer();
        for (int index : new int[] {67, 66, 65, 65}) {
            HpackEncoder.indexed(twice, index);
        }
        assertThat(d.decode(twice, 0, twice.readableBytes(), Http2FieldValidator.REQUEST, new CollectingSink()))
                .isEqualTo(Http2Violation.PSEUDO_DUPLICATE);
    }

    @Test
    void entries_made_without_checks_are_checked_when_indexed() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        ByteBuf literals = indexingBlock("x-a", "a\rb", "x-b", "1");
        assertThat(d.decode(literals, 0, literals.readableBytes(), Http2FieldValidator.NONE, new CollectingSink())).isNull();
        ByteBuf request = block(GET);
        request.writeBytes(indexedBlock(2));
        assertThat(d.decode(request, 0, request.readableBytes(), Http2FieldValidator.REQUEST, new CollectingSink()))
                .isEqualTo(Http2Violation.FIELD_VALUE_INVALID);
    }

    /** The word-at-a-time scan for NUL, CR and LF against a byte loop, heap and direct, at every offset. */
    @Test
    void forbidden_bytes_are_found_at_every_position() {
        SplittableRandom random = new SplittableRandom(20261206);
        byte[] alphabet = {0, '\r', '\n', '\t', 1, 0x1f, 0x7f, (byte) 0x80, (byte) 0xff, 'a', ' ', 0x0b, 0x0c, 0x0e};
        for (int n = 0; n < 20_000; n++) {
            int length = random.nextInt(40);
            byte[] v = new byte[length + 3];
            for (int i = 0; i < v.length; i++) {
                v[i] = random.nextInt(4) == 0 ? alphabet[random.nextInt(alphabet.length)] : (byte) ('!' + random.nextInt(90));
            }
            if (length > 0 && random.nextBoolean()) {
                v[1 + random.nextInt(length)] = alphabet[random.nextInt(3)];
            }
            boolean expected = false;
            for (int i = 1; i < 1 + length; i++) {
                expected |= v[i] == 0 || v[i] == '\r' || v[i] == '\n';
            }
            ByteBuf heap = Unpooled.wrappedBuffer(v);
            ByteBuf direct = Unpooled.directBuffer(v.length).writeBytes(v);
            try {
                assertThat(Http2FieldValidator.hasForbiddenByte(heap, 1, length)).as("heap %s", new String(v, StandardCharsets.ISO_8859_1))
                        .isEqualTo(expected);
                assertThat(Http2FieldValidator.hasForbiddenByte(direct, 1, length)).isEqualTo(expected);
                assertThat(Http2FieldValidator.hasForbiddenByte(heap.slice(1, length), 0, length)).isEqualTo(expected);
            } finally {
                direct.release();
            }
        }
    }
}
