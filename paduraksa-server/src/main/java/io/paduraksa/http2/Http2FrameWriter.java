package io.paduraksa.http2;

import static io.paduraksa.http2.Http2Frames.CONTINUATION;
import static io.paduraksa.http2.Http2Frames.DATA;
import static io.paduraksa.http2.Http2Frames.FLAG_ACK;
import static io.paduraksa.http2.Http2Frames.FLAG_END_HEADERS;
import static io.paduraksa.http2.Http2Frames.FLAG_END_STREAM;
import static io.paduraksa.http2.Http2Frames.GOAWAY;
import static io.paduraksa.http2.Http2Frames.HEADERS;
import static io.paduraksa.http2.Http2Frames.HEADER_LENGTH;
import static io.paduraksa.http2.Http2Frames.PING;
import static io.paduraksa.http2.Http2Frames.RST_STREAM;
import static io.paduraksa.http2.Http2Frames.SETTINGS;
import static io.paduraksa.http2.Http2Frames.SETTING_ENTRY_LENGTH;
import static io.paduraksa.http2.Http2Frames.WINDOW_UPDATE;

import io.netty.buffer.ByteBuf;

/**
 * Writes frames into a buffer the caller owns (typically {@code ctx.alloc().ioBuffer()}, pooled),
 * so that one read batch's answers go out in one buffer and one flush: no frame object, promise or
 * future per frame. Every method appends at the writer index and allocates nothing; a field block
 * longer than the peer's SETTINGS_MAX_FRAME_SIZE is split into HEADERS and CONTINUATION frames
 * (RFC 9113 section 6.10), written back to back as section 6.2 requires.
 */
public final class Http2FrameWriter {
    private Http2FrameWriter() {
    }

    public static void frameHeader(ByteBuf out, int length, int type, int flags, int streamId) {
        out.writeMedium(length);
        out.writeByte(type);
        out.writeByte(flags);
        out.writeInt(streamId);
    }

    /** The 9-byte header of a DATA frame whose {@code length} payload bytes the caller writes next (or adds as a buffer). */
    public static void dataHeader(ByteBuf out, int streamId, int length, boolean endStream) {
        frameHeader(out, length, DATA, endStream ? FLAG_END_STREAM : 0, streamId);
    }

    /** A DATA frame with {@code data[index, index + length)} copied in; {@code length} at most the peer's max frame size. */
    public static void data(ByteBuf out, int streamId, ByteBuf data, int index, int length, boolean endStream) {
        dataHeader(out, streamId, length, endStream);
        out.writeBytes(data, index, length);
    }

    /** A field block as HEADERS plus as many CONTINUATION frames as {@code maxFrameSize} needs. */
    public static void headers(ByteBuf out, int streamId, ByteBuf block, int index, int length, boolean endStream,
            int maxFrameSize) {
        int first = Math.min(length, maxFrameSize);
        int flags = (endStream ? FLAG_END_STREAM : 0) | (first == length ? FLAG_END_HEADERS : 0);
        frameHeader(out, first, HEADERS, flags, streamId);
        out.writeBytes(block, index, first);
        int at = index + first;
        int end = index + length;
        while (at < end) {
            int n = Math.min(end - at, maxFrameSize);
            frameHeader(out, n, CONTINUATION, at + n == end ? FLAG_END_HEADERS : 0, streamId);
            out.writeBytes(block, at, n);
            at += n;
        }
    }

    /** The header of a SETTINGS frame with {@code count} entries; follow with {@link #setting} {@code count} times. */
    public static void settingsHeader(ByteBuf out, int count) {
        frameHeader(out, count * SETTING_ENTRY_LENGTH, SETTINGS, 0, 0);
    }

    public static void setting(ByteBuf out, int id, long value) {
        out.writeShort(id);
        out.writeInt((int) value);
    }

    public static void settingsAck(ByteBuf out) {
        frameHeader(out, 0, SETTINGS, FLAG_ACK, 0);
    }

    public static void ping(ByteBuf out, long data, boolean ack) {
        frameHeader(out, 8, PING, ack ? FLAG_ACK : 0, 0);
        out.writeLong(data);
    }

    public static void goAway(ByteBuf out, int lastStreamId, int errorCode) {
        frameHeader(out, 8, GOAWAY, 0, 0);
        out.writeInt(lastStreamId);
        out.writeInt(errorCode);
    }

    public static void rstStream(ByteBuf out, int streamId, int errorCode) {
        frameHeader(out, 4, RST_STREAM, 0, streamId);
        out.writeInt(errorCode);
    }

    public static void windowUpdate(ByteBuf out, int streamId, int increment) {
        frameHeader(out, 4, WINDOW_UPDATE, 0, streamId);
        out.writeInt(increment);
    }

    /** Bytes {@link #headers} writes for a block of {@code length} bytes. */
    public static int headersSize(int length, int maxFrameSize) {
        int frames = length == 0 ? 1 : (length + maxFrameSize - 1) / maxFrameSize;
        return length + frames * HEADER_LENGTH;
    }
}
