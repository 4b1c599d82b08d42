package io.paduraksa.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.util.Arrays;

/**
 * The positions of an HTTP/1.1 field section (a request head's fields, a response head's, or
 * trailers) in the buffer that holds it: five ints per field (name start and end, value start and
 * end, value trimmed of OWS, and a key of the name's length and lower-cased first byte, so that a
 * lookup passes over a field of another name with one compare). Owned by one head or trailer section and reset for every message; the
 * array grows up to the field limit, once per connection, so per message it allocates nothing.
 * Names are compared in place, folding ASCII case on letters only. The two views are the owner's:
 * a view stays valid until the same accessor is called again.
 */
public final class FieldPositions {
    private static final int SLOTS = 5;
    private static final int NAME_START = 0;
    private static final int NAME_END = 1;
    private static final int VALUE_START = 2;
    private static final int VALUE_END = 3;
    private static final int NAME_KEY = 4;

    private final int maxCount;
    private int[] positions;
    private int count;
    /**
     * One bit per name key present ({@link #keyBit}): a lookup of a name no field can have (most
     * of the policies' lookups are of absent fields) returns after one test instead of a pass.
     */
    private long present;
    private final AsciiView nameView = new AsciiView();
    private final AsciiView valueView = new AsciiView();

    /** Room for {@code initialCapacity} fields at first, at most {@code maxCount}. */
    public FieldPositions(int maxCount, int initialCapacity) {
        this.maxCount = maxCount;
        this.positions = new int[Math.min(initialCapacity, maxCount) * SLOTS];
    }

    public void reset() {
        count = 0;
        present = 0;
    }

    /**
     * Adds a field's positions ({@code firstNameByte}: the byte at {@code nameStart}, as sent); false
     * when the field limit is reached.
     */
    public boolean add(int nameStart, int nameEnd, int valueStart, int valueEnd, int firstNameByte) {
        if (count == maxCount) {
            return false;
        }
        int slot = count * SLOTS;
        if (slot == positions.length) {
            positions = Arrays.copyOf(positions, Math.min(count * 2, maxCount) * SLOTS);
        }
        int[] p = positions;
        p[slot + NAME_START] = nameStart;
        p[slot + NAME_END] = nameEnd;
        p[slot + VALUE_START] = valueStart;
        p[slot + VALUE_END] = valueEnd;
        int key = nameKey(nameEnd - nameStart, Http1Bytes.toLower(firstNameByte & 0xFF));
        p[slot + NAME_KEY] = key;
        present |= keyBit(key);
        count++;
        return true;
    }

    public int count() {
        return count;
    }

    public int nameStart(int index) {
        return positions[index * SLOTS + NAME_START];
    }

    public int nameEnd(int index) {
        return positions[index * SLOTS + NAME_END];
    }

    public int valueStart(int index) {
        return positions[index * SLOTS + VALUE_START];
    }

    public int valueEnd(int index) {
        return positions[index * SLOTS + VALUE_END];
    }

    /** The name of field {@code index} as sent, through the name view. */
    public AsciiView name(ByteBuf buffer, int index) {
        return nameView.point(buffer, nameStart(index), nameEnd(index));
    }

    /** The value of field {@code index}, through the value view. */
    public AsciiView value(ByteBuf buffer, int index) {
        return valueView.point(buffer, valueStart(index), valueEnd(index));
    }

    /** Whether field {@code index} is named {@code lowerCaseName}, ignoring ASCII case. */
    public boolean nameEquals(ByteBuf buffer, int index, AsciiString lowerCaseName) {
        return Http1Bytes.rangeEqualsLowerCase(buffer, nameStart(index), nameEnd(index), lowerCaseName);
    }

    /** Index of the first field at or after {@code fromIndex} named {@code lowerCaseName}, or -1. */
    public int find(ByteBuf buffer, AsciiString lowerCaseName, int fromIndex) {
        int n = lowerCaseName.length();
        if (n == 0) {
            return -1;
        }
        int key = nameKey(n, lowerCaseName.byteAt(0) & 0xFF);
        if ((present & keyBit(key)) == 0) {
            return -1;
        }
        int[] p = positions;
        for (int i = fromIndex; i < count; i++) {
            if (p[i * SLOTS + NAME_KEY] == key && Http1Bytes.equalsLowerCase(buffer, p[i * SLOTS + NAME_START], lowerCaseName)) {
                return i;
            }
        }
        return -1;
    }

    /** The bit of {@link #present} for a name key: six bits of a multiplicative hash. */
    private static long keyBit(int key) {
        return 1L << ((key * 0x9E3779B9) >>> 26);
    }

    /** A name's length and its first byte, lower-cased (names are tokens: never empty). */
    private static int nameKey(int length, int lowerFirst) {
        return length << 8 | lowerFirst;
    }
}
