package io.paduraksa.testing;

import io.paduraksa.text.AsciiText;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An {@link AsciiText} over a byte array, standing in for the HTTP/1.1 and HTTP/2 request views. A
 * strict one ({@link #of}) fails the test when it is read per char, so a test can require the bulk
 * path ({@link #copyTo}); a {@link #readable} one also answers {@code charAt}; an {@link #inArray} one
 * hands out its array (as the HTTP/2 view does), with other bytes around the text.
 */
public record BulkText(byte[] bytes, boolean perChar, int offset, byte[] shared) implements AsciiText {

    public BulkText(byte[] bytes, boolean perChar) {
        this(bytes, perChar, 0, null);
    }

    /**
     * Per-char reads, bulk reads and {@link #array()}: the text lies at offset 7 of a bigger array whose other bytes
     * are {@code '.'}, so a reader that strays outside the range reads them.
     */
    public static BulkText inArray(String latin1) {
        byte[] text = latin1.getBytes(StandardCharsets.ISO_8859_1);
        byte[] around = new byte[text.length + 14];
        Arrays.fill(around, (byte) '.');
        System.arraycopy(text, 0, around, 7, text.length);
        return new BulkText(text, true, 7, around);
    }

    @Override
    public byte[] array() {
        return shared;
    }

    @Override
    public int arrayOffset() {
        return offset;
    }

    /**
     * Bulk reads only: {@code charAt} throws an {@link AssertionError}, except at the first and the
     * last index (a name set's outline reads those two, {@code HeaderNameSet.Outline}).
     */
    public static BulkText of(String latin1) {
        return new BulkText(latin1.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    /** Bulk and per-char reads. */
    public static BulkText readable(String latin1) {
        return new BulkText(latin1.getBytes(StandardCharsets.ISO_8859_1), true);
    }

    @Override
    public void copyTo(int index, byte[] dst, int at, int n) {
        System.arraycopy(bytes, index, dst, at, n);
    }

    @Override
    public int indexOf(char c) {
        for (int i = 0; i < bytes.length; i++) {
            if ((bytes[i] & 0xFF) == c) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int length() {
        return bytes.length;
    }

    @Override
    public char charAt(int index) {
        if (!perChar && index != 0 && index != bytes.length - 1) {
            throw new AssertionError("expected to be read through copyTo");
        }
        return (char) (bytes[index] & 0xFF);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
    }
}
