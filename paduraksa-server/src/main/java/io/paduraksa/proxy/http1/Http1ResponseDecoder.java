package io.paduraksa.proxy.http1;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.paduraksa.http1.Http1ChunkedBody;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.http1.Http1LineParser;
import io.paduraksa.http1.Http1SectionScanner;
import io.paduraksa.http1.ResumableDecoder;
import java.util.List;

/**
 * Strict HTTP/1.x response decoder (RFC 9112) for upstream connections, recording positions
 * instead of building objects. Upstream bytes are treated as hostile: anything that could let two
 * parsers disagree about where a response ends is an error, and the connection is never reused
 * after one.
 *
 * <p><b>Expectations.</b> The owner calls {@link #expectResponse} once per request written, before
 * its response can arrive; responses are matched to those calls in order (pipelining works, up to
 * {@link #MAX_PENDING} outstanding). A byte that arrives while no response is expected, or that
 * follows a complete response that was the last one expected (or that closed the connection), is
 * {@link Http1Error#UNSOLICITED_BYTES} / {@link Http1Error#BYTES_AFTER_RESPONSE}:
 * it could only become the "response" to a later request, which is response smuggling. The check
 * for bytes after a response runs when that response ends, before the consumer sees its end, so an
 * {@code expectResponse} call made while handling the end cannot adopt bytes that were already
 * there.
 *
 * <p><b>Output</b>, in order, per expected response:
 * <ol>
 *   <li>zero or more interim heads ({@link Http1ResponseHead#isInformational()}, e.g. 100, 103),
 *       at most {@link #MAX_INTERIM_RESPONSES};</li>
 *   <li>the final {@link Http1ResponseHead}: the decoder's one recycled instance (interim heads use
 *       it too), holding a retained slice the consumer must {@link Http1ResponseHead#release()
 *       release}; the next head is parsed only after that, see {@link #resume()};</li>
 *   <li>the body as retained {@link ByteBuf} slices (chunk framing removed; the consumer releases
 *       each), then {@link Http1ResponseTrailers} if a chunked body ended with trailer fields (the
 *       consumer releases it), then {@link Http1ResponseEnd#INSTANCE}. A response without a body
 *       gets its end marker right after the head; a close-delimited body ends when the connection
 *       closes;</li>
 *   <li>after a final 101 (accepted only when the request asked for an upgrade): every later byte as
 *       raw retained {@link ByteBuf}s, unparsed, and no end marker (tunnel mode).</li>
 * </ol>
 *
 * <p><b>Errors</b>: on the first violation one {@link Http1Error} is emitted and from then
 * on every inbound byte is discarded; the consumer closes the connection. Messages already emitted
 * for the response (head, body) stay valid; an error may follow an end marker when the bytes after a
 * response are the problem. When the connection closes early the error is of kind
 * {@link Http1Error.Kind#PREMATURE_CLOSE}.
 *
 * <p><b>Cost</b>: runs on the upstream connection's event loop for every read. With a pooled
 * inbound buffer it allocates nothing per response: positions go into the recycled head and
 * trailers, slices come from Netty's recycler, the other messages are singletons or enum constants.
 * Scanning for the end of a head resumes where the previous read stopped.
 */
public final class Http1ResponseDecoder extends ResumableDecoder {
    public static final int DEFAULT_MAX_HEAD_SIZE = 64 * 1024;
    public static final int DEFAULT_MAX_HEADER_COUNT = 100;
    /** Longest chunk-size line, extensions included, CRLF excluded. */
    public static final int MAX_CHUNK_LINE_LENGTH = Http1ChunkedBody.MAX_CHUNK_LINE_LENGTH;
    /** Interim heads accepted before one final head; more is an upstream looping on 1xx. */
    public static final int MAX_INTERIM_RESPONSES = 16;
    /** Most responses expected at once (bits of a long). */
    public static final int MAX_PENDING = 64;

    private static final int HEAD = 0;
    private static final int CONTENT = 1;
    private static final int CHUNKED = 2;
    private static final int TRAILERS = 3;
    private static final int CLOSE_DELIMITED = 4;
    /** A response without keep-alive ended: nothing may follow it. */
    private static final int CLOSING = 5;
    private static final int TUNNEL = 6;
    /** After an error or the end of input: everything is dropped. */
    private static final int DISCARD = 7;

    /** The shortest status line a head can have, CRLF included: HTTP/1.1 200 CRLF. */
    private static final int STATUS_PREFIX_LENGTH = 8;

    private final int maxHeadSize;
    private final Http1LineParser lines = Http1LineParser.forResponses();
    private final Http1ResponseParser parser = new Http1ResponseParser(lines);
    private final Http1ChunkedBody chunked = new Http1ChunkedBody(lines, -1);
    /** Finds the end of heads and trailer sections. */
    private final Http1SectionScanner scanner;
    private final Http1ResponseHead head;
    private final Http1ResponseTrailers trailers;

