package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;

/**
 * The Huffman code of RFC 7541 Appendix B. Decoding walks a table of 4-bit steps built once at class
 * load from the code (256 internal tree nodes x 16 nibbles, one int each: next node, the symbol a
 * step completes, and whether the node is a valid end, that is reached from the root by at most
 * seven 1 bits), so a string is decoded with two table reads per byte and no branch per bit.
 * Decoding rejects EOS inside a string and padding longer than 7 bits or not all ones (RFC 7541
 * section 5.2). Nothing here allocates after class load.
 */
public final class HpackHuffman {
    /** {@link #decode}'s result when the string contains EOS. */
    public static final int EOS = -1;
    /** {@link #decode}'s result when the padding is longer than 7 bits or not all ones. */
    public static final int BAD_PADDING = -2;

    static final int[] CODES = {
        0x1ff8, 0x7fffd8, 0xfffffe2, 0xfffffe3, 0xfffffe4, 0xfffffe5, 0xfffffe6, 0xfffffe7,
        0xfffffe8, 0xffffea, 0x3ffffffc, 0xfffffe9, 0xfffffea, 0x3ffffffd, 0xfffffeb, 0xfffffec,
        0xfffffed, 0xfffffee, 0xfffffef, 0xffffff0, 0xffffff1, 0xffffff2, 0x3ffffffe, 0xffffff3,
        0xffffff4, 0xffffff5, 0xffffff6, 0xffffff7, 0xffffff8, 0xffffff9, 0xffffffa, 0xffffffb,
        0x14, 0x3f8, 0x3f9, 0xffa, 0x1ff9, 0x15, 0xf8, 0x7fa,
        0x3fa, 0x3fb, 0xf9, 0x7fb, 0xfa, 0x16, 0x17, 0x18,
        0x0, 0x1, 0x2, 0x19, 0x1a, 0x1b, 0x1c, 0x1d,
        0x1e, 0x1f, 0x5c, 0xfb, 0x7ffc, 0x20, 0xffb, 0x3fc,
        0x1ffa, 0x21, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62,
        0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a,
        0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72,
        0xfc, 0x73, 0xfd, 0x1ffb, 0x7fff0, 0x1ffc, 0x3ffc, 0x22,
        0x7ffd, 0x3, 0x23, 0x4, 0x24, 0x5, 0x25, 0x26,
        0x27, 0x6, 0x74, 0x75, 0x28, 0x29, 0x2a, 0x7,
        0x2b, 0x76, 0x2c, 0x8, 0x9, 0x2d, 0x77, 0x78,
        0x79, 0x7a, 0x7b, 0x7ffe, 0x7fc, 0x3ffd, 0x1ffd, 0xffffffc,
        0xfffe6, 0x3fffd2, 0xfffe7, 0xfffe8, 0x3fffd3, 0x3fffd4, 0x3fffd5, 0x7fffd9,
        0x3fffd6, 0x7fffda, 0x7fffdb, 0x7fffdc, 0x7fffdd, 0x7fffde, 0xffffeb, 0x7fffdf,
        0xffffec, 0xffffed, 0x3fffd7, 0x7fffe0, 0xffffee, 0x7fffe1, 0x7fffe2, 0x7fffe3,
        0x7fffe4, 0x1fffdc, 0x3fffd8, 0x7fffe5, 0x3fffd9, 0x7fffe6, 0x7fffe7, 0xffffef,
        0x3fffda, 0x1fffdd, 0xfffe9, 0x3fffdb, 0x3fffdc, 0x7fffe8, 0x7fffe9, 0x1fffde,
        0x7fffea, 0x3fffdd, 0x3fffde, 0xfffff0, 0x1fffdf, 0x3fffdf, 0x7fffeb, 0x7fffec,
        0x1fffe0, 0x1fffe1, 0x3fffe0, 0x1fffe2, 0x7fffed, 0x3fffe1, 0x7fffee, 0x7fffef,
        0xfffea, 0x3fffe2, 0x3fffe3, 0x3fffe4, 0x7ffff0, 0x3fffe5, 0x3fffe6, 0x7ffff1,
        0x3ffffe0, 0x3ffffe1, 0xfffeb, 0x7fff1, 0x3fffe7, 0x7ffff2, 0x3fffe8, 0x1ffffec,
        0x3ffffe2, 0x3ffffe3, 0x3ffffe4, 0x7ffffde, 0x7ffffdf, 0x3ffffe5, 0xfffff1, 0x1ffffed,
        0x7fff2, 0x1fffe3, 0x3ffffe6, 0x7ffffe0, 0x7ffffe1, 0x3ffffe7, 0x7ffffe2, 0xfffff2,
        0x1fffe4, 0x1fffe5, 0x3ffffe8, 0x3ffffe9, 0xffffffd, 0x7ffffe3, 0x7ffffe4, 0x7ffffe5,
        0xfffec, 0xfffff3, 0xfffed, 0x1fffe6, 0x3fffe9, 0x1fffe7, 0x1fffe8, 0x7ffff3,
        0x3fffea, 0x3fffeb, 0x1ffffee, 0x1ffffef, 0xfffff4, 0xfffff5, 0x3ffffea, 0x7ffff4,
        0x3ffffeb, 0x7ffffe6, 0x3ffffec, 0x3ffffed, 0x7ffffe7, 0x7ffffe8, 0x7ffffe9, 0x7ffffea,
        0x7ffffeb, 0xffffffe, 0x7ffffec, 0x7ffffed, 0x7ffffee, 0x7ffffef, 0x7fffff0, 0x3ffffee,
        0x3fffffff,
    };
    static final byte[] LENGTHS = {
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,
    };

