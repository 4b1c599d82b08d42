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
import static io.paduraksa.http2.Http2Frames.HEADER_LENGTH;
import static io.paduraksa.http2.Http2Frames.PING;
import static io.paduraksa.http2.Http2Frames.PRIORITY;
import static io.paduraksa.http2.Http2Frames.PUSH_PROMISE;
import static io.paduraksa.http2.Http2Frames.RST_STREAM;
import static io.paduraksa.http2.Http2Frames.SETTINGS;
import static io.paduraksa.http2.Http2Frames.SETTING_ENTRY_LENGTH;
import static io.paduraksa.http2.Http2Frames.WINDOW_UPDATE;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Reads HTTP/2 frames (RFC 9113 sections 4 and 6) from an inbound buffer and reports each to an
 * {@link Http2FrameListener} with primitives and positions: no object per frame. Resumable at any
 * split point: {@link #read} consumes only whole frames and leaves a partial one in the buffer for
 * the next call (the caller cumulates, as {@code ByteToMessageDecoder} does); the frame length is
 * checked against SETTINGS_MAX_FRAME_SIZE as soon as the 9-byte header is there, so at most one
 * frame of that size is ever buffered.
 *
 * <p>Checks, in the order of Netty's {@code DefaultHttp2FrameReader} (a differential test holds us
 * to its verdicts): frame size; stream id per type; nothing but CONTINUATION on the same stream
 * inside a field block; the fixed lengths of PRIORITY, RST_STREAM, SETTINGS, PING and
 * WINDOW_UPDATE; padding; setting values; a zero window increment. Unknown frame types are
 * reported to {@link Http2FrameListener#onUnknownFrame} and otherwise ignored (section 4.1), also
 * with a non-zero stream id. One rule goes beyond Netty: PUSH_PROMISE on stream 0 is a connection
 * error (section 6.6). Connection state (which streams exist, flow control) is not this class's.
 *
 * <p>A field block that spans frames is copied into one per-connection block buffer, bounded by
 * {@code maxFieldBlockSize} (a connection error beyond it, as a CONTINUATION flood must not grow
 * memory); a block in one HEADERS frame is reported in place. Thread: the connection's event loop.
 * Per frame nothing is allocated; the block buffer grows to the largest split block once.
 */
public final class Http2FrameReader {
    private int maxFrameSize = Http2Frames.MIN_MAX_FRAME_SIZE;
    private final int maxFieldBlockSize;
    /** The most CONTINUATION frames under {@link #SMALL_CONTINUATION} bytes one field block may have; 0: no limit. */
    private int maxSmallContinuations;
    private int smallContinuations;
    private ByteBuf block = Unpooled.EMPTY_BUFFER;
    private boolean failed;

    /** Stream of the open field block (HEADERS or PUSH_PROMISE without END_HEADERS), 0 if none. */
    private int blockStreamId;
    private int blockType;
    private int blockPadding;
    private boolean blockEndStream;
    private int blockDependency;
    private int blockWeight;
    private int blockPromisedId;

    /**
     * @param maxFieldBlockSize the largest field block accepted, in encoded bytes, over all its
     *        frames; larger is a connection error (Netty's "max header list size GO_AWAY" is 1.25
     *        times SETTINGS_MAX_HEADER_LIST_SIZE)
     */
    public Http2FrameReader(int maxFieldBlockSize) {
        this.maxFieldBlockSize = maxFieldBlockSize;
    }

    /**
     * A CONTINUATION frame shorter than this (and not the block's last) counts against
     * {@link #maxSmallContinuationFrames}: a client splitting a block needs few frames of the peer's
     * frame size, while a flood of tiny ones costs a call each for a few bytes (the CONTINUATION
     * flood of 2024, which Netty bounds the same way).
     */
    public static final int SMALL_CONTINUATION = 128;

    /** Bounds the small CONTINUATION frames of one field block (a connection ENHANCE_YOUR_CALM beyond); 0 turns it off. */
    public void maxSmallContinuationFrames(int max) {
        this.maxSmallContinuations = max;
    }

    /** Our SETTINGS_MAX_FRAME_SIZE, once the peer acknowledged it (2^14 until then). */
    public void maxFrameSize(int maxFrameSize) {
        if (maxFrameSize < Http2Frames.MIN_MAX_FRAME_SIZE || maxFrameSize > Http2Frames.MAX_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("max frame size " + maxFrameSize + " (expected 16384..16777215)");
        }
        this.maxFrameSize = maxFrameSize;
    }

    /** Whether a connection error was reported; from then on {@link #read} discards everything. */
    public boolean hasFailed() {
        return failed;
    }

    /**
     * Stops reading for good: the listener found a connection error the reader cannot see (an
     * HPACK decoding error, a flow-control violation). Every later byte is discarded.
     */
    public void stop() {
        failed = true;
    }

    /** Drops the block buffer (a heap array: nothing to release); call when the connection closes. */
    public void close() {
        block = Unpooled.EMPTY_BUFFER;
        blockStreamId = 0;
    }

    /**
     * Reads every whole frame in {@code in} and advances its reader index past them; a partial
     * frame stays for the next call. Stops after a connection error (and then skips all input).
     */
    public void read(ByteBuf in, Http2FrameListener listener) {
        while (!failed) {
            int start = in.readerIndex();
            int available = in.writerIndex() - start;
            if (available < HEADER_LENGTH) {
                return;
            }
            int length = in.getUnsignedMedium(start);
            if (length > maxFrameSize) {
                connectionError(listener, Http2Violation.FRAME_TOO_LARGE);
                break;
            }
            if (available < HEADER_LENGTH + length) {
                return;
            }
            int type = in.getUnsignedByte(start + 3);
            int flags = in.getUnsignedByte(start + 4);
            int streamId = in.getInt(start + 5) & 0x7FFFFFFF; // the reserved bit is ignored (section 4.1)
            in.readerIndex(start + HEADER_LENGTH + length);
            frame(type, flags, streamId, in, start + HEADER_LENGTH, length, listener);
        }
        in.skipBytes(in.readableBytes());
    }

    private void frame(int type, int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        switch (type) {
            case DATA -> data(flags, streamId, in, index, length, l);
            case HEADERS -> headers(flags, streamId, in, index, length, l);
            case PRIORITY -> priority(streamId, in, index, length, l);
            case RST_STREAM -> rstStream(streamId, in, index, length, l);
            case SETTINGS -> settings(flags, streamId, in, index, length, l);
            case PUSH_PROMISE -> pushPromise(flags, streamId, in, index, length, l);
            case PING -> ping(flags, streamId, in, index, length, l);
            case GOAWAY -> goAway(streamId, in, index, length, l);
            case WINDOW_UPDATE -> windowUpdate(streamId, in, index, length, l);
            case CONTINUATION -> continuation(flags, streamId, in, index, length, l);
            default -> unknown(type, flags, streamId, in, index, length, l);
        }
    }

    /** A check shared by every frame but CONTINUATION: no other frame may interrupt a field block. */
    private boolean interruptsBlock(Http2FrameListener l) {
        if (blockStreamId != 0) {
            connectionError(l, Http2Violation.CONTINUATION_EXPECTED);
            return true;
        }
        return false;
    }

    private boolean onStreamAndNotInBlock(int streamId, Http2FrameListener l) {
        if (streamId == 0) {
            connectionError(l, Http2Violation.STREAM_ID_REQUIRED);
            return false;
        }
        return !interruptsBlock(l);
    }

    private boolean onConnectionAndNotInBlock(int streamId, Http2FrameListener l) {
        if (interruptsBlock(l)) {
            return false;
        }
        if (streamId != 0) {
            connectionError(l, Http2Violation.STREAM_ID_NOT_ZERO);
            return false;
        }
        return true;
    }

    private void data(int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!onStreamAndNotInBlock(streamId, l)) {
            return;
        }
        boolean padded = (flags & FLAG_PADDED) != 0;
        if (padded && length < 1) {
            l.onStreamError(streamId, Http2Violation.DATA_TOO_SHORT);
            return;
        }
        int padLength = padded ? in.getUnsignedByte(index) : 0;
        int offset = padded ? 1 : 0;
        int dataLength = length - offset - padLength;
        if (dataLength < 0) {
            connectionError(l, Http2Violation.PADDING_TOO_LONG);
            return;
        }
        l.onData(streamId, in, index + offset, dataLength, padded ? padLength + 1 : 0, (flags & FLAG_END_STREAM) != 0);
    }

    private void headers(int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!onStreamAndNotInBlock(streamId, l)) {
            return;
        }
        boolean padded = (flags & FLAG_PADDED) != 0;
        boolean hasPriority = (flags & FLAG_PRIORITY) != 0;
        int offset = (padded ? 1 : 0) + (hasPriority ? 5 : 0);
        if (length < offset) {
            connectionError(l, Http2Violation.HEADERS_TOO_SHORT);
            return;
        }
        int padLength = padded ? in.getUnsignedByte(index) : 0;
        int dependency = 0;
        int weight = 0;
        if (hasPriority) {
            int at = index + (padded ? 1 : 0);
            dependency = in.getInt(at);
            if ((dependency & 0x7FFFFFFF) == streamId) {
                connectionError(l, Http2Violation.HEADERS_SELF_DEPENDENCY);
                return;
            }
            weight = in.getUnsignedByte(at + 4) + 1;
        }
        int fragmentLength = length - offset - padLength;
        if (fragmentLength < 0) {
            connectionError(l, Http2Violation.PADDING_TOO_LONG);
            return;
        }
        openBlock(HEADERS, streamId, padded ? padLength + 1 : 0, (flags & FLAG_END_STREAM) != 0, dependency, weight, 0);
        fragment(in, index + offset, fragmentLength, (flags & FLAG_END_HEADERS) != 0, l);
    }

    private void pushPromise(int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (interruptsBlock(l)) {
            return;
        }
        boolean padded = (flags & FLAG_PADDED) != 0;
        int offset = (padded ? 1 : 0) + 4;
        if (length < offset) {
            connectionError(l, Http2Violation.PUSH_PROMISE_TOO_SHORT);
            return;
        }
        int padLength = padded ? in.getUnsignedByte(index) : 0;
        int promisedId = in.getInt(index + offset - 4) & 0x7FFFFFFF;
        int fragmentLength = length - offset - padLength;
        if (fragmentLength < 0) {
            connectionError(l, Http2Violation.PADDING_TOO_LONG);
            return;
        }
        if (streamId == 0) { // section 6.6; Netty's reader does not check it
            connectionError(l, Http2Violation.STREAM_ID_REQUIRED);
            return;
        }
        openBlock(PUSH_PROMISE, streamId, padded ? padLength + 1 : 0, false, 0, 0, promisedId);
        fragment(in, index + offset, fragmentLength, (flags & FLAG_END_HEADERS) != 0, l);
    }

    private void continuation(int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (streamId == 0) {
            connectionError(l, Http2Violation.STREAM_ID_REQUIRED);
        } else if (blockStreamId == 0) {
            connectionError(l, Http2Violation.CONTINUATION_UNEXPECTED);
        } else if (streamId != blockStreamId) {
            connectionError(l, Http2Violation.CONTINUATION_WRONG_STREAM);
        } else {
            boolean endHeaders = (flags & FLAG_END_HEADERS) != 0;
            if (!endHeaders && length < SMALL_CONTINUATION && maxSmallContinuations > 0
                    && ++smallContinuations > maxSmallContinuations) {
                blockStreamId = 0;
                connectionError(l, Http2Violation.CONTINUATION_FLOOD);
                return;
            }
            fragment(in, index, length, endHeaders, l);
        }
    }

    private void openBlock(int type, int streamId, int padding, boolean endStream, int dependency, int weight,
            int promisedId) {
        blockType = type;
        blockStreamId = streamId;
        blockPadding = padding;
        blockEndStream = endStream;
        blockDependency = dependency;
        blockWeight = weight;
        blockPromisedId = promisedId;
        smallContinuations = 0;
        block.clear();
    }

    /** One fragment of the open block; the first may be the whole block and is then read in place. */
    private void fragment(ByteBuf in, int index, int length, boolean endHeaders, Http2FrameListener l) {
        int buffered = block.writerIndex();
        if (length > maxFieldBlockSize - buffered) {
            blockStreamId = 0;
            connectionError(l, Http2Violation.FIELD_BLOCK_TOO_LARGE);
            return;
        }
        if (buffered == 0 && endHeaders) {
            endBlock(in, index, length, l);
            return;
        }
        if (block.capacity() - buffered < length) {
            growBlock(buffered + length);
        }
        block.writeBytes(in, index, length);
        if (endHeaders) {
            endBlock(block, 0, block.writerIndex(), l);
        }
    }

    private void growBlock(int needed) {
        int capacity = Math.max(needed, Math.min(maxFieldBlockSize, Math.max(1024, block.capacity() * 2)));
        // a heap array, wrapped: the collector frees it with the reader, no release to forget
        ByteBuf grown = Unpooled.wrappedBuffer(new byte[capacity]).clear();
        grown.writeBytes(block);
        block = grown;
    }

    private void endBlock(ByteBuf buf, int index, int length, Http2FrameListener l) {
        int streamId = blockStreamId;
        blockStreamId = 0;
        if (blockType == HEADERS) {
            l.onHeaders(streamId, buf, index, length, blockPadding, blockEndStream, blockDependency, blockWeight);
        } else {
            l.onPushPromise(streamId, blockPromisedId, buf, index, length, blockPadding);
        }
        block.clear();
    }

    private void priority(int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!onStreamAndNotInBlock(streamId, l)) {
            return;
        }
        if (length != 5) {
            l.onStreamError(streamId, Http2Violation.PRIORITY_LENGTH);
            return;
        }
        int dependency = in.getInt(index);
        if ((dependency & 0x7FFFFFFF) == streamId) {
            l.onStreamError(streamId, Http2Violation.PRIORITY_SELF_DEPENDENCY);
            return;
        }
        l.onPriority(streamId, dependency, in.getUnsignedByte(index + 4) + 1);
    }

    private void rstStream(int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!onStreamAndNotInBlock(streamId, l)) {
            return;
        }
        if (length != 4) {
            connectionError(l, Http2Violation.RST_STREAM_LENGTH);
            return;
        }
        l.onRstStream(streamId, in.getUnsignedInt(index));
    }

    private void settings(int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!onConnectionAndNotInBlock(streamId, l)) {
            return;
        }
        boolean ack = (flags & FLAG_ACK) != 0;
        if (ack && length > 0) {
            connectionError(l, Http2Violation.SETTINGS_ACK_LENGTH);
        } else if (length % SETTING_ENTRY_LENGTH != 0) {
            connectionError(l, Http2Violation.SETTINGS_LENGTH);
        } else if (ack) {
            l.onSettingsAck();
        } else {
            int end = index + length;
            for (int at = index; at < end; at += SETTING_ENTRY_LENGTH) {
                Http2Violation violation = checkSetting(in.getUnsignedShort(at), in.getUnsignedInt(at + 2));
                if (violation != null) {
                    connectionError(l, violation);
                    return;
                }
            }
            for (int at = index; at < end; at += SETTING_ENTRY_LENGTH) {
                l.onSetting(in.getUnsignedShort(at), in.getUnsignedInt(at + 2));
            }
            l.onSettingsEnd();
        }
    }

    /** Section 6.5.2 value ranges; unknown identifiers are ignored (but still reported). */
    static Http2Violation checkSetting(int id, long value) {
        return switch (id) {
            case Http2Frames.SETTINGS_ENABLE_PUSH -> value > 1 ? Http2Violation.SETTINGS_ENABLE_PUSH : null;
            case Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE ->
                    value > Http2Frames.MAX_WINDOW_SIZE ? Http2Violation.SETTINGS_INITIAL_WINDOW_SIZE : null;
            case Http2Frames.SETTINGS_MAX_FRAME_SIZE ->
                    value < Http2Frames.MIN_MAX_FRAME_SIZE || value > Http2Frames.MAX_MAX_FRAME_SIZE
                            ? Http2Violation.SETTINGS_MAX_FRAME_SIZE : null;
            case Http2Frames.SETTINGS_ENABLE_CONNECT_PROTOCOL ->
                    value > 1 ? Http2Violation.SETTINGS_ENABLE_CONNECT_PROTOCOL : null;
            default -> null;
        };
    }

    private void ping(int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!onConnectionAndNotInBlock(streamId, l)) {
            return;
        }
        if (length != 8) {
            connectionError(l, Http2Violation.PING_LENGTH);
            return;
        }
        l.onPing(in.getLong(index), (flags & FLAG_ACK) != 0);
    }

    private void goAway(int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!onConnectionAndNotInBlock(streamId, l)) {
            return;
        }
        if (length < 8) {
            connectionError(l, Http2Violation.GOAWAY_TOO_SHORT);
            return;
        }
        l.onGoAway(in.getInt(index) & 0x7FFFFFFF, in.getUnsignedInt(index + 4), in, index + 8, length - 8);
    }

    private void windowUpdate(int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (interruptsBlock(l)) {
            return;
        }
        if (length != 4) {
            connectionError(l, Http2Violation.WINDOW_UPDATE_LENGTH);
            return;
        }
        int increment = in.getInt(index) & 0x7FFFFFFF;
        if (increment == 0) {
            if (streamId == 0) {
                connectionError(l, Http2Violation.WINDOW_UPDATE_ZERO_CONNECTION);
            } else {
                l.onStreamError(streamId, Http2Violation.WINDOW_UPDATE_ZERO_STREAM);
            }
            return;
        }
        l.onWindowUpdate(streamId, increment);
    }

    private void unknown(int type, int flags, int streamId, ByteBuf in, int index, int length, Http2FrameListener l) {
        if (!interruptsBlock(l)) {
            l.onUnknownFrame(type, flags, streamId, in, index, length);
        }
    }

    private void connectionError(Http2FrameListener l, Http2Violation violation) {
        failed = true;
        l.onConnectionError(violation);
    }
}
