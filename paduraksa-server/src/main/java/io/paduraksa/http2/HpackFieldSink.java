package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;

/**
 * Receives the fields of a field block from {@link HpackDecoder}, in order, as positions. A name or
 * value lies in the block itself (a literal without Huffman), in the decoder's scratch area (a
 * Huffman-decoded string, or an entry copied from the dynamic table) or in the static table's
 * buffer; all three stay valid until the next block is decoded with the same scratch area and, for
 * the first, while the block's buffer is alive. {@code staticIndex} is the static table index the
 * name came from (1..61), or 0, so a consumer can switch on well-known names without comparing bytes.
 */
public interface HpackFieldSink {
    void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
            int staticIndex);

    /**
     * Whether this sink copies what it keeps of a field before {@link #field} returns and never reads
     * a position after that. The decoder then hands it fields indexed from the dynamic table as
     * positions in the table itself, without first copying them to its scratch area (an insert later
     * in the block may overwrite those bytes). Asked once per block.
     */
    default boolean copiesFields() {
        return false;
    }
}