    private static final int EMIT = 1 << 16;
    private static final int FAIL = 1 << 17;
    private static final int ACCEPT = 1 << 18;
    /** Per node and nibble: next node (bits 8-15), symbol (bits 0-7), EMIT, FAIL, ACCEPT (of the next node). */
    private static final int[] STEPS;

    static {
        // tree: children[2 * node + bit], a leaf as -(symbol + 1); node 0 is the root
        int[] children = new int[2 * 256];
        int nodes = 1;
        for (int sym = 0; sym <= 256; sym++) {
            int code = CODES[sym];
            int len = LENGTHS[sym];
            int node = 0;
            for (int bit = len - 1; bit >= 0; bit--) {
                int b = (code >>> bit) & 1;
                int slot = 2 * node + b;
                if (bit == 0) {
                    children[slot] = -(sym + 1);
                } else {
                    if (children[slot] == 0) {
                        children[slot] = nodes++;
                    }
                    node = children[slot];
                }
            }
        }
        if (nodes != 256) {
            throw new IllegalStateException("Huffman tree has " + nodes + " internal nodes (expected 256)");
        }
        boolean[] accept = new boolean[256];
        accept[0] = true;
        for (int node = 0, depth = 0; depth < 7; depth++) {
            node = children[2 * node + 1];
            if (node <= 0) {
                break;
            }
            accept[node] = true;
        }
        STEPS = new int[256 * 16];
        for (int node = 0; node < 256; node++) {
            for (int nibble = 0; nibble < 16; nibble++) {
                int at = node;
                int step = 0;
                for (int bit = 3; bit >= 0; bit--) {
                    int child = children[2 * at + ((nibble >>> bit) & 1)];
                    if (child < 0) {
                        int sym = -child - 1;
                        if (sym == 256) {
                            step |= FAIL;
                            break;
                        }
                        step |= EMIT | sym;
                        at = 0;
                    } else {
                        at = child;
                    }
                }
                STEPS[node * 16 + nibble] = step | (at << 8) | (accept[at] ? ACCEPT : 0);
            }
        }
    }

    private HpackHuffman() {
    }

    /**
     * Decodes {@code src[index, index + length)} into {@code dst} from {@code dstIndex}, writing at
     * most {@code dstLimit - dstIndex} bytes; decoding and its checks go on past the limit without
     * writing. Returns the decoded length (possibly more than was written: the caller compares), or
     * {@link #EOS} or {@link #BAD_PADDING}.
     */
    public static int decode(ByteBuf src, int index, int length, byte[] dst, int dstIndex, int dstLimit) {
        int node = 0;
        boolean accept = true;
        int out = dstIndex;
        int end = index + length;
        for (int i = index; i < end; i++) {
            int b = src.getByte(i) & 0xFF;
            for (int shift = 4; shift >= 0; shift -= 4) { // high nibble, then low
                int step = STEPS[(node << 4) | ((b >>> shift) & 0x0F)];
                if ((step & FAIL) != 0) {
                    return EOS;
                }
                if ((step & EMIT) != 0) {
                    if (out < dstLimit) {
                        dst[out] = (byte) step;
                    }
                    out++;
                }
                node = (step >>> 8) & 0xFF;
                accept = (step & ACCEPT) != 0;
            }
        }
        return accept ? out - dstIndex : BAD_PADDING;
    }

    /** The Huffman-encoded length of {@code src[index, index + length)} in bytes. */
    public static int encodedLength(ByteBuf src, int index, int length) {
        long bits = 0;
        for (int i = index; i < index + length; i++) {
            bits += LENGTHS[src.getByte(i) & 0xFF];
        }
        return (int) ((bits + 7) >>> 3);
    }

    /** Appends the Huffman encoding of {@code src[index, index + length)} to {@code out}, padded with 1 bits. */
    public static void encode(ByteBuf out, ByteBuf src, int index, int length) {
        long acc = 0;
        int bits = 0;
        for (int i = index; i < index + length; i++) {
            int sym = src.getByte(i) & 0xFF;
            int len = LENGTHS[sym];
            acc = (acc << len) | CODES[sym];
            bits += len;
            while (bits >= 8) {
                bits -= 8;
                out.writeByte((int) (acc >>> bits));
            }
        }
        if (bits > 0) {
            out.writeByte((int) ((acc << (8 - bits)) | (0xFF >>> bits)));
        }
    }
}
