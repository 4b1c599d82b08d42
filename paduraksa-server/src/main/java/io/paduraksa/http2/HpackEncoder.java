package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.paduraksa.text.TextBytes;

/**
 * HPACK encoding without a dynamic table (RFC 7541 section 6): a field that is in the static table
 * with its value is one index; otherwise a literal without indexing, naming a static entry's name
 * by index when there is one; strings are Huffman-coded when asked and shorter. Without a dynamic
 * table the encoder keeps no state, so a block is valid on any connection, and the peer's
 * SETTINGS_HEADER_TABLE_SIZE never matters. Sensitive fields can be sent never-indexed (section 6.2.3), which tells
 * intermediaries not to index them either. Appends to the caller's buffer; allocates nothing.
 */
public final class HpackEncoder {
    private static final int INDEXED = 0x80;
    private static final int WITHOUT_INDEXING = 0x00;
    private static final int HUFFMAN = 0x80;

    private HpackEncoder() {
    }

    /** A field, as an index when the static table holds it, else as a literal without indexing. */
    public static void field(ByteBuf out, ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex,
            int valueLength, boolean huffman) {
        int full = HpackStaticTable.indexOf(name, nameIndex, nameLength, value, valueIndex, valueLength);
        if (full != 0) {
            indexed(out, full);
            return;
        }
        literal(out, WITHOUT_INDEXING, name, nameIndex, nameLength, value, valueIndex, valueLength, huffman);
    }

    /** Indexed field representation (section 6.1). */
    public static void indexed(ByteBuf out, int index) {
        integer(out, INDEXED, 7, index);
    }

    /** A literal whose name is static entry {@code staticNameIndex} (1..61), without indexing (section 6.2.2). */
    public static void literalWithStaticName(ByteBuf out, int staticNameIndex, ByteBuf value, int valueIndex,
            int valueLength, boolean huffman) {
        integer(out, WITHOUT_INDEXING, 4, staticNameIndex);
        string(out, value, valueIndex, valueLength, huffman);
    }

    private static void literal(ByteBuf out, int representation, ByteBuf name, int nameIndex, int nameLength,
            ByteBuf value, int valueIndex, int valueLength, boolean huffman) {
        int staticName = HpackStaticTable.indexOfName(name, nameIndex, nameLength);
        integer(out, representation, 4, staticName);
        if (staticName == 0) {
            string(out, name, nameIndex, nameLength, huffman);
        }
        string(out, value, valueIndex, valueLength, huffman);
    }

    /**
     * A field from text as a literal without indexing: {@code name} written in lower case (RFC 9113
     * 8.2.1; an HTTP/1.1 upstream's names come as sent), by its static index when the table has
     * the name; {@code value} as is, without Huffman. One char per byte; allocates nothing.
     */
    public static void literal(ByteBuf out, CharSequence name, CharSequence value) {
        int n = name.length();
        byte[] a = TextBytes.bytes(name); // the name's bytes read in place or copied once
        int offset = a != null ? TextBytes.offset(name, a) : 0;
        int staticName = a != null ? HpackStaticTable.indexOfName(a, offset, n) : HpackStaticTable.indexOfName(name);
        integer(out, WITHOUT_INDEXING, 4, staticName);
        if (staticName == 0) {
            integer(out, 0, 7, n);
            for (int i = 0; i < n; i++) {
                int c = a != null ? a[offset + i] & 0xFF : name.charAt(i);
                out.writeByte(c >= 'A' && c <= 'Z' ? c + 32 : c);
            }
        }
        text(out, value);
    }

    /**
     * A string literal of text (one char per byte), without Huffman; the bytes of an {@code AsciiString}
     * or of a view over a received head (an upstream's field values) in one copy.
     */
    public static void text(ByteBuf out, CharSequence value) {
        integer(out, 0, 7, value.length());
        TextBytes.write(out, value);
    }

    /** {@code :status}: the static index for 200, 204, 206, 304, 400, 404 and 500, else a literal with its name's index. */
    public static void status(ByteBuf out, int status) {
        int index = switch (status) {
            case 200 -> 8;
            case 204 -> 9;
            case 206 -> 10;
            case 304 -> 11;
            case 400 -> 12;
            case 404 -> 13;
            case 500 -> 14;
            default -> 0;
        };
        if (index != 0) {
            indexed(out, index);
            return;
        }
        integer(out, WITHOUT_INDEXING, 4, HpackStaticTable.STATUS_200);
        out.writeByte(3);
        out.writeByte('0' + status / 100);
        out.writeByte('0' + status / 10 % 10);
        out.writeByte('0' + status % 10);
    }

    /** A string literal (section 5.2), Huffman-coded when {@code huffman} and that is shorter. */
    public static void string(ByteBuf out, ByteBuf s, int index, int length, boolean huffman) {
        if (huffman) {
            int encoded = HpackHuffman.encodedLength(s, index, length);
            if (encoded < length) {
                integer(out, HUFFMAN, 7, encoded);
                HpackHuffman.encode(out, s, index, length);
                return;
            }
        }
        integer(out, 0, 7, length);
        out.writeBytes(s, index, length);
    }

    /** An integer with an N-bit prefix (section 5.1); {@code first} holds the bits above the prefix. */
    public static void integer(ByteBuf out, int first, int prefixBits, int value) {
        int mask = (1 << prefixBits) - 1;
        if (value < mask) {
            out.writeByte(first | value);
            return;
        }
        out.writeByte(first | mask);
        int rest = value - mask;
        while (rest >= 0x80) {
            out.writeByte((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        out.writeByte(rest);
    }
}
