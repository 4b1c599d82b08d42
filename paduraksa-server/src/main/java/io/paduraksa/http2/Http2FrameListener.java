package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;

/**
 * What {@link Http2FrameReader} reports, one call per frame, with primitives and positions into a
 * buffer instead of a frame object. A position is valid only during the call: the buffer is the
 * inbound one (or, for a field block split over CONTINUATION frames, the reader's block buffer),
 * and both are reused afterwards. Implementations are per connection (usually the connection
 * state itself), so calling them allocates nothing.
 *
 * <p>An error ends with {@link #onStreamError} (the reader goes on with the next frame) or
 * {@link #onConnectionError} (the reader stops: every later byte is discarded).
 */
public interface Http2FrameListener {
    /**
     * A DATA frame (RFC 9113 section 6.1): {@code buf[index, index + length)} is the data without
     * padding; {@code padding} is the pad length field plus the padding (0 if unpadded), so the
     * flow-controlled size is {@code length + padding}.
     */
    void onData(int streamId, ByteBuf buf, int index, int length, int padding, boolean endStream);

    /**
     * A complete field block of a HEADERS frame and its CONTINUATION frames (sections 6.2, 6.10).
     * {@code weight} is 0 without the PRIORITY flag, else 1..256, and {@code dependency} then holds
     * the raw 32-bit word (exclusive bit on top).
     */
    void onHeaders(int streamId, ByteBuf block, int index, int length, int padding, boolean endStream,
            int dependency, int weight);

    /** A PRIORITY frame (section 6.3); {@code dependency} is the raw word, weight 1..256. */
    void onPriority(int streamId, int dependency, int weight);

    void onRstStream(int streamId, long errorCode);

    /** One setting of a SETTINGS frame, in frame order; called only once the whole frame was valid. */
    void onSetting(int id, long value);

    /** The end of a non-ACK SETTINGS frame (also after an empty one): apply, then acknowledge. */
    void onSettingsEnd();

    void onSettingsAck();

    /** A complete PUSH_PROMISE field block (section 6.6); a server refuses it (section 8.4). */
    void onPushPromise(int streamId, int promisedStreamId, ByteBuf block, int index, int length, int padding);

    void onPing(long data, boolean ack);

    /** A GOAWAY frame (section 6.8); {@code debug[index, index + length)} is the debug data. */
    void onGoAway(int lastStreamId, long errorCode, ByteBuf debug, int index, int length);

    /** A WINDOW_UPDATE frame (section 6.9), increment 1..2^31-1; stream 0 is the connection. */
    void onWindowUpdate(int streamId, int increment);

    /** A frame of a type this reader does not know (section 4.1: ignored); does nothing unless overridden. */
    default void onUnknownFrame(int type, int flags, int streamId, ByteBuf payload, int index, int length) {
    }

    /** A stream error: reset {@code streamId} with {@code violation.code()}; reading goes on. */
    void onStreamError(int streamId, Http2Violation violation);

    /** A connection error: send GOAWAY with {@code violation.code()} and close; the reader stops. */
    void onConnectionError(Http2Violation violation);
}
