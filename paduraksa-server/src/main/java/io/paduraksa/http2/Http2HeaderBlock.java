package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * A field block encoded once ({@link HpackEncoder}: static indices and literals without indexing,
 * so it is valid on every connection whatever its dynamic table), for answers that never change:
 * built when the snapshot is compiled, written per request with {@link #writeHeaders} (a copy into
 * the caller's outbound buffer: 0 B per answer) and released with the snapshot. The block lives in
 * a buffer from {@link PooledByteBufAllocator} by name (DESIGN.md: the default adaptive allocator
 * costs 40 B per duplicate).
 *
 * <p>Fields that change per request or per second ({@code date}, a request id) are not part of the
 * block; the caller appends them to a copy of it with {@link HpackEncoder} (a field block is a
 * sequence of representations, so the two parts concatenate).
 */
public final class Http2HeaderBlock {
    private final ByteBuf block;

    private Http2HeaderBlock(ByteBuf block) {
        this.block = block;
    }

    public static Builder builder(boolean huffman) {
        return new Builder(huffman);
    }

    /** The encoded block (read only by convention: never write to or release it). */
    public ByteBuf block() {
        return block;
    }

    public int length() {
        return block.readableBytes();
    }

    /** HEADERS (and CONTINUATION when needed) carrying exactly this block. */
    public void writeHeaders(ByteBuf out, int streamId, boolean endStream, int maxFrameSize) {
        Http2FrameWriter.headers(out, streamId, block, block.readerIndex(), block.readableBytes(), endStream,
                maxFrameSize);
    }

    public void release() {
        block.release();
    }

    /** Builds a block at compile time; allocates freely. */
    public static final class Builder {
        private final boolean huffman;
        private final ByteBuf scratch = Unpooled.buffer();

        private Builder(boolean huffman) {
            this.huffman = huffman;
        }

        public Builder status(int status) {
            return field(":status", Integer.toString(status));
        }

        /** Adds a field; {@code name} must be lower case (RFC 9113 section 8.2.1). */
        public Builder field(String name, String value) {
            ByteBuf n = Unpooled.copiedBuffer(name, StandardCharsets.ISO_8859_1);
            ByteBuf v = Unpooled.copiedBuffer(value, StandardCharsets.ISO_8859_1);
            try {
                HpackEncoder.field(scratch, n, 0, n.readableBytes(), v, 0, v.readableBytes(), huffman);
            } finally {
                n.release();
                v.release();
            }
            return this;
        }

        public Http2HeaderBlock build() {
            ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(scratch.readableBytes());
            pooled.writeBytes(scratch);
            scratch.release();
            return new Http2HeaderBlock(pooled);
        }
    }
}
