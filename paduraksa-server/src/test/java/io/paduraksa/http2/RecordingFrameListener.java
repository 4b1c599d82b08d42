package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Test listener: one line of text per event, so that readers can be compared event by event. With
 * a decoder set, field blocks are decoded and a decoding error takes the place of the block's event,
 * as with Netty's reader (which throws it).
 */
class RecordingFrameListener implements Http2FrameListener {
    final List<String> events = new ArrayList<>();
    /** Decodes field blocks when set; the decoded fields are then part of the event. */
    HpackDecoder decoder;
    /** Stopped when a field block has a connection error, as a connection would. */
    Http2FrameReader reader;
    boolean validate;

    private static String hex(ByteBuf buf, int index, int length) {
        return ByteBufUtil.hexDump(buf, index, length);
    }

    @Override
    public void onData(int streamId, ByteBuf buf, int index, int length, int padding, boolean endStream) {
        events.add("DATA " + streamId + " pad=" + padding + " end=" + endStream + " " + hex(buf, index, length));
    }

    @Override
    public void onHeaders(int streamId, ByteBuf block, int index, int length, int padding, boolean endStream,
            int dependency, int weight) {
        String priority = weight == 0 ? "" : " dep=" + (dependency & 0x7FFFFFFF) + " excl=" + (dependency < 0)
                + " weight=" + weight;
        String fields = fields(streamId, block, index, length);
        if (fields != null) {
            events.add("HEADERS " + streamId + " pad=" + padding + " end=" + endStream + priority + " " + fields);
        }
    }

    @Override
    public void onPriority(int streamId, int dependency, int weight) {
        events.add("PRIORITY " + streamId + " dep=" + (dependency & 0x7FFFFFFF) + " excl=" + (dependency < 0)
                + " weight=" + weight);
    }

    @Override
    public void onRstStream(int streamId, long errorCode) {
        events.add("RST_STREAM " + streamId + " " + errorCode);
    }

    /** By identifier, the last value of an identifier winning, as a peer applies them (RFC 9113 6.5). */
    private final TreeMap<Integer, Long> settings = new TreeMap<>();

    @Override
    public void onSetting(int id, long value) {
        settings.put(id, value);
    }

    @Override
    public void onSettingsEnd() {
        events.add("SETTINGS " + settings);
        settings.clear();
    }

    @Override
    public void onSettingsAck() {
        events.add("SETTINGS_ACK");
    }

    @Override
    public void onPushPromise(int streamId, int promisedStreamId, ByteBuf block, int index, int length, int padding) {
        String fields = fields(streamId, block, index, length);
        if (fields != null) {
            events.add("PUSH_PROMISE " + streamId + " promised=" + promisedStreamId + " pad=" + padding + " " + fields);
        }
    }

    @Override
    public void onPing(long data, boolean ack) {
        events.add("PING " + data + " ack=" + ack);
    }

    @Override
    public void onGoAway(int lastStreamId, long errorCode, ByteBuf debug, int index, int length) {
        events.add("GOAWAY " + lastStreamId + " " + errorCode + " " + hex(debug, index, length));
    }

    @Override
    public void onWindowUpdate(int streamId, int increment) {
        events.add("WINDOW_UPDATE " + streamId + " " + increment);
    }

    @Override
    public void onUnknownFrame(int type, int flags, int streamId, ByteBuf payload, int index, int length) {
        events.add("UNKNOWN " + type + " " + flags + " " + streamId + " " + hex(payload, index, length));
    }

    @Override
    public void onStreamError(int streamId, Http2Violation violation) {
        lastViolation = violation;
        events.add("STREAM_ERROR " + streamId + " " + Http2ErrorCodes.name(violation.code()));
    }

    @Override
    public void onConnectionError(Http2Violation violation) {
        lastViolation = violation;
        events.add("CONNECTION_ERROR " + Http2ErrorCodes.name(violation.code()));
    }

    /** The violation of the last event, for conformance tests that name the rule. */
    Http2Violation lastViolation;

    private String fields(int streamId, ByteBuf block, int index, int length) {
        if (decoder == null) {
            return hex(block, index, length);
        }
        CollectingSink sink = new CollectingSink();
        Http2Violation v = decoder.decode(block, index, length,
                validate ? Http2FieldValidator.REQUEST : Http2FieldValidator.NONE, sink);
        if (v == null) {
            return sink.normalized();
        }
        if (v.isConnectionError()) {
            if (reader != null) {
                reader.stop();
            }
            onConnectionError(v);
        } else {
            onStreamError(streamId, v);
        }
        return null;
    }
}
