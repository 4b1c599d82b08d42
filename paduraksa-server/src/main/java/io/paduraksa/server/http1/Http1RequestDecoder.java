package io.paduraksa.server.http1;

import static io.paduraksa.http1.Http1Bytes.CR;
import static io.paduraksa.http1.Http1Bytes.LF;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.paduraksa.http1.Http1Bytes;
import io.paduraksa.http1.Http1ChunkedBody;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.http1.Http1LineParser;
import io.paduraksa.http1.Http1SectionScanner;
import io.paduraksa.http1.ResumableDecoder;
import java.util.List;

/**
 * Strict HTTP/1.1 request decoder (RFC 9112) that records positions instead of building objects.
 *
 * <p><b>Output</b>, in order, per request:
 * <ol>
 *   <li>the connection's one {@link Http1RequestHead}, reset for this request (its bytes are a
 *       retained slice the consumer must {@link Http1RequestHead#release() release});</li>
 *   <li>if {@link Http1RequestHead#hasBody()}: the body as retained {@link ByteBuf} slices of the
 *       inbound bytes (chunk framing removed; the consumer releases each), then
 *       {@link Http1RequestEnd#INSTANCE}. Chunk extensions are validated, bounded by
 *       {@link #MAX_CHUNK_LINE_LENGTH} and skipped; trailer fields are validated, bounded by the
 *       head limits and dropped (RFC 9112 section 7.1.2 lets a recipient that removes the chunked
 *       coding discard them).</li>
 * </ol>
 * Pipelined requests are decoded in order. The next head is parsed only once the previous head has
 * been released: a consumer that releases it while handling it (the gate answering at once) sees
 * no difference; one that holds it (forwarding) calls {@link #resume()} after releasing, and turns
 * auto-read off meanwhile if it wants back-pressure.
 *
 * <p><b>Errors</b>: on the first violation the decoder emits one {@link Http1Error} (the status
 * to answer) and from then on discards every inbound byte; the consumer answers and closes. After a
 * request that is not {@link Http1RequestHead#isKeepAlive() keep-alive}, later bytes are discarded
 * too (RFC 9112 section 9.6). A body cut short by the connection closing produces no end marker.
 *
 * <p><b>Cost</b>: runs on the connection's event loop for every read. With a pooled inbound buffer
 * it allocates nothing per request: positions go into the recycled head, slices come from Netty's
 * recycler, outputs are singletons or the head itself. Scanning for the end of the head resumes
 * where the previous read stopped, so a head trickling in byte by byte costs linear time.
 */
public final class Http1RequestDecoder extends ResumableDecoder {
    public static final int DEFAULT_MAX_REQUEST_LINE_LENGTH = 8 * 1024;
    public static final int DEFAULT_MAX_HEAD_SIZE = 32 * 1024;
    public static final int DEFAULT_MAX_HEADER_COUNT = 100;
    public static final long DEFAULT_MAX_BODY_SIZE = 10L * 1024 * 1024;
    /** Longest chunk-size line, extensions included, CRLF excluded. */
    public static final int MAX_CHUNK_LINE_LENGTH = Http1ChunkedBody.MAX_CHUNK_LINE_LENGTH;
    /** Empty lines tolerated before a request line (RFC 9112 section 2.2: SHOULD ignore at least one). */
    static final int MAX_EMPTY_LINES = 4;

    private static final int HEAD = 0;
    private static final int CONTENT = 1;
    private static final int CHUNKED = 2;
    private static final int TRAILERS = 3;
    private static final int DISCARD = 4;

    /** findLineEnd results other than an index. */
    private static final int NEED_MORE = -1;
    private static final int TOO_LONG = -2;
    private static final int BARE_LF_FOUND = -3;

    private final int maxRequestLineLength;
    private final int maxHeadSize;
    private final int maxHeaderCount;
    private final Http1LineParser lines = Http1LineParser.forRequests();
    private final Http1HeadParser parser;
    private final Http1ChunkedBody chunked;
    private final Http1RequestHead head;
    private final Http1SectionScanner headScanner;

    private int state = HEAD;
    /** Bytes after the reader index already searched for LF in the current trailer line. */
    private int scanned;
    private int emptyLines;
    private boolean keepAlive;
    /** Bytes left in the Content-Length body. */
    private long remaining;
    private int trailerBytes;
    private int trailerCount;


