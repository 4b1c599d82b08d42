package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.stream.IntStream;

/**
 * The static table of RFC 7541 Appendix A as bytes in one buffer with offset arrays, so that a
 * decoded static field is a position like any other (index 1..61). Built once at class load; the
 * buffer is shared and never written.
 */
public final class HpackStaticTable {
    public static final int LENGTH = 61;

    /** Indices the codec names. */
    public static final int AUTHORITY = 1;
    public static final int METHOD_GET = 2;
    public static final int METHOD_POST = 3;
    public static final int PATH_ROOT = 4;
    public static final int PATH_INDEX_HTML = 5;
    public static final int SCHEME_HTTP = 6;
    public static final int SCHEME_HTTPS = 7;
    public static final int STATUS_200 = 8;
    public static final int STATUS_500 = 14;
    public static final int COOKIE = 32;
    public static final int HOST = 38;
    public static final int TRANSFER_ENCODING = 57;

    private static final String[][] ENTRIES = {
            {":authority", ""}, {":method", "GET"}, {":method", "POST"}, {":path", "/"}, {":path", "/index.html"},
            {":scheme", "http"}, {":scheme", "https"}, {":status", "200"}, {":status", "204"}, {":status", "206"},
            {":status", "304"}, {":status", "400"}, {":status", "404"}, {":status", "500"}, {"accept-charset", ""},
            {"accept-encoding", "gzip, deflate"}, {"accept-language", ""}, {"accept-ranges", ""}, {"accept", ""},
            {"access-control-allow-origin", ""}, {"age", ""}, {"allow", ""}, {"authorization", ""},
            {"cache-control", ""}, {"content-disposition", ""}, {"content-encoding", ""}, {"content-language", ""},
            {"content-length", ""}, {"content-location", ""}, {"content-range", ""}, {"content-type", ""},
            {"cookie", ""}, {"date", ""}, {"etag", ""}, {"expect", ""}, {"expires", ""}, {"from", ""}, {"host", ""},
            {"if-match", ""}, {"if-modified-since", ""}, {"if-none-match", ""}, {"if-range", ""},
            {"if-unmodified-since", ""}, {"last-modified", ""}, {"link", ""}, {"location", ""}, {"max-forwards", ""},
            {"proxy-authenticate", ""}, {"proxy-authorization", ""}, {"range", ""}, {"referer", ""}, {"refresh", ""},
            {"retry-after", ""}, {"server", ""}, {"set-cookie", ""}, {"strict-transport-security", ""},
            {"transfer-encoding", ""}, {"user-agent", ""}, {"vary", ""}, {"via", ""}, {"www-authenticate", ""}};

    /** All names and values back to back. */
    static final ByteBuf BYTES;
    /** The same bytes as an array, for comparisons without a bounds-checked read per byte; never written. */
    private static final byte[] ARRAY;
    private static final int[] NAME_START = new int[LENGTH + 1];
    private static final int[] NAME_LENGTH = new int[LENGTH + 1];
    private static final int[] VALUE_START = new int[LENGTH + 1];
    private static final int[] VALUE_LENGTH = new int[LENGTH + 1];
    /** Per name length, the indices with a name that long, in ascending order (a name lookup compares only those). */
    private static final int[][] BY_NAME_LENGTH;

    static {
        if (ENTRIES.length != LENGTH) {
            throw new IllegalStateException("static table has " + ENTRIES.length + " entries (expected 61)");
        }
        StringBuilder all = new StringBuilder();
        for (int i = 1; i <= LENGTH; i++) {
            String[] e = ENTRIES[i - 1];
            NAME_START[i] = all.length();
            NAME_LENGTH[i] = e[0].length();
            all.append(e[0]);
            VALUE_START[i] = all.length();
            VALUE_LENGTH[i] = e[1].length();
            all.append(e[1]);
        }
        int longest = 0;
        for (int i = 1; i <= LENGTH; i++) {
            longest = Math.max(longest, NAME_LENGTH[i]);
        }
        BY_NAME_LENGTH = new int[longest + 1][];
        for (int n = 0; n <= longest; n++) {
            final int length = n;
            BY_NAME_LENGTH[n] = IntStream.rangeClosed(1, LENGTH).filter(i -> NAME_LENGTH[i] == length).toArray();
        }
        ARRAY = all.toString().getBytes(StandardCharsets.ISO_8859_1);
        BYTES = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(ARRAY));
    }

    private HpackStaticTable() {
    }

    public static ByteBuf bytes() {
        return BYTES;
    }

    public static int nameStart(int index) {
        return NAME_START[index];
    }

    public static int nameLength(int index) {
        return NAME_LENGTH[index];
    }

    public static int valueStart(int index) {
        return VALUE_START[index];
    }

    public static int valueLength(int index) {
        return VALUE_LENGTH[index];
    }

    /** The first index whose name is {@code name[index, index + length)} (exact bytes), or 0. */
    public static int indexOfName(ByteBuf name, int index, int length) {
        if (length >= BY_NAME_LENGTH.length) {
            return 0;
        }
        for (int i : BY_NAME_LENGTH[length]) {
            if (equal(name, index, NAME_START[i], length)) {
                return i;
            }
        }
        return 0;
    }

    /**
     * The first index whose name equals {@code name} ignoring ASCII case, or 0 (also for a name
     * {@link TextBytes#bytes} has no bytes for: longer than any static name, or not Latin-1).
     */
    public static int indexOfName(CharSequence name) {
        byte[] a = TextBytes.bytes(name);
        return a == null ? 0 : indexOfName(a, TextBytes.offset(name, a), name.length());
    }

    /** The first index whose name equals {@code a[offset, offset + length)} ignoring ASCII case, or 0. */
    public static int indexOfName(byte[] a, int offset, int length) {
        if (length >= BY_NAME_LENGTH.length) {
            return 0;
        }
        for (int i : BY_NAME_LENGTH[length]) {
            if (equalIgnoreCase(a, offset, NAME_START[i], length)) {
                return i;
            }
        }
        return 0;
    }

    private static boolean equalIgnoreCase(byte[] a, int offset, int start, int length) {
        for (int k = 0; k < length; k++) {
            int c = a[offset + k] & 0xFF;
            if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != ARRAY[start + k]) {
                return false;
            }
        }
        return true;
    }

    /** The index of the entry with this name and value, or 0. */
    public static int indexOf(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex,
            int valueLength) {
        for (int i = indexOfName(name, nameIndex, nameLength); i > 0 && i <= LENGTH && NAME_LENGTH[i] == nameLength
                && equal(name, nameIndex, NAME_START[i], nameLength); i++) {
            if (VALUE_LENGTH[i] == valueLength && equal(value, valueIndex, VALUE_START[i], valueLength)) {
                return i;
            }
        }
        return 0;
    }

    private static boolean equal(ByteBuf buf, int index, int start, int length) {
        for (int k = 0; k < length; k++) {
            if (buf.getByte(index + k) != BYTES.getByte(start + k)) {
                return false;
            }
        }
        return true;
    }
}
