package io.paduraksa.text;

import io.netty.buffer.ByteBuf;

/**
 * A {@link CharSequence} of one byte per char (ISO-8859-1) that can hand a range of its bytes out
 * in one bulk copy.
 *
 * <p>The request views of HTTP/1.1 and HTTP/2 are views over pooled buffers; a parser in this
 * module that wants bytes (the IP parser) copies a short range out with {@link #copyTo} instead of
 * paying a bounds-checked {@code charAt} per character, without this module knowing the buffer type.
 */
public interface AsciiText extends CharSequence {
    /**
     * Copies {@code [index, index + n)} into {@code dst} from {@code at}, one byte per char.
     * Throws {@link IndexOutOfBoundsException} when the range is not within this text.
     */
    void copyTo(int index, byte[] dst, int at, int n);

    /**
     * The array this text's bytes are in, read in place by whoever wants bytes, or null when they are
     * not in one (a direct buffer: then {@link #copyTo}). The array may hold other bytes around the
     * text: only {@code [arrayOffset(), arrayOffset() + length())} is this text.
     */
    default byte[] array() {
        return null;
    }

    /** Where this text's index 0 is in {@link #array()}. */
    default int arrayOffset() {
        return 0;
    }

    /** The index of the first {@code c}, or -1; a text over a buffer searches it in bulk. */
    default int indexOf(char c) {
        return TextBytes.indexOfChars(this, c);
    }

    /**
     * Appends {@code [index, index + n)} to {@code out}, one byte per char: from {@link #array()} in
     * one copy when there is one, else per char (a subtype over a buffer copies buffer to buffer).
     * Throws {@link IndexOutOfBoundsException} when the range is not within this text.
     */
    default void writeTo(ByteBuf out, int index, int n) {
        if (index < 0 || n < 0 || index + n > length()) {
            throw new IndexOutOfBoundsException("range " + index + "+" + n + " of " + length());
        }
        byte[] a = array();
        if (a != null) {
            out.writeBytes(a, arrayOffset() + index, n);
        } else {
            for (int i = 0; i < n; i++) {
                out.writeByte(charAt(index + i));
            }
        }
    }
}
