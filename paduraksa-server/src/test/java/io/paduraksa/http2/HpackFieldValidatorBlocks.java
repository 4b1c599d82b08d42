package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;

/** Field blocks for tests: every pair a literal with a literal name. */
final class HpackFieldValidatorBlocks {
    private HpackFieldValidatorBlocks() {
    }

    /** Literals without indexing, every string Huffman-coded. */
    static ByteBuf huffmanBlock(String... pairs) {
        return literals(0x00, true, pairs);
    }

    /**
     * Literals whose first byte is {@code representation} (0x00 without indexing, 0x40 with incremental
     * indexing), strings Huffman-coded when {@code huffman} and shorter so.
     */
    static ByteBuf literals(int representation, boolean huffman, String... pairs) {
        ByteBuf out = TestBuffers.buffer();
        for (int i = 0; i < pairs.length; i += 2) {
            ByteBuf n = TestBuffers.ascii(pairs[i]);
            ByteBuf v = TestBuffers.ascii(pairs[i + 1]);
            out.writeByte(representation);
            HpackEncoder.string(out, n, 0, n.readableBytes(), huffman);
            HpackEncoder.string(out, v, 0, v.readableBytes(), huffman);
        }
        return out;
    }
}
