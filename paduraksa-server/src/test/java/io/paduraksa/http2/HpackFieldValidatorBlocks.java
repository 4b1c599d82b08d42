package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;

/** Field blocks for tests: literals without indexing, every string Huffman-coded. */
final class HpackFieldValidatorBlocks {
    private HpackFieldValidatorBlocks() {
    }

    static ByteBuf huffmanBlock(String... pairs) {
        ByteBuf out = TestBuffers.buffer();
        for (int i = 0; i < pairs.length; i += 2) {
            ByteBuf n = TestBuffers.ascii(pairs[i]);
            ByteBuf v = TestBuffers.ascii(pairs[i + 1]);
            out.writeByte(0x00);
            HpackEncoder.string(out, n, 0, n.readableBytes(), true);
            HpackEncoder.string(out, v, 0, v.readableBytes(), true);
        }
        return out;
    }
}