    private int state = HEAD;
    /** Responses expected, the one being decoded included. */
    private int expected;
    /** Bit i: expected response i answers a HEAD request. */
    private long headRequests;
    /** Bit i: expected response i answers a request that asked for an upgrade. */
    private long upgradeRequests;
    private int interimCount;
    private boolean keepAlive;
    /** Bytes left in the Content-Length body. */
    private long remaining;


    /** Default limits: 64 KiB head, 100 header fields. */
    public Http1ResponseDecoder() {
        this(DEFAULT_MAX_HEAD_SIZE, DEFAULT_MAX_HEADER_COUNT);
    }

    /**
     * @param maxHeadSize largest head (status line to final CRLF), also the largest trailer section
     * @param maxHeaderCount most header fields, also the most trailer fields
     */
    public Http1ResponseDecoder(int maxHeadSize, int maxHeaderCount) {
        if (maxHeadSize < 64 || maxHeaderCount < 1) {
            throw new IllegalArgumentException("invalid limits: head " + maxHeadSize + ", headers " + maxHeaderCount
                    + " (expected: head >= 64, headers >= 1)");
        }
        this.maxHeadSize = maxHeadSize;
        this.head = new Http1ResponseHead(maxHeaderCount);
        this.scanner = new Http1SectionScanner(maxHeadSize, Integer.MAX_VALUE);
        this.trailers = new Http1ResponseTrailers(maxHeaderCount);
    }

    /**
     * Called by the owner after writing a request, before its response can arrive. {@code headRequest}:
     * the response has no body (RFC 9112 section 6.3). {@code upgradeRequested}: the request asked for
     * Upgrade, so a 101 switches to tunnel mode. Call on the event loop.
     *
     * @throws IllegalStateException with {@link #MAX_PENDING} responses already expected
     */
    public void expectResponse(boolean headRequest, boolean upgradeRequested) {
        int i = expected;
        if (i == MAX_PENDING) {
            throw tooManyPending();
        }
        long bit = 1L << i;
        headRequests = headRequest ? headRequests | bit : headRequests & ~bit;
        upgradeRequests = upgradeRequested ? upgradeRequests | bit : upgradeRequests & ~bit;
        expected = i + 1;
    }

    /**
     * True when the last response ended cleanly, nothing else is buffered or expected, and the
     * connection may carry another request: keep-alive, not close-delimited, no error, not a tunnel,
     * input not closed. True for a connection that has not carried a response yet.
     */
    public boolean isReusable() {
        return state == HEAD && expected == 0 && actualReadableBytes() == 0;
    }

    /** True after a 101 to an upgrade request: every byte now is the tunnel's. */
    public boolean isTunnel() {
        return state == TUNNEL;
    }

    private static IllegalStateException tooManyPending() {
        return new IllegalStateException("more than " + MAX_PENDING + " responses expected at once");
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decodeOnce(in, out);
    }

