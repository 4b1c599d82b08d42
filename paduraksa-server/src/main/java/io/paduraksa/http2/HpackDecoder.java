package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The HPACK decoder (RFC 7541) of one connection: decodes a complete field block into positions
 * for an {@link HpackFieldSink}, validating each field on the way ({@link Http2FieldValidator}).
 *
 * <p>Memory: the dynamic table is bytes in one buffer ({@link HpackDynamicTable}); Huffman-decoded
 * strings and entries copied out of the dynamic table go to a scratch area, reset per block, so a
 * block's fields stay valid until the next block (an entry in the table may be evicted later in the
 * same block, so the sink never gets a position into the table), except for a sink that copies each
 * field at once ({@link HpackFieldSink#copiesFields()}), which gets an indexed {@code PLAIN} entry
 * (one the validator keeps nothing of) in the table itself. The scratch area holds
 * SETTINGS_MAX_HEADER_LIST_SIZE plus the table size plus 64 bytes ({@link #scratchSize}): delivered
 * strings never exceed the header list size, and a string that is not delivered needs room only
 * when it is to be inserted, which it is only when it fits the table. A string that fits neither
 * is decoded and checked without being stored.
 *
 * <p>Bounds: integers above 2^31-1, indices beyond both tables, strings longer than what is left of
 * the block, and truncated representations are connection errors (COMPRESSION_ERROR, RFC 9113
 * section 4.3), as are Huffman EOS and bad padding, a size update after the first field or above
 * our SETTINGS_HEADER_TABLE_SIZE, and a missing size update after we lowered it. A field section
 * above SETTINGS_MAX_HEADER_LIST_SIZE (counted as RFC 9113 section 6.5.2 does: 32 bytes more per
 * field) is a stream error, found after decoding the whole block so that the dynamic table stays in
 * step with the peer's encoder; so is a field that fails validation (fields after it are decoded
 * but not delivered), as in Netty's {@code HpackDecoder}.
 *
 * <p>Thread: the connection's event loop. Nothing is allocated per block or per field.
 */
public final class HpackDecoder {
    private final HpackDynamicTable table;
    private final int maxHeaderListSize;
    private final byte[] scratch;
    private final ByteBuf scratchView;
    private final Http2FieldValidator validator;
    /** Our current SETTINGS_HEADER_TABLE_SIZE: the largest size update the peer may send. */
    private int tableSizeLimit;
    private boolean sizeUpdateRequired;

    // the block being decoded
    private ByteBuf in;
    private int pos;
    private int end;
    private int scratchUsed;
    private long listSize;
    private boolean listExceeded;
    private Http2Violation fieldViolation;
    private Http2Violation error;
    /** The block's sink copies fields at once ({@link HpackFieldSink#copiesFields()}). */
    private boolean sinkCopies;
    // the string just read
    private ByteBuf strBuf;
    private int strIndex;
    private int strLength;

    /**
     * @param maxTableSize our SETTINGS_HEADER_TABLE_SIZE (the default is 4096)
     * @param maxHeaderListSize our SETTINGS_MAX_HEADER_LIST_SIZE
     */
    public HpackDecoder(int maxTableSize, int maxHeaderListSize, boolean extendedConnect) {
        this.table = new HpackDynamicTable(maxTableSize);
        this.maxHeaderListSize = maxHeaderListSize;
        this.scratch = new byte[scratchSize(maxTableSize, maxHeaderListSize)];
        this.scratchView = Unpooled.wrappedBuffer(scratch);
        this.validator = new Http2FieldValidator(extendedConnect);
        this.tableSizeLimit = maxTableSize;
    }

    public static int scratchSize(int maxTableSize, int maxHeaderListSize) {
        return maxHeaderListSize + maxTableSize + 64;
    }

    public HpackDynamicTable table() {
        return table;
    }

    /**
     * Our new SETTINGS_HEADER_TABLE_SIZE, once the peer acknowledged it (at most the size given at
     * construction). When it is lower than the table's size, the peer's next block must start with
     * a size update (RFC 7541 section 4.2).
     */
    public void tableSizeLimit(int limit) {
        if (limit < 0 || limit > table.maxSize()) {
            throw new IllegalArgumentException("table size " + limit + " (expected 0.." + table.maxSize() + ")");
        }
        tableSizeLimit = limit;
        if (limit < table.capacity()) {
            table.capacity(limit);
            sizeUpdateRequired = true;
        }
    }

    /**
     * Decodes the block {@code block[index, index + length)} of kind {@code kind} (an
     * {@link Http2FieldValidator} constant, {@code NONE} for no validation) into {@code sink}.
     * Returns null when the block was valid, else what was wrong.
     */
    public Http2Violation decode(ByteBuf block, int index, int length, int kind, HpackFieldSink sink) {
        in = block;
        pos = index;
        end = index + length;
        scratchUsed = 0;
        listSize = 0;
        listExceeded = false;
        fieldViolation = null;
        error = null;
        validator.start(kind);
        sinkCopies = sink.copiesFields();
        try {
            Http2Violation v = decodeFields(sink);
            if (v != null) {
                return v;
            }
            if (listExceeded) {
                return Http2Violation.HEADER_LIST_TOO_LARGE;
            }
            if (fieldViolation != null) {
                return fieldViolation;
            }
            return kind == Http2FieldValidator.NONE ? null : validator.end();
        } finally {
            in = null;
            strBuf = null;
        }
    }

    private Http2Violation decodeFields(HpackFieldSink sink) {
        while (pos < end && (in.getByte(pos) & 0xE0) == 0x20) {
            int size = readInt(5);
            if (size < 0) {
                return error;
            }
            if (size > tableSizeLimit) {
                return Http2Violation.HPACK_SIZE_UPDATE_TOO_LARGE;
            }
            table.capacity(size);
            sizeUpdateRequired = false;
        }
        if (sizeUpdateRequired && pos < end) {
            return Http2Violation.HPACK_SIZE_UPDATE_MISSING;
        }
        while (pos < end) {
            int b = in.getByte(pos) & 0xFF;
            boolean ok;
            if (b >= 0x80) {
                ok = indexed(sink);
            } else if (b >= 0x40) {
                ok = literal(6, true, sink);
            } else if (b >= 0x20) {
                return Http2Violation.HPACK_SIZE_UPDATE_NOT_FIRST;
            } else {
                ok = literal(4, false, sink);
            }
            if (!ok) {
                return error;
            }
        }
        return null;
    }

    /** Section 6.1. */
    private boolean indexed(HpackFieldSink sink) {
        int index = readInt(7);
        if (index < 0) {
            return false;
        }
        if (index == 0) {
            return fail(Http2Violation.HPACK_INDEX_ZERO);
        }
        if (index <= HpackStaticTable.LENGTH) {
            ByteBuf s = HpackStaticTable.bytes();
            field(s, HpackStaticTable.nameStart(index), HpackStaticTable.nameLength(index), s,
                    HpackStaticTable.valueStart(index), HpackStaticTable.valueLength(index), index, false,
                    Http2FieldValidator.UNPROVEN, sink);
            return true;
        }
        int d = index - HpackStaticTable.LENGTH;
        if (d > table.length()) {
            return fail(Http2Violation.HPACK_INDEX_OUT_OF_RANGE);
        }
        int nameLength = table.nameLength(d);
        int valueLength = table.valueLength(d);
        int mark = scratchUsed;
        int proven = table.proven(d);
        if (willDeliver(nameLength, valueLength) && sinkCopies && proven == Http2FieldValidator.PLAIN) {
            // neither the sink nor the validator keeps the positions: read in the table
            ByteBuf t = table.bytes();
            int start = table.nameStart(d);
            field(t, start, nameLength, t, start + nameLength, valueLength, 0, false, proven, sink);
        } else if (willDeliver(nameLength, valueLength)) {
            // copied: a later insert in this block may evict the entry and overwrite its bytes
            ByteBuf t = table.bytes();
            t.getBytes(table.nameStart(d), scratch, mark, nameLength + valueLength);
            scratchUsed = mark + nameLength + valueLength;
            field(scratchView, mark, nameLength, scratchView, mark + nameLength, valueLength, 0, false, proven, sink);
        } else {
            count(nameLength, valueLength);
        }
        return true;
    }

    /** Sections 6.2.1-6.2.3. */
    private boolean literal(int prefix, boolean incremental, HpackFieldSink sink) {
        int mark = scratchUsed;
        int nameIndex = readInt(prefix);
        if (nameIndex < 0) {
            return false;
        }
        ByteBuf name;
        int nameStart;
        int nameLength;
        int staticIndex = 0;
        if (nameIndex == 0) {
            if (!readString()) {
                return false;
            }
            name = strBuf;
            nameStart = strIndex;
            nameLength = strLength;
        } else if (nameIndex <= HpackStaticTable.LENGTH) {
            name = HpackStaticTable.bytes();
            nameStart = HpackStaticTable.nameStart(nameIndex);
            nameLength = HpackStaticTable.nameLength(nameIndex);
            staticIndex = nameIndex;
        } else {
            int d = nameIndex - HpackStaticTable.LENGTH;
            if (d > table.length()) {
                return fail(Http2Violation.HPACK_INDEX_OUT_OF_RANGE);
            }
            nameLength = table.nameLength(d);
            name = scratchView;
            nameStart = scratchUsed;
            if (nameLength <= scratch.length - scratchUsed) { // always, unless the name is useless anyway
                table.bytes().getBytes(table.nameStart(d), scratch, scratchUsed, nameLength);
                scratchUsed += nameLength;
            }
        }
        if (!readString()) {
            return false;
        }
        field(name, nameStart, nameLength, strBuf, strIndex, strLength, staticIndex, incremental,
                Http2FieldValidator.UNPROVEN, sink);
        if (listExceeded || fieldViolation != null) {
            scratchUsed = mark; // not delivered: its bytes need not stay
        }
        return true;
    }

    private boolean willDeliver(int nameLength, int valueLength) {
        return !listExceeded && fieldViolation == null
                && listSize + nameLength + valueLength + HpackDynamicTable.ENTRY_OVERHEAD <= maxHeaderListSize;
    }

    private void count(int nameLength, int valueLength) {
        listSize += (long) nameLength + valueLength + HpackDynamicTable.ENTRY_OVERHEAD;
        if (listSize > maxHeaderListSize) {
            listExceeded = true;
        }
    }

    /**
     * One field: counted, checked ({@code known}: what was proven of it when its dynamic table entry
     * was made), delivered, and added to the table when {@code incremental}, with what its check proved.
     */
    private void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
            int staticIndex, boolean incremental, int known, HpackFieldSink sink) {
        count(nameLength, valueLength);
        int proven = Http2FieldValidator.UNPROVEN;
        if (!listExceeded && fieldViolation == null) {
            if (validator.kind() != Http2FieldValidator.NONE) {
                fieldViolation = validator.field(name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex,
                        known);
                if (fieldViolation == null) {
                    proven = validator.proven();
                }
            }
            if (fieldViolation == null) {
                sink.field(name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex);
            }
        }
        if (incremental) {
            // an entry larger than the table empties it (section 4.4); its bytes may not have been stored
            if ((long) nameLength + valueLength + HpackDynamicTable.ENTRY_OVERHEAD > table.capacity()) {
                table.clear();
            } else {
                table.add(name, nameIndex, nameLength, value, valueIndex, valueLength, proven);
            }
        }
    }

    /** Section 5.2: sets strBuf, strIndex, strLength; false (and error) when invalid. */
    private boolean readString() {
        if (pos >= end) {
            return fail(Http2Violation.HPACK_TRUNCATED);
        }
        boolean huffman = (in.getByte(pos) & 0x80) != 0;
        int length = readInt(7);
        if (length < 0) {
            return false;
        }
        if (length > end - pos) {
            return fail(Http2Violation.HPACK_TRUNCATED);
        }
        if (!huffman) {
            strBuf = in;
            strIndex = pos;
            strLength = length;
            pos += length;
            return true;
        }
        int n = HpackHuffman.decode(in, pos, length, scratch, scratchUsed, scratch.length);
        if (n < 0) {
            return fail(n == HpackHuffman.EOS ? Http2Violation.HPACK_HUFFMAN_EOS : Http2Violation.HPACK_HUFFMAN_PADDING);
        }
        pos += length;
        strBuf = scratchView;
        strIndex = scratchUsed;
        strLength = n;
        if (n <= scratch.length - scratchUsed) {
            scratchUsed += n;
        }
        return true;
    }

    /**
     * Section 5.1 with an N-bit prefix at {@code pos}: the value (0..2^31-1), or -1 with the error
     * set. Redundant zero continuation bytes are accepted up to 9 bytes in all, as in Netty.
     */
    private int readInt(int prefixBits) {
        int mask = (1 << prefixBits) - 1;
        int value = in.getByte(pos++) & mask;
        if (value < mask) {
            return value;
        }
        long result = mask;
        for (int shift = 0; ; shift += 7) {
            if (pos >= end) {
                fail(Http2Violation.HPACK_TRUNCATED);
                return -1;
            }
            int b = in.getByte(pos++) & 0xFF;
            if (shift == 56 && (b & 0x80) != 0) {
                fail(Http2Violation.HPACK_INTEGER_OVERFLOW);
                return -1;
            }
            result += (long) (b & 0x7F) << shift;
            if (result > Integer.MAX_VALUE) {
                fail(Http2Violation.HPACK_INTEGER_OVERFLOW);
                return -1;
            }
            if ((b & 0x80) == 0) {
                return (int) result;
            }
        }
    }

    private boolean fail(Http2Violation violation) {
        error = violation;
        return false;
    }
}
