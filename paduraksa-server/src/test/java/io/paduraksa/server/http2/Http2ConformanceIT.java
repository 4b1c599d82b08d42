package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.http2.Http2ErrorCodes;
import io.paduraksa.server.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * RFC 9113 and RFC 7541 requirements against the running server over a real socket, in the spirit
 * of h2spec (not installable here): one test per requirement, named by its section. The client is
 * a plain {@link Socket} writing frames byte by byte and reading every frame the server sends, with
 * no HTTP/2 library on the client side to tidy anything up. Each test asserts what the RFC asks
 * for: a connection error is GOAWAY with the code (then the close), a stream error RST_STREAM with
 * the code while the connection goes on.
 */
class Http2ConformanceIT {
    static final String YAML = """
            listeners:
              - {name: h2, address: "127.0.0.1:0", protocols: [h2c]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /big, respond: {status: 200, body: "%s"}}
                  - {path: /, respond: {status: 200, body: "ok\\n"}}
            """.formatted("b".repeat(80_000));
    static final int DATA = 0, HEADERS = 1, PRIORITY = 2, RST_STREAM = 3, SETTINGS = 4, PUSH_PROMISE = 5, PING = 6,
            GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9;
    static final int END_STREAM = 1, ACK = 1, END_HEADERS = 4;

    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static byte[] get(String path) {
        return Http2ProtectionsIT.hpack(":method", "GET", ":scheme", "http", ":path", path, ":authority", "a.test");
    }

    // ---- 3.4 connection preface