    /** Default limits: 8 KiB request line, 32 KiB head, 100 header fields, 10 MiB body. */
    public Http1RequestDecoder() {
        this(DEFAULT_MAX_REQUEST_LINE_LENGTH, DEFAULT_MAX_HEAD_SIZE, DEFAULT_MAX_HEADER_COUNT, DEFAULT_MAX_BODY_SIZE);
    }

    /**
     * @param maxRequestLineLength longest request line without CRLF; longer gets 414
     * @param maxHeadSize largest head, request line to final CRLF; larger gets 431
     * @param maxHeaderCount most header fields; more gets 431
     * @param maxBodySize largest declared Content-Length or sum of chunk sizes; larger gets 413
     */
    public Http1RequestDecoder(int maxRequestLineLength, int maxHeadSize, int maxHeaderCount, long maxBodySize) {
        if (maxRequestLineLength < 16 || maxHeadSize < maxRequestLineLength + 4 || maxHeaderCount < 1 || maxBodySize < 0) {
            throw new IllegalArgumentException("invalid limits: request line " + maxRequestLineLength + ", head " + maxHeadSize
                    + ", headers " + maxHeaderCount + ", body " + maxBodySize
                    + " (expected: request line >= 16, head >= request line + 4, headers >= 1, body >= 0)");
        }
        this.maxRequestLineLength = maxRequestLineLength;
        this.maxHeadSize = maxHeadSize;
        this.maxHeaderCount = maxHeaderCount;
        this.parser = new Http1HeadParser(maxBodySize, lines);
        this.chunked = new Http1ChunkedBody(lines, maxBodySize);
        this.head = new Http1RequestHead(maxHeaderCount);
        this.headScanner = new Http1SectionScanner(maxHeadSize, maxRequestLineLength);
    }

    /** Whether bytes after the current request are buffered: the start of a pipelined next request. */
    boolean hasBufferedBytes() {
        return actualReadableBytes() > 0;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decodeOnce(in, out);
    }

    /**
     * One decoding step, free of channel types so that tests can drive it directly: consumes bytes
     * from {@code in} and adds at most a few messages to {@code out}. Returning with nothing consumed
     * means more bytes are needed (or a held head must be released first).
     */
    void decodeOnce(ByteBuf in, List<Object> out) {
        switch (state) {
            case HEAD -> decodeHead(in, out);
            case CONTENT -> decodeContent(in, out);
            case CHUNKED -> decodeChunked(in, out);
            case TRAILERS -> decodeTrailer(in, out);
            default -> in.skipBytes(in.readableBytes());
        }
    }

    // ---- head

    private void decodeHead(ByteBuf in, List<Object> out) {
        if (head.isHeld()) {
            return;
        }
        if (headScanner.scanned() == 0 && (!skipEmptyLines(in, out) || !startsWithToken(in, out))) {
            return;
        }
        int start = in.readerIndex();
        int end = headScanner.scan(in, start);
        if (end > 0) {
            emitHead(in, out, start, end);
        } else if (end == Http1SectionScanner.BARE_LF) {
            fail(in, out, Http1Error.BARE_LF);
        } else if (end == Http1SectionScanner.FIRST_LINE_TOO_LONG
                || headScanner.firstLineEnd() < 0 && requestLineTooLong(in, start)) {
            fail(in, out, Http1Error.REQUEST_LINE_TOO_LONG);
        } else if (headScanner.scanned() >= maxHeadSize) {
            fail(in, out, Http1Error.HEAD_TOO_LARGE);
        }
    }

    /** The request line, still without its LF, already has more bytes than allowed (a final CR may still be its terminator). */
    private boolean requestLineTooLong(ByteBuf in, int start) {
        int length = headScanner.scanned();
        if (length > 0 && in.getByte(start + length - 1) == CR) {
            length--;
        }
        return length > maxRequestLineLength;
    }

    /**
     * A request line starts with a method token. Refusing any other first byte at once answers a TLS
     * ClientHello, a WebSocket frame after a refused upgrade or other binary input with 400 now,
     * instead of waiting for an LF that may never come until the header timeout. A bare LF passes on,
     * to be reported as such.
     */
    private boolean startsWithToken(ByteBuf in, List<Object> out) {
        int first = in.getByte(in.readerIndex());
        if (first == LF || Http1Bytes.isToken(first)) {
            return true;
        }
        fail(in, out, Http1Error.INVALID_METHOD);
        return false;
    }

