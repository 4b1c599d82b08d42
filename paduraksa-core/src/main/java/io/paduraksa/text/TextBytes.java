package io.paduraksa.text;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.Objects;

/**
 * Where a text's bytes can be read in place: an {@link AsciiString}'s array, or the array of an
 * {@link AsciiText} that has one (the HTTP/2 request view); null for any other text, which a reader
 * copies out instead ({@link AsciiText#copyTo}, or per char); and the one way to append a text to a
 * buffer in as few copies as its type allows ({@link #write}). Nothing allocates.
 */
public final class TextBytes {
    /** The longest text {@link #bytes} copies into its scratch array; a longer one (never a field name) gets null. */
    public static final int SCRATCH_LENGTH = 128;
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[SCRATCH_LENGTH];
        }
    };

    private TextBytes() {
    }

    /** The array holding {@code s}'s bytes, or null; index 0 of {@code s} is at {@link #offset}. */
    public static byte[] array(CharSequence s) {
        if (s instanceof AsciiString a) {
            return a.array();
        }
        return s instanceof AsciiText t ? t.array() : null;
    }

    /** Where index 0 of {@code s} is in {@link #array}; ask only when that is not null. */
    public static int offset(CharSequence s) {
        if (s instanceof AsciiString a) {
            return a.arrayOffset();
        }
        return s instanceof AsciiText t ? t.arrayOffset() : 0;
    }

    /**
     * The bytes of a short text (a field name, a method, an address) to read as an array: the array it
     * already has ({@link #array}), else this thread's scratch array after one copy (an
     * {@link AsciiText} such as a view over a direct buffer in one bulk read, any other text per char),
     * up to {@value #SCRATCH_LENGTH} bytes. Null for a longer text and for one with a char above 0xFF
     * (which equals no ASCII name); the caller then reads it per char or knows the answer. Index 0 of
     * {@code s} is at {@link #offset(CharSequence, byte[])} in the array returned. The scratch copy
     * holds until the next call on this thread: read it before asking again.
     */
    public static byte[] bytes(CharSequence s) {
        byte[] a = array(s);
        if (a != null) {
            return a;
        }
        int n = s.length();
        if (n > SCRATCH_LENGTH) {
            return null;
        }
        byte[] scratch = SCRATCH.get();
        if (s instanceof AsciiText t) {
            t.copyTo(0, scratch, 0, n);
            return scratch;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0xFF) {
                return null;
            }
            scratch[i] = (byte) c;
        }
        return scratch;
    }

    /** The index of the first {@code c} in {@code s}, or -1: over the bytes in place where {@code s} has them (no char-by-char reads of a buffer view). */
    public static int indexOf(CharSequence s, char c) {
        byte[] a = array(s);
        if (a != null) {
            if (c > 0xFF) {
                return -1;
            }
            for (int from = offset(s), i = from, end = from + s.length(); i < end; i++) {
                if (a[i] == (byte) c) {
                    return i - from;
                }
            }
            return -1;
        }
        if (s instanceof AsciiText t) {
            return t.indexOf(c); // a buffer without an array: its own bulk search
        }
        return indexOfChars(s, c);
    }

    /** {@link #indexOf} char by char, for a text with nothing faster to offer. */
    static int indexOfChars(CharSequence s, char c) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    /** Where index 0 of {@code s} is in {@code a}, the array {@link #bytes} returned for it. */
    public static int offset(CharSequence s, byte[] a) {
        return a == SCRATCH.get() ? 0 : offset(s);
    }

    /**
     * Appends {@code s} to {@code out}, one byte per char: an {@link AsciiString} or an
     * {@link AsciiText} (a view over a received head or a decoded field) in one copy, any other text
     * per char (chars above 0xFF become {@code ?}).
     */
    public static void write(ByteBuf out, CharSequence s) {
        if (s instanceof AsciiText t) {
            t.writeTo(out, 0, t.length());
        } else {
            ByteBufUtil.writeAscii(out, s);
        }
    }

    /** As {@link #write(ByteBuf, CharSequence)} for {@code [from, to)} of {@code s}; a range outside {@code s} throws. */
    public static void write(ByteBuf out, CharSequence s, int from, int to) {
        Objects.checkFromToIndex(from, to, s.length());
        if (s instanceof AsciiText t) {
            t.writeTo(out, from, to - from);
        } else if (s instanceof AsciiString a) {
            out.writeBytes(a.array(), a.arrayOffset() + from, to - from);
        } else {
            for (int i = from; i < to; i++) {
                char c = s.charAt(i);
                out.writeByte(c > 0xFF ? '?' : c);
            }
        }
    }
}
