package io.paduraksa.http1;

import static io.paduraksa.http1.Http1Bytes.CR;
import static io.paduraksa.http1.Http1Bytes.LF;
import static io.paduraksa.http1.Http1Bytes.NUL;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The line grammar both directions share (RFC 9112): field lines of heads and trailer sections
 * (section 5) and chunk-size lines (section 7.1). The callers have already found the line's CR and
 * LF (every LF checked to follow a CR), so a line is walked without bounds checks beyond its CR.
 * One instance per decoder; the position fields are scratch for the line just parsed. Allocates
 * nothing; errors are {@link Http1Error} constants.
 *
 * <p>Where the two sides differ it is a rule of that side, fixed at construction:
 * <ul>
 *   <li>NUL: the response side names it ({@link Http1Error#NUL}, also as the first byte of a chunk
 *       extension, where a CR is named {@link Http1Error#BARE_CR}); the request side reports it as
 *       the field's or extension's own error;</li>
 *   <li>chunk size: the request side accepts at most 16 hex digits and saturates a size beyond a
 *       long (the body limit then refuses it); the response side accepts any number of digits whose
 *       value fits a long.</li>
 * </ul>
 */
public final class Http1LineParser {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LITTLE_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Per thread: the field lines being parsed, copied out of the buffer in one read; grows to the longest section seen. */
    private static final FastThreadLocal<byte[]> LINE = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[1024];
        }
    };
    private final boolean namesNul;
    private final int maxChunkSizeDigits;
    private final boolean saturatesChunkSize;

    private int nameEnd;
    /** The last field parsed has a {@code _} in its name. */
    private boolean underscore;
    private int valueStart;
    private int valueEnd;
    private int chunkSizeEnd;
    private Http1Error chunkLineError;

    private Http1LineParser(boolean namesNul, int maxChunkSizeDigits, boolean saturatesChunkSize) {
        this.namesNul = namesNul;
        this.maxChunkSizeDigits = maxChunkSizeDigits;
        this.saturatesChunkSize = saturatesChunkSize;
    }

    /** The rules of the request decoder (client side). */
    public static Http1LineParser forRequests() {
        return new Http1LineParser(false, 16, true);
    }

    /** The rules of the response decoder (upstream side). */
    public static Http1LineParser forResponses() {
        return new Http1LineParser(true, Integer.MAX_VALUE, false);
    }

    // ---- field lines: field-name ":" OWS field-value OWS (RFC 9112 section 5)

    /**
     * Looks at each field of a section for {@link #parseFields}: implemented by the parser that owns
     * the section (the callback is that object, never a lambda), which reads the field's positions
     * from this parser.
     */
    public interface FieldSink {
        /** Field {@code index}, whose line starts at {@code lineStart}; returns null or the error that ends the section. */
        Http1Error field(ByteBuf in, int lineStart, int index);
    }

    /** For a section whose fields carry no facts (trailers that are passed on). */
    public static final FieldSink NO_FACTS = (in, lineStart, index) -> null;

    /**
     * Parses the field lines from {@code p} up to the empty line that ends the section (every LF in
     * {@code in[p, end)} known to follow a CR): validates each, adds its positions to
     * {@code section} (relative to {@code sectionStart}), then hands it to {@code sink}. Returns null
     * at the empty line, or the first error ({@link Http1Error#TOO_MANY_HEADERS} when the section is
     * full).
     */
    public Http1Error parseFields(ByteBuf in, int p, int end, Http1FieldSection section, int sectionStart,
            FieldSink sink) {
        // The section's lines are copied out in one read (a section is at most a head long: bounded)
        // and walked in the copy: a[q] is in[p + q].
        int n = end - p;
        byte[] a = LINE.get();
        if (n > a.length) {
            a = longerLine(n);
        }
        in.getBytes(p, a, 0, n);
        for (int q = 0; ; ) {
            int cr = indexOfLf(a, q, n) - 1;
            if (cr == q) {
                return null;
            }
            Http1Error error = parseLine(a, q, cr, p + q);
            if (error != null) {
                return error;
            }
            if (!section.addField(p + q - sectionStart, nameEnd - sectionStart, valueStart - sectionStart,
                    valueEnd - sectionStart, a[q], underscore)) {
                return Http1Error.TOO_MANY_HEADERS;
            }
            error = sink.field(in, p + q, section.headerCount() - 1);
            if (error != null) {
                return error;
            }
            q = cr + 2;
        }
    }

    /**
     * The index of the first LF in {@code a[from, to)}, eight bytes a step; {@code to} when there is none
     * (a caller's section always ends with one).
     */
    static int indexOfLf(byte[] a, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long x = (long) LITTLE_LONGS.get(a, i) ^ 0x0A0A0A0A0A0A0A0AL;
            // The lowest byte that was an LF sets the lowest flag (a borrow only runs upwards).
            long lf = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
            if (lf != 0) {
                return i + (Long.numberOfTrailingZeros(lf) >>> 3);
            }
        }
        while (i < to && a[i] != LF) {
            i++;
        }
        return i;
    }

    /**
     * Validates the field line {@code in[p, cr)} (cr is the index of its CR); when it returns null,
     * {@link #nameEnd()}, {@link #valueStart()} and {@link #valueEnd()} (value trimmed of OWS) hold
     * the field's absolute positions.
     */
    public Http1Error parseField(ByteBuf in, int p, int cr) {
        byte[] line = LINE.get();
        if (cr - p > line.length) {
            line = longerLine(cr - p);
        }
        in.getBytes(p, line, 0, cr - p);
        return parseLine(line, 0, cr - p, p);
    }

    /**
     * {@link #parseField} over the line's bytes copied into {@code a[from, n)} ({@code n} is the index of its
     * CR; one bulk read from the buffer instead of a checked read per byte); {@code at} is where the line
     * starts in the buffer, to which the positions recorded are relative.
     */
    private Http1Error parseLine(byte[] a, int from, int n, int at) {
        int first = n > from ? a[from] : CR;
        if (Http1Bytes.isOws(first)) {
            return Http1Error.OBS_FOLD;
        }
        at -= from;
        int q = from;
        boolean underscore = false;
        while (q < n && Http1Bytes.isToken(a[q])) {
            underscore |= a[q] == '_';
            q++;
        }
        this.underscore = underscore;
        int c = q < n ? a[q] : CR;
        if (c != ':') {
            return nameError(c, q == n);
        }
        if (q == from) {
            return Http1Error.EMPTY_HEADER_NAME;
        }
        nameEnd = at + q++;
        while (q < n && Http1Bytes.isOws(a[q])) {
            q++;
        }
        int start = q;
        // eight bytes a step while none is a CTL or DEL; a word that has one (a tab, or an error) and
        // the tail are checked a byte at a time
        for (; q + 8 <= n; q += 8) {
            if (!Http1Bytes.isPlainFieldValueWord((long) LONGS.get(a, q))) {
                Http1Error error = checkValueBytes(a, q, q + 8);
                if (error != null) {
                    return error;
                }
            }
        }
        Http1Error error = checkValueBytes(a, q, n);
        if (error != null) {
            return error;
        }
        int end = n;
        while (end > start && Http1Bytes.isOws(a[end - 1])) {
            end--; // trailing OWS is not part of the value
        }
        valueStart = at + start;
        valueEnd = at + end;
        return null;
    }

    private Http1Error checkValueBytes(byte[] a, int from, int to) {
        for (int q = from; q < to; q++) {
            int b = a[q];
            if (!Http1Bytes.isFieldValue(b)) {
                return invalidByte(b, Http1Error.INVALID_HEADER_VALUE);
            }
        }
        return null;
    }

    /** This thread's line array grown to hold {@code n} bytes (a line is at most a head long: bounded). */
    private static byte[] longerLine(int n) {
        byte[] line = new byte[Math.max(n, 2 * LINE.get().length)];
        LINE.set(line);
        return line;
    }

    public int nameEnd() {
        return nameEnd;
    }

    public int valueStart() {
        return valueStart;
    }

    public int valueEnd() {
        return valueEnd;
    }

    private Http1Error nameError(int c, boolean atLineEnd) {
        if (Http1Bytes.isOws(c)) {
            return Http1Error.WHITESPACE_BEFORE_COLON;
        }
        return atLineEnd ? Http1Error.INVALID_HEADER_NAME : invalidByte(c, Http1Error.INVALID_HEADER_NAME);
    }

    /** The error for a byte not allowed where it is: a CR is always a bare CR, a NUL per this side's rule. */
    private Http1Error invalidByte(int b, Http1Error otherwise) {
        return b == CR ? Http1Error.BARE_CR : b == NUL && namesNul ? Http1Error.NUL : otherwise;
    }

    // ---- chunk-size line: chunk-size [ chunk-ext ] CRLF (RFC 9112 section 7.1)

    /**
     * Validates the chunk-size line {@code in[from, cr)} and returns the size; -1 when the line is
     * refused, and then {@link #chunkLineError()} says why.
     */
    public long parseChunkLine(ByteBuf in, int from, int cr) {
        long size = parseChunkSize(in, from, cr);
        chunkLineError = size < 0 ? Http1Error.INVALID_CHUNK_SIZE
                : chunkSizeEnd < cr ? chunkExtension(in, chunkSizeEnd, cr) : null;
        return chunkLineError == null ? size : -1;
    }

    /** Why the last {@link #parseChunkLine} returned -1. */
    public Http1Error chunkLineError() {
        return chunkLineError;
    }

    /**
     * 1*HEXDIG from {@code from}, at most {@link #maxChunkSizeDigits}; sets {@link #chunkSizeEnd}.
     * Returns -1 when there is no digit or too many; a value beyond a long saturates at
     * {@code Long.MAX_VALUE} on the request side and is -1 on the response side.
     */
    private long parseChunkSize(ByteBuf in, int from, int cr) {
        int p = from;
        long size = 0;
        boolean overflow = false;
        for (int digit; p < cr && (digit = Http1Bytes.hexValue(in.getByte(p))) >= 0; p++) {
            if (p - from == maxChunkSizeDigits) {
                return -1;
            }
            overflow |= size > Long.MAX_VALUE >>> 4;
            size = size << 4 | digit;
        }
        chunkSizeEnd = p;
        if (p == from || overflow && !saturatesChunkSize) {
            return -1;
        }
        return overflow ? Long.MAX_VALUE : size;
    }

    /**
     * chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ): field bytes only (no CTL but HTAB) in
     * that grammar ({@link Http1Bytes#isChunkExtension}). The content is skipped.
     */
    private Http1Error chunkExtension(ByteBuf in, int p, int cr) {
        p = Http1Bytes.skipOws(in, p, cr);
        if (p == cr || in.getByte(p) != ';') {
            return p == cr || !namesNul ? Http1Error.INVALID_CHUNK_EXTENSION
                    : invalidByte(in.getByte(p), Http1Error.INVALID_CHUNK_EXTENSION);
        }
        for (int i = p; i < cr; i++) {
            int b = in.getByte(i);
            if (!Http1Bytes.isFieldValue(b)) {
                return invalidByte(b, Http1Error.INVALID_CHUNK_EXTENSION);
            }
        }
        return Http1Bytes.isChunkExtension(in, p, cr) ? null : Http1Error.INVALID_CHUNK_EXTENSION;
    }
}