    /** Skips CRLFs before a request line; false when the caller should wait or stop. */
    private boolean skipEmptyLines(ByteBuf in, List<Object> out) {
        while (true) {
            int n = in.readableBytes();
            int r = in.readerIndex();
            if (n == 0) {
                return false;
            }
            if (in.getByte(r) != CR) {
                return true;
            }
            if (n == 1) {
                return false; // wait for the byte after CR: CRLF is skipped, anything else is parsed
            }
            if (in.getByte(r + 1) != LF) {
                return true;
            }
            if (++emptyLines > MAX_EMPTY_LINES) {
                fail(in, out, Http1Error.TOO_MANY_EMPTY_LINES);
                return false;
            }
            in.skipBytes(2);
        }
    }

    private void emitHead(ByteBuf in, List<Object> out, int start, int end) {
        Http1Error error = parser.parse(in, start, start + headScanner.firstLineEnd(), end, head);
        if (error != null) {
            fail(in, out, error);
            return;
        }
        head.buffer(in.retainedSlice(start, end - start));
        in.readerIndex(end);
        emptyLines = 0;
        keepAlive = head.isKeepAlive();
        out.add(head);
        if (head.isChunked()) {
            chunked.reset();
            state = CHUNKED;
        } else if (head.contentLength() > 0) {
            remaining = head.contentLength();
            state = CONTENT;
        } else {
            state = keepAlive ? HEAD : DISCARD;
        }
    }

    // ---- Content-Length body

    private void decodeContent(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(remaining, in.readableBytes());
        if (n == 0) {
            return;
        }
        out.add(in.readRetainedSlice(n));
        remaining -= n;
        if (remaining == 0) {
            endRequest(out);
        }
    }

    private void endRequest(List<Object> out) {
        out.add(Http1RequestEnd.INSTANCE);
        state = keepAlive ? HEAD : DISCARD;
    }

    // ---- chunked body (RFC 9112 section 7.1), then trailers

    private void decodeChunked(ByteBuf in, List<Object> out) {
        Http1Error error = chunked.decode(in, out);
        if (error != null) {
            fail(in, out, error);
        } else if (chunked.isLastChunkRead()) {
            trailerBytes = 0;
            trailerCount = 0;
            state = TRAILERS;
        }
    }

    /** One trailer field line, validated like a header and dropped, or the empty line ending the request. */
    private void decodeTrailer(ByteBuf in, List<Object> out) {
        int lf = findLineEnd(in, maxHeadSize - trailerBytes);
        if (lf < 0) {
            lineError(in, out, lf, Http1Error.TRAILERS_TOO_LARGE);
            return;
        }
        int r = in.readerIndex();
        int cr = lf - 1;
        if (cr > r) {
            Http1Error error = lines.parseField(in, r, cr);
            if (error == null && ++trailerCount > maxHeaderCount) {
                error = Http1Error.TRAILERS_TOO_LARGE;
            }
            if (error != null) {
                fail(in, out, error);
                return;
            }
        }
        trailerBytes += lf + 1 - r;
        in.readerIndex(lf + 1);
        scanned = 0;
        if (cr == r) {
            endRequest(out);
        }
    }

    // ---- shared

    /**
     * Index of the LF ending the line at the reader index, searching at most {@code maxLength}
     * bytes and resuming where the last call stopped; or {@link #NEED_MORE}, {@link #TOO_LONG},
     * {@link #BARE_LF_FOUND}.
     */
    private int findLineEnd(ByteBuf in, int maxLength) {
        int r = in.readerIndex();
        int limit = (int) Math.min(in.writerIndex(), (long) r + maxLength);
        int from = r + scanned;
        if (from < limit) {
            int lf = in.indexOf(from, limit, LF);
            if (lf >= 0) {
                return lf == r || in.getByte(lf - 1) != CR ? BARE_LF_FOUND : lf;
            }
            scanned = limit - r;
        }
        return scanned >= maxLength ? TOO_LONG : NEED_MORE;
    }

    private void lineError(ByteBuf in, List<Object> out, int result, Http1Error tooLong) {
        if (result == TOO_LONG) {
            fail(in, out, tooLong);
        } else if (result == BARE_LF_FOUND) {
            fail(in, out, Http1Error.BARE_LF);
        }
    }

    private void fail(ByteBuf in, List<Object> out, Http1Error error) {
        in.skipBytes(in.readableBytes());
        state = DISCARD;
        out.add(error);
    }
}
