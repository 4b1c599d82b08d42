package io.paduraksa.text;

import io.netty.util.AsciiString;

/**
 * Where a text's bytes can be read in place: an {@link AsciiString}'s array, or the array of an
 * {@link AsciiText} that has one (the HTTP/2 request view); null for any other text, which a reader
 * copies out instead ({@link AsciiText#copyTo}, or per char). Nothing allocates.
 */
public final class TextBytes {
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
}
