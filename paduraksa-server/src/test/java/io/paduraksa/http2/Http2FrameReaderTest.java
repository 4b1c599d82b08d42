package io.paduraksa.http2;

import static io.paduraksa.http2.Http2Frames.CONTINUATION;
import static io.paduraksa.http2.Http2Frames.DATA;
import static io.paduraksa.http2.Http2Frames.FLAG_ACK;
import static io.paduraksa.http2.Http2Frames.FLAG_END_HEADERS;
import static io.paduraksa.http2.Http2Frames.FLAG_END_STREAM;
import static io.paduraksa.http2.Http2Frames.FLAG_PADDED;
import static io.paduraksa.http2.Http2Frames.FLAG_PRIORITY;
import static io.paduraksa.http2.Http2Frames.GOAWAY;
import static io.paduraksa.http2.Http2Frames.HEADERS;
import static io.paduraksa.http2.Http2Frames.PING;
import static io.paduraksa.http2.Http2Frames.PRIORITY;
import static io.paduraksa.http2.Http2Frames.PUSH_PROMISE;
import static io.paduraksa.http2.Http2Frames.RST_STREAM;
import static io.paduraksa.http2.Http2Frames.SETTINGS;
import static io.paduraksa.http2.Http2Frames.WINDOW_UPDATE;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Conformance of {@link Http2FrameReader}, one case per rule of RFC 9113 sections 4 and 6 (in the
 * spirit of h2spec: the case is named after its section), each asserting the violation, its error
 * code and whether it is a stream or connection error; plus resumability at every split point.
 */
class Http2FrameReaderTest {

