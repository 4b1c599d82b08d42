package io.paduraksa.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.paduraksa.text.AsciiText;
import java.nio.charset.StandardCharsets;

/**
 * A re-pointable {@link CharSequence} over a byte range of a {@link ByteBuf}, one char per byte
 * (ISO-8859-1), so that code written against {@code CharSequence} (the gate, host and IP parsers)
 * reads HTTP/1.1 request bytes in place.
 *
 * <p>Per request: {@link #point} and the {@code CharSequence} reads allocate nothing. Only
 * {@link #toString()} (logs, tests) and {@link #subSequence} (which must return a new object by
 * contract) allocate. A view does not own or retain its buffer: it is valid while whoever pointed
 * it keeps the buffer alive and does not re-point it (see the request and response heads for the views
 * it hands out). {@code equals} and {@code hashCode} are identity, as for any mutable view.
 */
public final class AsciiView implements AsciiText {
    private ByteBuf buf;
    private int from;
    private int length;

    /** An empty view, pointing at nothing. */
    public AsciiView() {
    }

    /** Points this view at {@code buf[from, to)}; returns {@code this}. */
    public AsciiView point(ByteBuf buf, int from, int to) {
        this.buf = buf;
        this.from = from;
        this.length = to - from;
        return this;
    }

    /** Points this view at nothing (length 0) and drops the buffer reference. */
    public AsciiView clear() {
        this.buf = null;
        this.from = 0;
        this.length = 0;
        return this;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public char charAt(int index) {
        if (index < 0 || index >= length) {
            throw indexOutOfBounds(index, length);
        }
        return (char) (buf.getByte(from + index) & 0xFF);
    }

    /** Copies {@code [index, index + n)} into {@code dst} at {@code at}: one bulk read instead of a checked read per byte. */
    @Override
    public void copyTo(int index, byte[] dst, int at, int n) {
        if (index < 0 || n < 0 || index + n > length) {
            throw indexOutOfBounds(index + n, length);
        }
        buf.getBytes(from + index, dst, at, n);
    }

    /** Appends {@code [index, index + n)} of this view to {@code out} in one buffer-to-buffer copy. */
    @Override
    public void writeTo(ByteBuf out, int index, int n) {
        if (index < 0 || n < 0 || index + n > length) {
            throw indexOutOfBounds(index + n, length);
        }
        out.writeBytes(buf, from + index, n);
    }

    /** The array of a heap buffer (HTTP/2's copied fields), null for a direct one (HTTP/1.1's inbound bytes). */
    @Override
    public byte[] array() {
        return buf != null && buf.hasArray() ? buf.array() : null;
    }

    /** Where index 0 is in {@link #array()}; 0 when there is no array (a direct buffer has no offset to ask). */
    @Override
    public int arrayOffset() {
        return buf != null && buf.hasArray() ? buf.arrayOffset() + from : 0;
    }

    /** The index of the first {@code c}, or -1: one bulk search of the buffer (a char above 0xFF is in no view). */
    @Override
    public int indexOf(char c) {
        if (c > 0xFF || length == 0) {
            return -1;
        }
        int i = buf.indexOf(from, from + length, (byte) c);
        return i < 0 ? -1 : i - from;
    }

    /** Compares with {@code lowerCase} folding ASCII letters only; {@code lowerCase} must be lower case. */
    public boolean contentEqualsIgnoreCase(AsciiString lowerCase) {
        return length == lowerCase.length() && Http1Bytes.equalsLowerCase(buf, from, lowerCase);
    }

    /** Exact byte comparison. */
    public boolean contentEquals(AsciiString other) {
        return length == other.length() && Http1Bytes.equalsExact(buf, from, other);
    }

    /** Allocates a new view over the same bytes (the {@code CharSequence} contract asks for a new object). */
    @Override
    public CharSequence subSequence(int start, int end) {
        if (start < 0 || end > length || start > end) {
            throw indexOutOfBounds(start, end);
        }
        return new AsciiView().point(buf, from + start, from + end);
    }

    /** Copies the bytes into a new String (ISO-8859-1); for logs and tests, never on the request path. */
    @Override
    public String toString() {
        return length == 0 ? "" : buf.toString(from, length, StandardCharsets.ISO_8859_1);
    }

    private static IndexOutOfBoundsException indexOutOfBounds(int index, int length) {
        return new IndexOutOfBoundsException("index " + index + " (length " + length + ")");
    }
}
