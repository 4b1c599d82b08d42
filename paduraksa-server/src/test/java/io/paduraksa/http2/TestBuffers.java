package io.paduraksa.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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
}