    static ByteBuf frame(int type, int flags, int streamId, String payloadHex) {
        ByteBuf payload = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(payloadHex.replace(" ", "")));
        ByteBuf out = TestBuffers.buffer();
        Http2FrameWriter.frameHeader(out, payload.readableBytes(), type, flags, streamId);
        out.writeBytes(payload);
        return out;
    }

    static ByteBuf concat(ByteBuf... frames) {
        return Unpooled.wrappedBuffer(frames);
    }

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("4.2 frame longer than SETTINGS_MAX_FRAME_SIZE", tooLarge(), Http2Violation.FRAME_TOO_LARGE),
                Arguments.of("6.1 DATA on stream 0", frame(DATA, 0, 0, "00"), Http2Violation.STREAM_ID_REQUIRED),
                Arguments.of("6.1 padded DATA without pad length", frame(DATA, FLAG_PADDED, 1, ""), Http2Violation.DATA_TOO_SHORT),
                Arguments.of("6.1 DATA padding as long as the payload", frame(DATA, FLAG_PADDED, 1, "03 0000"),
                        Http2Violation.PADDING_TOO_LONG),
                Arguments.of("6.2 HEADERS on stream 0", frame(HEADERS, FLAG_END_HEADERS, 0, "82"), Http2Violation.STREAM_ID_REQUIRED),
                Arguments.of("6.2 HEADERS padding too long", frame(HEADERS, FLAG_END_HEADERS | FLAG_PADDED, 1, "05 82"),
                        Http2Violation.PADDING_TOO_LONG),
                Arguments.of("6.2 HEADERS shorter than its priority", frame(HEADERS, FLAG_END_HEADERS | FLAG_PRIORITY, 1, "0000"),
                        Http2Violation.HEADERS_TOO_SHORT),
                Arguments.of("5.3.1 HEADERS depending on its own stream", frame(HEADERS, FLAG_END_HEADERS | FLAG_PRIORITY, 3,
                        "00000003 10 82"), Http2Violation.HEADERS_SELF_DEPENDENCY),
                Arguments.of("6.3 PRIORITY on stream 0", frame(PRIORITY, 0, 0, "00000001 10"), Http2Violation.STREAM_ID_REQUIRED),
                Arguments.of("6.3 PRIORITY of length 4", frame(PRIORITY, 0, 1, "00000003"), Http2Violation.PRIORITY_LENGTH),
                Arguments.of("5.3.1 PRIORITY depending on its own stream", frame(PRIORITY, 0, 5, "80000005 10"),
                        Http2Violation.PRIORITY_SELF_DEPENDENCY),
                Arguments.of("6.4 RST_STREAM on stream 0", frame(RST_STREAM, 0, 0, "00000008"), Http2Violation.STREAM_ID_REQUIRED),
                Arguments.of("6.4 RST_STREAM of length 3", frame(RST_STREAM, 0, 1, "000008"), Http2Violation.RST_STREAM_LENGTH),
                Arguments.of("6.5 SETTINGS on stream 1", frame(SETTINGS, 0, 1, ""), Http2Violation.STREAM_ID_NOT_ZERO),
                Arguments.of("6.5 SETTINGS ACK with payload", frame(SETTINGS, FLAG_ACK, 0, "000100001000"),
                        Http2Violation.SETTINGS_ACK_LENGTH),
                Arguments.of("6.5 SETTINGS of length 5", frame(SETTINGS, 0, 0, "0001000010"), Http2Violation.SETTINGS_LENGTH),
                Arguments.of("6.5.2 SETTINGS_ENABLE_PUSH of 2", frame(SETTINGS, 0, 0, "000200000002"),
                        Http2Violation.SETTINGS_ENABLE_PUSH),
                Arguments.of("6.5.2 SETTINGS_INITIAL_WINDOW_SIZE of 2^31", frame(SETTINGS, 0, 0, "000480000000"),
                        Http2Violation.SETTINGS_INITIAL_WINDOW_SIZE),
                Arguments.of("6.5.2 SETTINGS_MAX_FRAME_SIZE of 16383", frame(SETTINGS, 0, 0, "000500003fff"),
                        Http2Violation.SETTINGS_MAX_FRAME_SIZE),
                Arguments.of("6.5.2 SETTINGS_MAX_FRAME_SIZE of 2^24", frame(SETTINGS, 0, 0, "000501000000"),
                        Http2Violation.SETTINGS_MAX_FRAME_SIZE),
                Arguments.of("RFC 8441 3 SETTINGS_ENABLE_CONNECT_PROTOCOL of 2", frame(SETTINGS, 0, 0, "000800000002"),
                        Http2Violation.SETTINGS_ENABLE_CONNECT_PROTOCOL),
                Arguments.of("6.6 PUSH_PROMISE on stream 0", frame(PUSH_PROMISE, FLAG_END_HEADERS, 0, "00000002 82"),
                        Http2Violation.STREAM_ID_REQUIRED),
                Arguments.of("6.6 PUSH_PROMISE without promised stream id", frame(PUSH_PROMISE, FLAG_END_HEADERS, 1, "000000"),
                        Http2Violation.PUSH_PROMISE_TOO_SHORT),
                Arguments.of("6.7 PING on stream 1", frame(PING, 0, 1, "0000000000000000"), Http2Violation.STREAM_ID_NOT_ZERO),
                Arguments.of("6.7 PING of length 7", frame(PING, 0, 0, "00000000000000"), Http2Violation.PING_LENGTH),
                Arguments.of("6.8 GOAWAY on stream 1", frame(GOAWAY, 0, 1, "0000000000000000"), Http2Violation.STREAM_ID_NOT_ZERO),
                Arguments.of("6.8 GOAWAY of length 7", frame(GOAWAY, 0, 0, "00000000000000"), Http2Violation.GOAWAY_TOO_SHORT),
                Arguments.of("6.9 WINDOW_UPDATE of length 3", frame(WINDOW_UPDATE, 0, 0, "000001"), Http2Violation.WINDOW_UPDATE_LENGTH),
                Arguments.of("6.9 connection WINDOW_UPDATE of 0", frame(WINDOW_UPDATE, 0, 0, "00000000"),
                        Http2Violation.WINDOW_UPDATE_ZERO_CONNECTION),
                Arguments.of("6.9 stream WINDOW_UPDATE of 0 (reserved bit ignored)", frame(WINDOW_UPDATE, 0, 1, "80000000"),
                        Http2Violation.WINDOW_UPDATE_ZERO_STREAM),
                Arguments.of("6.10 CONTINUATION without HEADERS", frame(CONTINUATION, FLAG_END_HEADERS, 1, "82"),
                        Http2Violation.CONTINUATION_UNEXPECTED),
                Arguments.of("6.10 CONTINUATION on stream 0", concat(frame(HEADERS, 0, 1, "82"),
                        frame(CONTINUATION, FLAG_END_HEADERS, 0, "84")), Http2Violation.STREAM_ID_REQUIRED),
                Arguments.of("6.10 CONTINUATION on another stream", concat(frame(HEADERS, 0, 1, "82"),
                        frame(CONTINUATION, FLAG_END_HEADERS, 3, "84")), Http2Violation.CONTINUATION_WRONG_STREAM),
                Arguments.of("6.10 DATA inside a field block", concat(frame(HEADERS, 0, 1, "82"), frame(DATA, 0, 1, "00")),
                        Http2Violation.CONTINUATION_EXPECTED),
                Arguments.of("6.10 unknown frame type inside a field block", concat(frame(HEADERS, 0, 1, "82"),
                        frame(0x20, 0, 0, "00")), Http2Violation.CONTINUATION_EXPECTED),
                Arguments.of("6.10 PING inside a field block", concat(frame(HEADERS, 0, 1, "82"),
                        frame(PING, 0, 0, "0000000000000000")), Http2Violation.CONTINUATION_EXPECTED),
                Arguments.of("10.5.1 CONTINUATION flood beyond the field block limit", continuationFlood(),
                        Http2Violation.FIELD_BLOCK_TOO_LARGE));
    }

    private static ByteBuf tooLarge() {
        ByteBuf out = TestBuffers.buffer();
        Http2FrameWriter.frameHeader(out, 16385, DATA, 0, 1);
        return out; // the header alone is enough: the length is checked before the payload arrives
    }

    private static ByteBuf continuationFlood() {
        ByteBuf out = TestBuffers.buffer();
        out.writeBytes(frame(HEADERS, 0, 1, "82"));
        for (int i = 0; i < 200; i++) {
            out.writeBytes(frame(CONTINUATION, 0, 1, "4000"));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void violation_is_reported_with_its_code_and_scope(String rule, ByteBuf wire, Http2Violation expected) {
        RecordingFrameListener listener = new RecordingFrameListener();
        Http2FrameReader reader = new Http2FrameReader(256);
        reader.read(wire, listener);
        assertThat(listener.lastViolation).as(rule).isEqualTo(expected);
        String last = listener.events.get(listener.events.size() - 1);
        assertThat(last).startsWith(expected.isConnectionError() ? "CONNECTION_ERROR " : "STREAM_ERROR ")
                .endsWith(Http2ErrorCodes.name(expected.code()));
        assertThat(reader.hasFailed()).isEqualTo(expected.isConnectionError());
    }

    @Test
    void padding_one_shorter_than_the_payload_is_valid() {
        RecordingFrameListener listener = new RecordingFrameListener();
        new Http2FrameReader(1024).read(frame(DATA, FLAG_PADDED, 1, "02 0000"), listener);
        assertThat(listener.events).containsExactly("DATA 1 pad=3 end=false ");
    }

    @Test
    void after_a_connection_error_every_later_byte_is_discarded() {
        RecordingFrameListener listener = new RecordingFrameListener();
        Http2FrameReader reader = new Http2FrameReader(1024);
        ByteBuf wire = concat(frame(PING, 0, 1, "0000000000000000"), frame(PING, 0, 0, "0000000000000001"));
        reader.read(wire, listener);
        reader.read(frame(PING, 0, 0, "0000000000000002"), listener);
        assertThat(listener.events).containsExactly("CONNECTION_ERROR PROTOCOL_ERROR");
        assertThat(wire.isReadable()).isFalse();
    }

    @Test
    void after_a_stream_error_the_next_frame_is_read() {
        RecordingFrameListener listener = new RecordingFrameListener();
        new Http2FrameReader(1024).read(concat(frame(PRIORITY, 0, 1, "00"), frame(PING, 0, 0, "0000000000000001")), listener);
        assertThat(listener.events).containsExactly("STREAM_ERROR 1 FRAME_SIZE_ERROR", "PING 1 ack=false");
    }

    /** A valid sequence of every frame type, with padding, priority and a block split over CONTINUATION. */
    private static ByteBuf everyFrame() {
        return concat(
                frame(SETTINGS, 0, 0, "000100001000 000300000064 0009000000ff"),
                frame(SETTINGS, FLAG_ACK, 0, ""),
                frame(HEADERS, FLAG_PRIORITY | FLAG_PADDED | FLAG_END_STREAM, 1, "02 80000003 0f 8286 0000"),
                frame(CONTINUATION, 0, 1, "84"),
                frame(CONTINUATION, FLAG_END_HEADERS, 1, "41 0f 7777772e6578616d706c652e636f6d"),
                frame(DATA, FLAG_PADDED | FLAG_END_STREAM, 3, "03 68656c6c6f 000000"),
                frame(DATA, 0, 3, ""),
                frame(PRIORITY, 0, 5, "80000001 ff"),
                frame(RST_STREAM, 0, 5, "00000008"),
                frame(PING, FLAG_ACK, 0, "0102030405060708"),
                frame(WINDOW_UPDATE, 0, 0, "00010000"),
                frame(WINDOW_UPDATE, 0, 1, "80000001"),
                frame(0x42, 0xff, 7, "abcd"),
                frame(PUSH_PROMISE, FLAG_END_HEADERS, 1, "00000002 82"),
                frame(GOAWAY, 0, 0, "80000007 00000000 6465627567"));
    }

    private static final List<String> EVERY_FRAME_EVENTS = List.of(
            "SETTINGS {1=4096, 3=100, 9=255}",
            "SETTINGS_ACK",
            "HEADERS 1 pad=3 end=true dep=3 excl=true weight=16 828684410f7777772e6578616d706c652e636f6d",
            "DATA 3 pad=4 end=true 68656c6c6f",
            "DATA 3 pad=0 end=false ",
            "PRIORITY 5 dep=1 excl=true weight=256",
            "RST_STREAM 5 8",
            "PING 72623859790382856 ack=true",
            "WINDOW_UPDATE 0 65536",
            "WINDOW_UPDATE 1 1",
            "UNKNOWN 66 255 7 abcd",
            "PUSH_PROMISE 1 promised=2 pad=0 82",
            "GOAWAY 7 0 6465627567");

    @Test
    void every_frame_type_is_reported_with_its_fields() {
        RecordingFrameListener listener = new RecordingFrameListener();
        new Http2FrameReader(1024).read(everyFrame(), listener);
        assertThat(listener.events).containsExactlyElementsOf(EVERY_FRAME_EVENTS);
    }

    @Test
    void the_same_events_at_every_split_point() {
        ByteBuf wire = everyFrame();
        int length = wire.readableBytes();
        for (int a = 0; a <= length; a++) {
            for (int b = a; b <= length; b += 7) {
                RecordingFrameListener listener = new RecordingFrameListener();
                Http2FrameReader reader = new Http2FrameReader(1024);
                ByteBuf cumulation = TestBuffers.buffer();
                cumulation.writeBytes(wire, 0, a);
                reader.read(cumulation, listener);
                cumulation.writeBytes(wire, a, b - a);
                reader.read(cumulation, listener);
                cumulation.writeBytes(wire, b, length - b);
                reader.read(cumulation, listener);
                assertThat(listener.events).as("split at %d and %d", a, b).containsExactlyElementsOf(EVERY_FRAME_EVENTS);
                assertThat(cumulation.isReadable()).isFalse();
            }
        }
    }

    @Test
    void a_partial_frame_is_left_in_the_buffer() {
        ByteBuf wire = frame(PING, 0, 0, "0000000000000001");
        ByteBuf partial = wire.copy(0, 12);
        RecordingFrameListener listener = new RecordingFrameListener();
        new Http2FrameReader(1024).read(partial, listener);
        assertThat(listener.events).isEmpty();
        assertThat(partial.readerIndex()).isZero();
    }

    @Test
    void a_larger_max_frame_size_admits_larger_frames() {
        Http2FrameReader reader = new Http2FrameReader(1024);
        reader.maxFrameSize(1 << 20);
        ByteBuf out = TestBuffers.buffer();
        Http2FrameWriter.dataHeader(out, 1, 20000, true);
        out.writeZero(20000);
        RecordingFrameListener listener = new RecordingFrameListener();
        reader.read(out, listener);
        assertThat(listener.events).hasSize(1);
        assertThat(listener.events.get(0)).startsWith("DATA 1 pad=0 end=true 0000");
    }

    @Test
    void unknown_settings_are_reported_and_not_rejected() {
        RecordingFrameListener listener = new RecordingFrameListener();
        new Http2FrameReader(1024).read(frame(SETTINGS, 0, 0, "00ff ffffffff"), listener);
        assertThat(listener.events).containsExactly("SETTINGS {255=4294967295}");
    }

    @Test
    void a_frame_with_the_reserved_bit_set_keeps_its_stream_id() {
        RecordingFrameListener listener = new RecordingFrameListener();
        new Http2FrameReader(1024).read(frame(RST_STREAM, 0, 0x80000003, "00000000"), listener);
        assertThat(listener.events).containsExactly("RST_STREAM 3 0");
    }
}
