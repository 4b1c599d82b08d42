package io.paduraksa.http1;

import static io.paduraksa.http1.Http1Bytes.CR;
import static io.paduraksa.http1.Http1Bytes.LF;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Finds the end of a head or trailer section (the empty line, RFC 9112 section 2.1) in bytes that
 * may arrive in pieces, for both decoders. Every LF is checked to follow a CR here (we do not
 * accept bare LF, section 2.2), so the parsers behind it walk lines by LF alone. Scanning resumes
 * where the previous call stopped, so a section trickling in byte by byte costs linear time.
 *
 * <p>One instance per decoder and connection thread; a new section starts after a successful
 * {@link #scan} (and at first). Allocates nothing.
 */
public final class Http1SectionScanner {
    /** {@link #scan} found no end yet: wait for more bytes, unless {@link #scanned()} reached the limit. */
    public static final int NEED_MORE = -1;
    /** {@link #scan} found an LF not preceded by CR. */
    public static final int BARE_LF = -2;
    /** {@link #scan} found a first line longer than the first-line limit. */
    public static final int FIRST_LINE_TOO_LONG = -3;

    private final int maxSize;
    private final int maxFirstLineLength;
    /** Bytes after the section start already searched. */
    private int scanned;
    /** Offset of the first line's LF from the section start, or -1 while not found. */
    private int firstLineEnd = -1;

    /**
     * @param maxSize most bytes a section may have, final CRLF included
     * @param maxFirstLineLength most bytes of the first line without CRLF ({@link Integer#MAX_VALUE}: no own limit)
     */
    public Http1SectionScanner(int maxSize, int maxFirstLineLength) {
        this.maxSize = maxSize;
        this.maxFirstLineLength = maxFirstLineLength;
    }

    /**
     * Scans for the empty line ending the section that starts at {@code start}, at most
     * {@code maxSize} bytes from it. Returns the index just after it (an empty first line counts: a
     * trailer section without fields), or {@link #NEED_MORE}, {@link #BARE_LF},
     * {@link #FIRST_LINE_TOO_LONG}.
     */
    public int scan(ByteBuf in, int start) {
        if (scanned == 0) {
            firstLineEnd = -1;
        }
        int limit = (int) Math.min(in.writerIndex(), (long) start + maxSize);
        byte[] a = CHUNK.get();
        // The bytes are read in chunks of a.length into a (one bulk read each, instead of a buffer search per
        // line) and searched there: a[i] is in[from + i]; a byte before the chunk is read from the buffer.
        for (int from = start + scanned; from < limit; from += a.length) {
            int n = Math.min(limit - from, a.length);
            in.getBytes(from, a, 0, n);
            for (int i = Http1LineParser.indexOfLf(a, 0, n); i < n; i = Http1LineParser.indexOfLf(a, i + 1, n)) {
                int lf = from + i;
                if (lf == start || (i > 0 ? a[i - 1] : in.getByte(lf - 1)) != CR) {
                    return BARE_LF;
                }
                if (firstLineEnd < 0) {
                    if (lf - 1 - start > maxFirstLineLength) {
                        return FIRST_LINE_TOO_LONG;
                    }
                    firstLineEnd = lf - start;
                }
                if (lf == start + 1 || firstLineEnd != lf - start && (i > 1 ? a[i - 2] : in.getByte(lf - 2)) == LF) {
                    scanned = 0;
                    return lf + 1;
                }
            }
        }
        scanned = limit - start;
        return NEED_MORE;
    }

    /** This thread's chunk of a section being searched (bounded: a section is searched a chunk at a time). */
    private static final FastThreadLocal<byte[]> CHUNK = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[1_024];
        }
    };

    /** Bytes of the current section searched so far; 0 when a new section starts. */
    public int scanned() {
        return scanned;
    }

    /** Offset of the first line's LF from the section start, or -1 while not found; kept after the end is found. */
    public int firstLineEnd() {
        return firstLineEnd;
    }
}
