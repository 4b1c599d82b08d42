package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The HPACK dynamic table (RFC 7541 section 2.3.2, 4) of one connection's decoder, as bytes in one
 * buffer and a ring of offsets: entry 1 is the newest. Entries are appended to the byte buffer and
 * evicted from the oldest end, so the live entries are always one contiguous range; when an entry
 * does not fit at the end, the live range is moved to the start first. The buffer holds twice the
 * largest table size, so that move happens at most once per table size of inserted bytes (the
 * live bytes are at most the table size minus the new entry). Entry sizes count 32 bytes of
 * overhead each (section 4.1), so there are at most {@code maxSize / 32} entries.
 *
 * <p>Nothing here allocates after construction: inserting copies bytes, evicting moves an index.
 */
public final class HpackDynamicTable {
    static final int ENTRY_OVERHEAD = 32;

    private final int maxSize;
    private final byte[] bytes;
    private final ByteBuf view;
    private final int[] start;
    private final int[] nameLength;
    private final int[] valueLength;
    /** Per entry, what the check of the field that made it proved ({@link Http2FieldValidator#proven()}). */
    private final byte[] proven;
    /** Slot of the newest entry. */
    private int head;
    private int count;
    /** Where the next entry's bytes go. */
    private int end;
    private int size;
    private int capacity;

    /** @param maxSize the largest table size we allow (our SETTINGS_HEADER_TABLE_SIZE) */
    public HpackDynamicTable(int maxSize) {
        this.maxSize = maxSize;
        this.capacity = maxSize;
        this.bytes = new byte[Math.max(2 * maxSize, 1)];
        this.view = Unpooled.wrappedBuffer(bytes);
        int slots = maxSize / ENTRY_OVERHEAD + 1;
        this.start = new int[slots];
        this.nameLength = new int[slots];
        this.valueLength = new int[slots];
        this.proven = new byte[slots];
    }

    /** The buffer that every entry's positions point into (valid until the next insert). */
    public ByteBuf bytes() {
        return view;
    }

    public int length() {
        return count;
    }

    /** The table size as RFC 7541 section 4.1 counts it. */
    public int size() {
        return size;
    }

    public int capacity() {
        return capacity;
    }

    public int maxSize() {
        return maxSize;
    }

    /** Sets the table size from a size update (at most {@link #maxSize()}), evicting as needed. */
    public void capacity(int newCapacity) {
        capacity = newCapacity;
        while (size > capacity) {
            evict();
        }
    }

    private int slot(int index) {
        int s = head - (index - 1);
        return s < 0 ? s + start.length : s;
    }

    /** Byte offset of entry {@code index} (1 = newest; at most {@link #length()}). */
    public int nameStart(int index) {
        return start[slot(index)];
    }

    public int nameLength(int index) {
        return nameLength[slot(index)];
    }

    public int valueStart(int index) {
        int s = slot(index);
        return start[s] + nameLength[s];
    }

    public int valueLength(int index) {
        return valueLength[slot(index)];
    }

    /** What was proven of entry {@code index}'s field when it was added ({@link Http2FieldValidator#proven()}). */
    public int proven(int index) {
        return proven[slot(index)];
    }

    /**
     * Adds an entry (section 4.4): evicts until it fits; an entry larger than the table empties it
     * and is not added. The sources must not point into this table (the decoder copies a name it
     * took from here first, as eviction may overwrite it).
     */
    public void add(ByteBuf name, int nameIndex, int nameLen, ByteBuf value, int valueIndex, int valueLen) {
        add(name, nameIndex, nameLen, value, valueIndex, valueLen, Http2FieldValidator.UNPROVEN);
    }

    /** {@link #add}, with what the field's check proved ({@link Http2FieldValidator#proven()}). */
    public void add(ByteBuf name, int nameIndex, int nameLen, ByteBuf value, int valueIndex, int valueLen, int known) {
        int entrySize = nameLen + valueLen + ENTRY_OVERHEAD;
        if (entrySize > capacity) {
            clear();
            return;
        }
        while (size + entrySize > capacity) {
            evict();
        }
        int length = nameLen + valueLen;
        if (bytes.length - end < length) {
            compact();
        }
        name.getBytes(nameIndex, bytes, end, nameLen);
        value.getBytes(valueIndex, bytes, end + nameLen, valueLen);
        head = count == 0 ? 0 : (head + 1 == start.length ? 0 : head + 1);
        start[head] = end;
        nameLength[head] = nameLen;
        valueLength[head] = valueLen;
        proven[head] = (byte) known;
        count++;
        end += length;
        size += entrySize;
    }

    private void evict() {
        int oldest = slot(count);
        size -= nameLength[oldest] + valueLength[oldest] + ENTRY_OVERHEAD;
        count--;
        if (count == 0) {
            end = 0;
        }
    }

    /** Moves the live bytes to the start of the buffer. */
    private void compact() {
        if (count == 0) {
            end = 0;
            return;
        }
        int from = start[slot(count)];
        System.arraycopy(bytes, from, bytes, 0, end - from);
        for (int i = 1; i <= count; i++) {
            start[slot(i)] -= from;
        }
        end -= from;
    }

    public void clear() {
        count = 0;
        size = 0;
        end = 0;
    }
}
