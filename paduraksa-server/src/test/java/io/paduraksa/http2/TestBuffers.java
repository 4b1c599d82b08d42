package io.paduraksa.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * Heap buffers for test inputs, outside Netty's leak detector: the generated inputs are garbage
 * once compared, and releasing each of them would only add noise. Code under test never gets its
 * own buffers from here.
 */
final class TestBuffers {
    private static final ByteBufAllocator HEAP = new UnpooledByteBufAllocator(false, true);

    private TestBuffers() {
    }

    static ByteBuf buffer() {
        return HEAP.heapBuffer();
    }

    static ByteBuf buffer(int initialCapacity) {
        return HEAP.heapBuffer(initialCapacity);
    }

    static ByteBuf ascii(CharSequence s) {
        ByteBuf b = HEAP.heapBuffer(s.length());
        b.writeCharSequence(s, ISO_8859_1);
        return b;
    }

    /**
     * A field block encoded once with {@link HpackEncoder#field} ({@code name, value} pairs, names in
     * lower case), as a precomputed answer's: in a buffer from {@link PooledByteBufAllocator} by name,
     * which the caller releases.
     */
    static ByteBuf fieldBlock(boolean huffman, String... namesAndValues) {
        ByteBuf scratch = buffer();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            ByteBuf n = ascii(namesAndValues[i]);
            ByteBuf v = ascii(namesAndValues[i + 1]);
            HpackEncoder.field(scratch, n, 0, n.readableBytes(), v, 0, v.readableBytes(), huffman);
        }
        return PooledByteBufAllocator.DEFAULT.directBuffer(scratch.readableBytes()).writeBytes(scratch);
    }
}
