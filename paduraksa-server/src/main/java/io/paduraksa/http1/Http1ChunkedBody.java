package io.paduraksa.http1;

import static io.paduraksa.http1.Http1Bytes.CR;
import static io.paduraksa.http1.Http1Bytes.LF;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * The chunked body state machine both decoders share (RFC 9112 section 7.1): chunk-size line (size,
 * extensions validated by {@link Http1LineParser} and skipped), chunk data as retained slices of
 * the inbound bytes, the CRLF after the data, until the last chunk. What follows the last chunk, the
 * trailer section, is the owning decoder's rule (requests drop it, responses pass it on).
 *
 * <p>One instance per decoder, {@link #reset()} when a chunked body starts. {@link #decode} takes one
 * step per call, like the decoders' own states. Runs on the connection's event loop; allocates
 * nothing (slices come from Netty's recycler).
 */
public final class Http1ChunkedBody {
    /** Longest chunk-size line, extensions included, CRLF excluded. */
    public static final int MAX_CHUNK_LINE_LENGTH = 1024;

    private static final int SIZE = 0;
    private static final int DATA = 1;
    private static final int DATA_END = 2;
    private static final int LAST_CHUNK = 3;

    private final Http1LineParser lines;
    /** Largest sum of chunk sizes, or -1 for no limit. */
    private final long maxBodySize;

    private int state = SIZE;
    /** Bytes left in the current chunk. */
    private long remaining;
    /** Sum of chunk sizes so far. */
    private long total;
    /** Bytes after the reader index already searched for LF in the current chunk line. */
    private int scanned;

    /**
     * @param lines the owning decoder's line rules
     * @param maxBodySize largest sum of chunk sizes ({@link Http1Error#BODY_TOO_LARGE} above it), or -1 for no limit
     */
    public Http1ChunkedBody(Http1LineParser lines, long maxBodySize) {
        this.lines = lines;
        this.maxBodySize = maxBodySize;
    }

    /** A chunked body starts. */
    public void reset() {
        state = SIZE;
        total = 0;
        scanned = 0;
    }

    /** Whether the last chunk (size 0) was read: the trailer section comes next. */
    public boolean isLastChunkRead() {
        return state == LAST_CHUNK;
    }

    /**
     * One step: consumes bytes from {@code in} and adds at most one data slice to {@code out}.
     * Returns null, or the error after which the owner discards everything; returning with nothing
     * consumed means more bytes are needed.
     */
    public Http1Error decode(ByteBuf in, List<Object> out) {
        return switch (state) {
            case SIZE -> decodeSize(in);
            case DATA -> decodeData(in, out);
            case DATA_END -> decodeDataEnd(in);
            default -> null;
        };
    }

    /** chunk-size [ chunk-ext ] CRLF, or last-chunk when the size is 0. */
    private Http1Error decodeSize(ByteBuf in) {
        int r = in.readerIndex();
        int lf = findLineEnd(in, r);
        if (lf < 0) {
            return lf == -2 ? Http1Error.BARE_LF : scanned >= MAX_CHUNK_LINE_LENGTH + 2 ? Http1Error.CHUNK_LINE_TOO_LONG : null;
        }
        long size = lines.parseChunkLine(in, r, lf - 1);
        if (size < 0) {
            return lines.chunkLineError();
        }
        in.readerIndex(lf + 1);
        if (size == 0) {
            state = LAST_CHUNK;
        } else if (maxBodySize >= 0 && size > maxBodySize - total) {
            return Http1Error.BODY_TOO_LARGE;
        } else {
            total += size;
            remaining = size;
            state = DATA;
        }
        return null;
    }

    /**
     * Index of the LF ending the chunk line at {@code r}, searching at most
     * {@link #MAX_CHUNK_LINE_LENGTH} + 2 bytes and resuming where the last call stopped; or -1 (more
     * needed, or over the limit: see {@link #scanned}), -2 (bare LF).
     */
    private int findLineEnd(ByteBuf in, int r) {
        int limit = (int) Math.min(in.writerIndex(), (long) r + MAX_CHUNK_LINE_LENGTH + 2);
        int from = r + scanned;
        if (from < limit) {
            int lf = in.indexOf(from, limit, LF);
            if (lf >= 0) {
                scanned = 0;
                return lf == r || in.getByte(lf - 1) != CR ? -2 : lf;
            }
            scanned = limit - r;
        }
        return -1;
    }

    private Http1Error decodeData(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(remaining, in.readableBytes());
        if (n == 0) {
            return null;
        }
        out.add(in.readRetainedSlice(n));
        remaining -= n;
        if (remaining == 0) {
            state = DATA_END;
        }
        return null;
    }

    private Http1Error decodeDataEnd(ByteBuf in) {
        int n = in.readableBytes();
        int r = in.readerIndex();
        if (n == 0 || n == 1 && in.getByte(r) == CR) {
            return null;
        }
        if (in.getByte(r) != CR || in.getByte(r + 1) != LF) {
            return Http1Error.MISSING_CHUNK_CRLF;
        }
        in.skipBytes(2);
        state = SIZE;
        return null;
    }
}