    /** The input ended (close or input shutdown; may run twice): ends a close-delimited body or reports what was cut short. */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        endOfInput(in, out);
    }

    /**
     * One decoding step, free of channel types so that tests can drive it directly: consumes bytes
     * from {@code in} and adds at most a few messages to {@code out}. Returning with nothing consumed
     * means more bytes are needed (or a held head or trailers must be released first).
     */
    void decodeOnce(ByteBuf in, List<Object> out) {
        if (!in.isReadable()) {
            return;
        }
        switch (state) {
            case HEAD -> decodeHead(in, out);
            case CONTENT -> decodeContent(in, out);
            case CHUNKED -> decodeChunked(in, out);
            case TRAILERS -> decodeTrailers(in, out);
            case CLOSE_DELIMITED, TUNNEL -> out.add(in.readRetainedSlice(in.readableBytes()));
            case CLOSING -> fail(in, out, Http1Error.BYTES_AFTER_RESPONSE);
            default -> in.skipBytes(in.readableBytes());
        }
    }

    /** See {@link #decodeLast}; channel-free for tests. */
    void endOfInput(ByteBuf in, List<Object> out) {
        Http1Error error = switch (state) {
            case HEAD -> expected == 0 ? null
                    : in.isReadable() || interimCount > 0 ? Http1Error.CLOSED_IN_HEAD
                    : Http1Error.CLOSED_BEFORE_RESPONSE;
            case CONTENT, CHUNKED, TRAILERS -> Http1Error.CLOSED_IN_BODY;
            case CLOSE_DELIMITED -> closeDelimitedEnd(out);
            case CLOSING -> expected == 0 ? null : Http1Error.CLOSED_BEFORE_RESPONSE;
            default -> null;
        };
        if (error != null) {
            out.add(error);
        }
        in.skipBytes(in.readableBytes());
        state = DISCARD;
    }

    private Http1Error closeDelimitedEnd(List<Object> out) {
        out.add(Http1ResponseEnd.INSTANCE);
        dequeue();
        return expected == 0 ? null : Http1Error.CLOSED_BEFORE_RESPONSE;
    }

    // ---- head

    private void decodeHead(ByteBuf in, List<Object> out) {
        if (expected == 0) {
            fail(in, out, Http1Error.UNSOLICITED_BYTES);
            return;
        }
        if (head.isHeld()) {
            return;
        }
        int start = in.readerIndex();
        if (scanner.scanned() < STATUS_PREFIX_LENGTH && !Http1ResponseParser.isVersionPrefix(in, start, in.readableBytes())) {
            // also an empty line before the status line: upstreams have no reason to send one
            fail(in, out, Http1Error.NOT_HTTP_1);
            return;
        }
        int end = scanner.scan(in, start);
        if (end > 0) {
            emitHead(in, out, start, end);
        } else if (end == Http1SectionScanner.BARE_LF) {
            fail(in, out, Http1Error.BARE_LF);
        } else if (scanner.scanned() >= maxHeadSize) {
            fail(in, out, Http1Error.HEAD_TOO_LARGE);
        }
    }

    private void emitHead(ByteBuf in, List<Object> out, int start, int end) {
        Http1Error error = parser.parse(in, start, end, (headRequests & 1) != 0, head);
        if (error == null && head.status() == 101 && (upgradeRequests & 1) == 0) {
            error = Http1Error.UNREQUESTED_SWITCHING_PROTOCOLS;
        }
        if (error == null && head.isInformational() && ++interimCount > MAX_INTERIM_RESPONSES) {
            error = Http1Error.TOO_MANY_INTERIM_RESPONSES;
        }
        if (error != null) {
            fail(in, out, error);
            return;
        }
        head.buffer(in.retainedSlice(start, end - start));
        in.readerIndex(end);
        out.add(head);
        if (head.isInformational()) {
            return; // the final head of the same response follows
        }
        interimCount = 0;
        keepAlive = head.isKeepAlive();
        if (head.status() == 101) {
            dequeue();
            state = TUNNEL;
        } else if (!head.hasBody()) {
            endResponse(in, out);
        } else if (head.isChunked()) {
            chunked.reset();
            state = CHUNKED;
        } else if (head.isCloseDelimited()) {
            state = CLOSE_DELIMITED;
        } else {
            remaining = head.contentLength();
            state = CONTENT;
        }
    }

    /**
     * Emits the end marker and moves on. Bytes already buffered after the response are checked
     * here, before the consumer sees the end: they may only be the next pipelined response.
     */
    private void endResponse(ByteBuf in, List<Object> out) {
        out.add(Http1ResponseEnd.INSTANCE);
        dequeue();
        state = keepAlive ? HEAD : CLOSING;
        if (in.isReadable() && (!keepAlive || expected == 0)) {
            fail(in, out, Http1Error.BYTES_AFTER_RESPONSE);
        }
    }

    private void dequeue() {
        expected--;
        headRequests >>>= 1;
        upgradeRequests >>>= 1;
    }

    // ---- Content-Length body

    private void decodeContent(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(remaining, in.readableBytes());
        out.add(in.readRetainedSlice(n));
        remaining -= n;
        if (remaining == 0) {
            endResponse(in, out);
        }
    }

    // ---- chunked body (RFC 9112 section 7.1)

    private void decodeChunked(ByteBuf in, List<Object> out) {
        Http1Error error = chunked.decode(in, out);
        if (error != null) {
            fail(in, out, error);
        } else if (chunked.isLastChunkRead()) {
            state = TRAILERS;
        }
    }

    // ---- trailer section

    /** The whole trailer section at once (it is bounded like a head), then the end marker. */
    private void decodeTrailers(ByteBuf in, List<Object> out) {
        if (trailers.isHeld()) {
            return;
        }
        int start = in.readerIndex();
        int end = scanner.scan(in, start);
        if (end == Http1SectionScanner.BARE_LF) {
            fail(in, out, Http1Error.BARE_LF);
        } else if (end > 0) {
            emitTrailers(in, out, start, end);
        } else if (scanner.scanned() >= maxHeadSize) {
            fail(in, out, Http1Error.TRAILERS_TOO_LARGE);
        }
    }

    private void emitTrailers(ByteBuf in, List<Object> out, int start, int end) {
        trailers.reset();
        Http1Error error = lines.parseFields(in, start, end, trailers, start, Http1LineParser.NO_FACTS);
        if (error != null) {
            fail(in, out, error == Http1Error.TOO_MANY_HEADERS ? Http1Error.TOO_MANY_TRAILERS : error);
            return;
        }
        if (trailers.count() > 0) {
            trailers.buffer(in.retainedSlice(start, end - start));
            out.add(trailers);
        }
        in.readerIndex(end);
        endResponse(in, out);
    }

    private void fail(ByteBuf in, List<Object> out, Http1Error error) {
        in.skipBytes(in.readableBytes());
        state = DISCARD;
        out.add(error);
    }
}