    @Test
    void s3_4_anInvalidPrefaceIsAConnectionError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), false)) {
            c.write("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            c.frame(SETTINGS, 0, 0, new byte[0]);
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s3_4_theServerPrefaceIsSettingsAndTheClientsFirstFrameMustBeSettings() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), false)) {
            c.write(io.paduraksa.http2.Http2Frames.CLIENT_PREFACE);
            c.frame(PING, 0, 0, new byte[8]);
            Frame first = c.next();
            assertThat(first.type).as("the server's preface").isEqualTo(SETTINGS);
            assertThat(first.flags & ACK).isZero();
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    // ---- 4 frames

    @Test
    void s4_1_framesOfUnknownTypeAreIgnored() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(0x42, 0, 0xFF, new byte[] {1, 2, 3});
            c.frame(PING, 0, 0, longBytes(7));
            Frame ack = c.nextOfType(PING);
            assertThat(ack.flags & ACK).isEqualTo(ACK);
            assertThat(ack.payload).isEqualTo(longBytes(7));
        }
    }

    @Test
    void s4_2_aFrameOverMaxFrameSizeIsAFrameSizeError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS, get("/"));
            c.frame(DATA, 1, 0, new byte[16_385]);
            c.assertGoAway(Http2ErrorCodes.FRAME_SIZE_ERROR);
        }
    }

    @Test
    void s4_3_aDecodingErrorIsACompressionError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, new byte[] {(byte) 0x80}); // indexed field 0
            c.assertGoAway(Http2ErrorCodes.COMPRESSION_ERROR);
        }
    }

    // ---- 5.1 stream states

    @Test
    void s5_1_dataOnAnIdleStreamIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(DATA, 1, END_STREAM, new byte[] {1});
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s5_1_rstStreamOnAnIdleStreamIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(RST_STREAM, 1, 0, intBytes(Http2ErrorCodes.CANCEL));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s5_1_windowUpdateOnAnIdleStreamIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(WINDOW_UPDATE, 1, 0, intBytes(100));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s5_1_dataOnAHalfClosedRemoteStreamIsStreamClosed() throws Exception {
        // a zero initial window holds the answer back, so the stream stays half-closed (remote)
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, get("/"));
            c.frame(DATA, 1, 0, new byte[] {1});
            c.assertRst(1, Http2ErrorCodes.STREAM_CLOSED);
            c.assertStillOpen();
        }
    }

    @Test
    void s5_1_dataOnAClosedStreamIsStreamClosed() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, get("/"));
            c.untilEnd(1);
            c.frame(DATA, 1, END_STREAM, new byte[] {1});
            c.assertRst(1, Http2ErrorCodes.STREAM_CLOSED);
            c.assertStillOpen();
        }
    }

    @Test
    void s5_1_1_anEvenStreamIdFromAClientIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 2, END_HEADERS | END_STREAM, get("/"));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s5_1_2_streamsOverMaxConcurrentStreamsAreRefused() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            assertThat(c.serverSetting(3)).as("SETTINGS_MAX_CONCURRENT_STREAMS").isEqualTo(100);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < 101; i++) {
                all.writeBytes(Raw.frameBytes(HEADERS, 1 + 2 * i, END_HEADERS | END_STREAM, get("/" + i)));
            }
            c.write(all.toByteArray());
            c.assertRst(201, Http2ErrorCodes.REFUSED_STREAM);
        }
    }

    // ---- 6 frame definitions

    @Test
    void s6_1_dataOnStreamZeroIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(DATA, 0, 0, new byte[] {1});
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_2_headersOnStreamZeroIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 0, END_HEADERS | END_STREAM, get("/"));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_3_priorityIsIgnoredButAWrongLengthIsAStreamFrameSizeError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(PRIORITY, 3, 0, new byte[] {0, 0, 0, 1, 16});
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, get("/"));
            assertThat(c.untilEnd(1)).anyMatch(f -> f.type == HEADERS);
            c.frame(PRIORITY, 5, 0, new byte[] {0, 0, 0, 1});
            c.assertRst(5, Http2ErrorCodes.FRAME_SIZE_ERROR);
        }
    }

    @Test
    void s6_4_rstStreamOnStreamZeroIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(RST_STREAM, 0, 0, intBytes(Http2ErrorCodes.CANCEL));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_4_rstStreamOfTheWrongLengthIsAFrameSizeError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS, get("/"));
            c.frame(RST_STREAM, 1, 0, new byte[3]);
            c.assertGoAway(Http2ErrorCodes.FRAME_SIZE_ERROR);
        }
    }

    @Test
    void s6_5_settingsAreAcknowledged() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), false)) {
            c.write(io.paduraksa.http2.Http2Frames.CLIENT_PREFACE);
            c.frame(SETTINGS, 0, 0, settings(0x42, 7)); // an unknown setting is ignored (6.5.2)
            assertThat(c.nextOfType(SETTINGS).flags & ACK).as("the server's own").isZero();
            Frame ack = c.nextOfType(SETTINGS);
            assertThat(ack.flags & ACK).isEqualTo(ACK);
            assertThat(ack.payload).isEmpty();
        }
    }

    @Test
    void s6_5_aSettingsAckWithPayloadIsAFrameSizeError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(SETTINGS, 0, ACK, settings(4, 100));
            c.assertGoAway(Http2ErrorCodes.FRAME_SIZE_ERROR);
        }
    }

    @Test
    void s6_5_settingsOfALengthNotAMultipleOfSixIsAFrameSizeError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(SETTINGS, 0, 0, new byte[5]);
            c.assertGoAway(Http2ErrorCodes.FRAME_SIZE_ERROR);
        }
    }

    @Test
    void s6_5_settingsOnAStreamIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(SETTINGS, 1, 0, new byte[0]);
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_5_2_enablePushAboveOneIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(SETTINGS, 0, 0, settings(2, 2));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_5_2_initialWindowSizeAboveTheMaximumIsAFlowControlError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(SETTINGS, 0, 0, settings(4, 1L << 31));
            c.assertGoAway(Http2ErrorCodes.FLOW_CONTROL_ERROR);
        }
    }

    @Test
    void s6_5_2_maxFrameSizeBelowTheMinimumIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(SETTINGS, 0, 0, settings(5, 16_383));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_7_aPingIsAnsweredWithTheSameDataAndAnAckIsNot() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(PING, 0, ACK, longBytes(1)); // not answered
            c.frame(PING, 0, 0, longBytes(0x0102030405060708L));
            Frame ack = c.nextOfType(PING);
            assertThat(ack.flags & ACK).isEqualTo(ACK);
            assertThat(ack.payload).isEqualTo(longBytes(0x0102030405060708L));
            c.assertStillOpen();
        }
    }

    @Test
    void s6_7_aPingOnAStreamIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(PING, 1, 0, longBytes(1));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_7_aPingOfTheWrongLengthIsAFrameSizeError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(PING, 0, 0, new byte[7]);
            c.assertGoAway(Http2ErrorCodes.FRAME_SIZE_ERROR);
        }
    }

    @Test
    void s6_8_goAwayOnAStreamIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(GOAWAY, 1, 0, new byte[8]);
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_8_afterTheClientsGoAwayStreamsInFlightFinishAndTheConnectionCloses() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, get("/"));
            c.frame(GOAWAY, 0, 0, concat(intBytes(1), intBytes(Http2ErrorCodes.NO_ERROR)));
            c.frame(WINDOW_UPDATE, 1, 0, intBytes(100));
            List<Frame> frames = c.untilClosed();
            assertThat(frames).anyMatch(f -> f.type == DATA && f.stream == 1 && (f.flags & END_STREAM) != 0);
        }
    }

    @Test
    void s6_9_aZeroConnectionWindowUpdateIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(WINDOW_UPDATE, 0, 0, intBytes(0));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_9_aZeroStreamWindowUpdateIsAStreamProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, get("/"));
            c.frame(WINDOW_UPDATE, 1, 0, intBytes(0));
            c.assertRst(1, Http2ErrorCodes.PROTOCOL_ERROR);
            c.assertStillOpen();
        }
    }

    @Test
    void s6_9_aWindowUpdateOfTheWrongLengthIsAFrameSizeError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(WINDOW_UPDATE, 0, 0, new byte[3]);
            c.assertGoAway(Http2ErrorCodes.FRAME_SIZE_ERROR);
        }
    }

    @Test
    void s6_9_1_aConnectionWindowAboveTheMaximumIsAFlowControlError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(WINDOW_UPDATE, 0, 0, intBytes(Integer.MAX_VALUE));
            c.assertGoAway(Http2ErrorCodes.FLOW_CONTROL_ERROR);
        }
    }

    @Test
    void s6_9_1_aStreamWindowAboveTheMaximumIsAStreamFlowControlError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            // 80,000 bytes of answer: the connection's window (65,535) runs out, the rest waits on the stream
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, get("/big"));
            int received = 0;
            while (received < 65_535) {
                Frame f = c.nextOfType(DATA);
                received += f.payload.length;
            }
            c.frame(WINDOW_UPDATE, 1, 0, intBytes(Integer.MAX_VALUE - 1));
            c.frame(WINDOW_UPDATE, 1, 0, intBytes(2));
            c.assertRst(1, Http2ErrorCodes.FLOW_CONTROL_ERROR);
            c.assertStillOpen();
        }
    }

    @Test
    void s6_9_creditIsReturnedInBatchesOfHalfAWindowNotPerFrame() throws Exception {
        // the answer waits (window 0), so the stream stays open while its request body comes
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            c.frame(HEADERS, 1, END_HEADERS, Http2ProtectionsIT.hpack(":method", "POST", ":scheme", "http", ":path", "/",
                    ":authority", "a.test"));
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < 8; i++) {
                all.writeBytes(Raw.frameBytes(DATA, 1, 0, new byte[5_000])); // 40,000 bytes in 8 frames
            }
            c.write(all.toByteArray());
            c.assertStillOpen();
            List<Frame> updates = c.seen.stream().filter(f -> f.type == WINDOW_UPDATE).toList();
            assertThat(updates).as("one WINDOW_UPDATE per window once 32,767 bytes are consumed; seen %s", c.seen)
                    .hasSize(2).allMatch(f -> ByteBuffer.wrap(f.payload).getInt() == 35_000);
        }
    }

    @Test
    void s6_9_2_aNewInitialWindowSizeAppliesToOpenStreams() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, get("/"));
            Frame headers = c.nextOfType(HEADERS);
            assertThat(headers.stream).isEqualTo(1);
            c.frame(SETTINGS, 0, 0, settings(4, 65_535));
            List<Frame> rest = c.untilEnd(1);
            assertThat(rest).anyMatch(f -> f.type == DATA && f.payload.length == 3);
        }
    }

    @Test
    void s6_10_aContinuationWithoutHeadersIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(CONTINUATION, 1, END_HEADERS, get("/"));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_10_anotherFrameInsideAFieldBlockIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_STREAM, get("/"));
            c.frame(PING, 0, 0, longBytes(1));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s6_10_aFieldBlockSplitOverContinuationFramesIsOneRequest() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            byte[] block = get("/split");
            int cut = block.length / 3;
            c.frame(HEADERS, 1, END_STREAM, java.util.Arrays.copyOfRange(block, 0, cut));
            c.frame(CONTINUATION, 1, 0, java.util.Arrays.copyOfRange(block, cut, 2 * cut));
            c.frame(CONTINUATION, 1, END_HEADERS, java.util.Arrays.copyOfRange(block, 2 * cut, block.length));
            assertThat(c.untilEnd(1)).anyMatch(f -> f.type == HEADERS && f.payload.length > 0);
        }
    }

    // ---- 8 HTTP semantics

    @Test
    void s8_1_trailersWithoutEndStreamAreAStreamProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) { // the answer waits: the stream stays open
            c.frame(HEADERS, 1, END_HEADERS, Http2ProtectionsIT.hpack(":method", "POST", ":scheme", "http", ":path", "/",
                    ":authority", "a.test"));
            c.frame(HEADERS, 1, END_HEADERS, Http2ProtectionsIT.hpack("x-trailer", "1"));
            c.assertRst(1, Http2ErrorCodes.PROTOCOL_ERROR);
            c.assertStillOpen();
        }
    }

    @Test
    void s8_1_1_dataBeyondTheContentLengthIsAStreamProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            c.frame(HEADERS, 1, END_HEADERS, Http2ProtectionsIT.hpack(":method", "POST", ":scheme", "http", ":path", "/",
                    ":authority", "a.test", "content-length", "2"));
            c.frame(DATA, 1, END_STREAM, new byte[] {1, 2, 3});
            c.assertRst(1, Http2ErrorCodes.PROTOCOL_ERROR);
            c.assertStillOpen();
        }
    }

    @Test
    void s8_1_1_lessDataThanTheContentLengthIsAStreamProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true, settings(4, 0))) {
            c.frame(HEADERS, 1, END_HEADERS, Http2ProtectionsIT.hpack(":method", "POST", ":scheme", "http", ":path", "/",
                    ":authority", "a.test", "content-length", "5"));
            c.frame(DATA, 1, END_STREAM, new byte[] {1, 2});
            c.assertRst(1, Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s8_2_1_anUpperCaseFieldNameIsAStreamProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, Http2ProtectionsIT.hpack(":method", "GET", ":scheme", "http",
                    ":path", "/", ":authority", "a.test", "X-A", "1"));
            c.assertRst(1, Http2ErrorCodes.PROTOCOL_ERROR);
            c.assertStillOpen();
        }
    }

    @Test
    void s8_2_2_aConnectionSpecificFieldIsAStreamProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, Http2ProtectionsIT.hpack(":method", "GET", ":scheme", "http",
                    ":path", "/", ":authority", "a.test", "proxy-connection", "keep-alive"));
            c.assertRst(1, Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s8_3_1_aRequestWithoutMethodIsAStreamProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, Http2ProtectionsIT.hpack(":scheme", "http", ":path", "/",
                    ":authority", "a.test"));
            c.assertRst(1, Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    @Test
    void s8_4_aPushPromiseFromAClientIsAProtocolError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS, get("/"));
            c.frame(PUSH_PROMISE, 1, END_HEADERS, concat(intBytes(2), get("/pushed")));
            c.assertGoAway(Http2ErrorCodes.PROTOCOL_ERROR);
        }
    }

    // ---- RFC 7541

    @Test
    void rfc7541_2_3_3_anIndexBeyondBothTablesIsACompressionError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, new byte[] {(byte) 0xBE}); // index 62, the table is empty
            c.assertGoAway(Http2ErrorCodes.COMPRESSION_ERROR);
        }
    }

    @Test
    void rfc7541_6_3_aSizeUpdateAboveOurSettingIsACompressionError() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            // 001 11111 then 4097 - 31 = 4066 as 7-bit groups: a size update to 4097
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, concat(new byte[] {0x3F, (byte) 0xE2, 0x1F}, get("/")));
            c.assertGoAway(Http2ErrorCodes.COMPRESSION_ERROR);
        }
    }

    @Test
    void rfc7541_6_2_1_fieldsIndexedByTheClientAreFoundAgain() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            // :authority a.test with incremental indexing (0x41: name index 1), then by its dynamic index 62
            byte[] first = concat(new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0x84, 0x41, 6}, "a.test".getBytes(StandardCharsets.US_ASCII));
            c.frame(HEADERS, 1, END_HEADERS | END_STREAM, first);
            assertThat(c.untilEnd(1)).anyMatch(f -> f.type == HEADERS);
            c.frame(HEADERS, 3, END_HEADERS | END_STREAM, new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0x84, (byte) 0xBE});
            List<Frame> second = c.untilEnd(3);
            assertThat(second).anyMatch(f -> f.type == DATA && new String(f.payload, StandardCharsets.US_ASCII).equals("ok\n"));
        }
    }

    // ---- 10.5 denial of service

    @Test
    void s10_5_aFloodOfEmptyDataFramesEndsTheConnection() throws Exception {
        try (Raw c = Raw.open(server.port("h2"), true)) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            all.writeBytes(Raw.frameBytes(HEADERS, 1, END_HEADERS, Http2ProtectionsIT.hpack(":method", "POST", ":scheme", "http",
                    ":path", "/", ":authority", "a.test")));
            for (int i = 0; i < 50; i++) {
                all.writeBytes(Raw.frameBytes(DATA, 1, 0, new byte[0]));
            }
            c.write(all.toByteArray());
            c.assertGoAway(Http2ErrorCodes.ENHANCE_YOUR_CALM);
        }
    }

    @Test
    void s10_5_pingsFromAClientThatDoesNotReadEndTheConnection() throws Exception {
        Socket small = new Socket();
        small.setReceiveBufferSize(4096); // before the connect: the window scale is agreed then
        small.connect(new java.net.InetSocketAddress("127.0.0.1", server.port("h2")));
        try (Raw c = Raw.open(small, true)) {
            byte[] batch = new byte[17 * 4096];
            for (int i = 0; i < 4096; i++) {
                System.arraycopy(Raw.frameBytes(PING, 0, 0, longBytes(i)), 0, batch, 17 * i, 17);
            }
            boolean cut = false;
            try {
                for (int n = 0; n < 600; n++) { // up to 2.4 million PINGs; the acks pile up once the socket's buffers are full
                    c.write(batch);
                }
            } catch (IOException e) {
                cut = true; // the server closed the connection while we were still writing
            }
            assertThat(cut || !c.drainUntilClosed()).as("the connection was ended").isTrue();
        }
    }

    // ---- the raw client

    record Frame(int type, int flags, int stream, byte[] payload) {
        int errorCode() {
            ByteBuffer b = ByteBuffer.wrap(payload);
            return type == GOAWAY ? b.getInt(4) : b.getInt(0);
        }

        @Override
        public String toString() {
            return "Frame(type " + type + ", flags " + flags + ", stream " + stream + ", " + payload.length + " B"
                    + (type == GOAWAY || type == RST_STREAM ? ", code " + errorCode() : "") + ")";
        }
    }

    static final class Raw implements AutoCloseable {
        final Socket socket;
        private final OutputStream out;
        private final DataInputStream in;
        final List<Frame> seen = new ArrayList<>();
        private byte[] serverSettings;

        private Raw(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
            this.in = new DataInputStream(socket.getInputStream());
        }

        /** Connects; with {@code handshake}, sends the preface and {@code settings} and reads the server's SETTINGS. */
        static Raw open(int port, boolean handshake, byte[]... settings) throws IOException {
            return open(new Socket("127.0.0.1", port), handshake, settings);
        }

        static Raw open(Socket socket, boolean handshake, byte[]... settings) throws IOException {
            Raw r = new Raw(socket);
            r.socket.setSoTimeout(5_000);
            if (handshake) {
                r.write(io.paduraksa.http2.Http2Frames.CLIENT_PREFACE);
                r.frame(SETTINGS, 0, 0, settings.length == 0 ? new byte[0] : settings[0]);
                Frame s = r.next();
                assertThat(s.type).isEqualTo(SETTINGS);
                r.serverSettings = s.payload;
                r.frame(SETTINGS, 0, ACK, new byte[0]);
            }
            return r;
        }

        long serverSetting(int id) {
            ByteBuffer b = ByteBuffer.wrap(serverSettings);
            while (b.remaining() >= 6) {
                int i = b.getShort() & 0xFFFF;
                long v = b.getInt() & 0xFFFFFFFFL;
                if (i == id) {
                    return v;
                }
            }
            return -1;
        }

        void write(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        void frame(int type, int stream, int flags, byte[] payload) throws IOException {
            write(frameBytes(type, stream, flags, payload));
        }

        static byte[] frameBytes(int type, int stream, int flags, byte[] payload) {
            ByteBuffer b = ByteBuffer.allocate(9 + payload.length);
            b.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length);
            b.put((byte) type).put((byte) flags).putInt(stream).put(payload);
            return b.array();
        }

        /** The next frame, or null when the connection closed. */
        Frame next() throws IOException {
            try {
                int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7FFFFFFF;
                byte[] payload = new byte[length];
                in.readFully(payload);
                Frame f = new Frame(type, flags, stream, payload);
                seen.add(f);
                if (type == SETTINGS && (flags & ACK) == 0 && serverSettings != null) {
                    frame(SETTINGS, 0, ACK, new byte[0]);
                }
                return f;
            } catch (EOFException | java.net.SocketException e) {
                return null;
            }
        }

        Frame nextOfType(int type) throws IOException {
            for (Frame f = next(); f != null; f = next()) {
                if (f.type == type) {
                    return f;
                }
            }
            throw new AssertionError("closed before a frame of type " + type + "; seen " + seen);
        }

        List<Frame> untilEnd(int stream) throws IOException {
            List<Frame> frames = new ArrayList<>();
            for (Frame f = next(); f != null; f = next()) {
                if (f.stream == stream) {
                    frames.add(f);
                    if ((f.flags & END_STREAM) != 0 && (f.type == DATA || f.type == HEADERS) || f.type == RST_STREAM) {
                        return frames;
                    }
                }
            }
            throw new AssertionError("closed before stream " + stream + " ended; seen " + seen);
        }

        List<Frame> untilClosed() throws IOException {
            List<Frame> frames = new ArrayList<>();
            for (Frame f = next(); f != null; f = next()) {
                frames.add(f);
            }
            return frames;
        }

        /** Reads (slowly at first: the server's acks must pile up) until the close; false if it stayed open. */
        boolean drainUntilClosed() throws IOException {
            try {
                while (next() != null) {
                    // discard
                }
                return false;
            } catch (SocketTimeoutException e) {
                return true;
            }
        }

        void assertGoAway(int code) throws IOException {
            for (Frame f = next(); f != null; f = next()) {
                if (f.type == GOAWAY) {
                    assertThat(f.errorCode()).as("GOAWAY code; seen %s", seen).isEqualTo(code);
                    assertThat(untilClosed()).as("the close after GOAWAY").noneMatch(x -> x.type == HEADERS);
                    return;
                }
            }
            throw new AssertionError("closed without GOAWAY; seen " + seen);
        }

        void assertRst(int stream, int code) throws IOException {
            for (Frame f = next(); f != null; f = next()) {
                if (f.type == GOAWAY) {
                    throw new AssertionError("GOAWAY instead of RST_STREAM on " + stream + "; seen " + seen);
                }
                if (f.type == RST_STREAM && f.stream == stream) {
                    assertThat(f.errorCode()).as("RST_STREAM code; seen %s", seen).isEqualTo(code);
                    return;
                }
            }
            throw new AssertionError("closed without RST_STREAM on " + stream + "; seen " + seen);
        }

        /** A PING round trip: the connection still answers. */
        void assertStillOpen() throws IOException {
            frame(PING, 0, 0, longBytes(0x5A5A));
            for (Frame f = next(); f != null; f = next()) {
                if (f.type == PING && (f.flags & ACK) != 0 && ByteBuffer.wrap(f.payload).getLong() == 0x5A5A) {
                    return;
                }
                if (f.type == GOAWAY) {
                    throw new AssertionError("GOAWAY; seen " + seen);
                }
            }
            throw new AssertionError("closed; seen " + seen);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static byte[] settings(int id, long value) {
        return ByteBuffer.allocate(6).putShort((short) id).putInt((int) value).array();
    }

    static byte[] intBytes(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
