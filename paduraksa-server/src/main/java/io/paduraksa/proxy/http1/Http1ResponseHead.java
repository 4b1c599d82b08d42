package io.paduraksa.proxy.http1;

import io.netty.buffer.ByteBuf;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.http1.Http1FieldSection;
import io.paduraksa.proxy.ResponseHead;

/**
 * One decoded HTTP/1.x response head from an upstream: positions into the head's bytes plus the
 * framing facts the decoder derived from them. One instance per {@link Http1ResponseDecoder} (so per
 * upstream connection), reset for every head, interim ones included; nothing here allocates per
 * response.
 *
 * <p><b>Bytes and lifetime.</b> {@link #buffer()} is a retained slice of the inbound bytes holding
 * exactly the head (status line through the empty line); every position is an index into it,
 * starting at 0. The consumer owns that reference and calls {@link #release()} when done with the
 * head. The decoder parses the next head (the final one after a 1xx, or the next pipelined
 * response) only once this one was released (see {@link Http1ResponseDecoder#resume()}). Body bytes
 * flow independently of this.
 *
 * <p><b>Views.</b> {@link #reason()}, {@link #headerName(int)} and {@link #headerValue(int)} each
 * re-point one {@link AsciiView} owned by this head: a view stays valid until the same accessor is
 * called again or the head is released. To copy bytes without views, use the position accessors
 * with {@link #buffer()}.
 *
 * <p><b>Framing.</b> {@link #contentLength()} and {@link #isChunked()} say what the upstream
 * declared (a HEAD or 304 response may declare a length it does not send); {@link #hasBody()} and
 * {@link #isCloseDelimited()} say what the decoder does (RFC 9112 section 6.3).
 */
public final class Http1ResponseHead extends Http1FieldSection implements ResponseHead {
    /** {@link #version()} of an HTTP/1.0 response. */
    public static final int HTTP_1_0 = 10;
    /** {@link #version()} of an HTTP/1.1 response. */
    public static final int HTTP_1_1 = 11;

    /** The status line is {@code HTTP/1.x SP DIGIT DIGIT DIGIT}: fixed positions. */
    public static final int STATUS_START = 9;
    public static final int STATUS_END = 12;

    private static final int INITIAL_HEADER_CAPACITY = 32;

    private int version;
    private int status;
    private int reasonStart;
    private int reasonEnd;
    private long contentLength;
    private boolean chunked;
    private boolean keepAlive;
    private boolean hasBody;
    private boolean closeDelimited;

    private final AsciiView reasonView = new AsciiView();

    Http1ResponseHead(int maxHeaderCount) {
        super(maxHeaderCount, INITIAL_HEADER_CAPACITY);
        reset();
    }

    // ---- status line: HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 section 4)

    /** {@link #HTTP_1_0} or {@link #HTTP_1_1}. */
    public int version() {
        return version;
    }

    /** 100 to 599. */
    public int status() {
        return status;
    }

    /** An interim head (1xx other than 101): the final head of the same response follows. */
    public boolean isInformational() {
        return status < 200 && status != 101;
    }

    /** Start of the reason phrase; equals {@link #reasonEnd()} when the phrase is empty or absent. */
    public int reasonStart() {
        return reasonStart;
    }

    /** End of the reason phrase (index of the status line's CR). */
    public int reasonEnd() {
        return reasonEnd;
    }

    /** The reason phrase as sent (may be empty), through the head's reason view. */
    public AsciiView reason() {
        return reasonView.point(buffer(), reasonStart, reasonEnd);
    }

    // ---- header fields

    // ---- framing facts

    /** Declared Content-Length, or -1 when there is none. */
    public long contentLength() {
        return contentLength;
    }

    /** Transfer-Encoding ends in chunked (the only final coding accepted). */
    public boolean isChunked() {
        return chunked;
    }

    /**
     * Whether body messages may follow this head: false for interim heads, 101, 204, 304 and any
     * response to HEAD whatever they declare, and for Content-Length 0.
     */
    public boolean hasBody() {
        return hasBody;
    }

    /** The body has neither Content-Length nor chunked framing: it ends when the connection closes. */
    public boolean isCloseDelimited() {
        return closeDelimited;
    }

    /**
     * Whether the connection may carry another response after this one: HTTP/1.1 without a
     * {@code close} connection option, or HTTP/1.0 with {@code keep-alive} and without {@code close};
     * always false for a close-delimited body.
     */
    public boolean isKeepAlive() {
        return keepAlive;
    }

    /** For logs and tests only: allocates. */
    @Override
    public String toString() {
        if (!isHeld()) {
            return "Http1ResponseHead(released)";
        }
        StringBuilder sb = new StringBuilder("Http1ResponseHead(").append(version == HTTP_1_1 ? "HTTP/1.1 " : "HTTP/1.0 ")
                .append(status).append(' ').append(reason());
        return appendFields(sb, ", ").append(')').toString();
    }

    // ---- written by the parser

    void reset() {
        clearFields();
        version = 0;
        status = 0;
        reasonStart = 0;
        reasonEnd = 0;
        contentLength = -1;
        chunked = false;
        keepAlive = false;
        hasBody = false;
        closeDelimited = false;
    }

    void statusLine(int version, int status, int reasonStart, int reasonEnd) {
        this.version = version;
        this.status = status;
        this.reasonStart = reasonStart;
        this.reasonEnd = reasonEnd;
    }

    void framing(long contentLength, boolean chunked, boolean keepAlive, boolean hasBody, boolean closeDelimited) {
        this.contentLength = contentLength;
        this.chunked = chunked;
        this.keepAlive = keepAlive;
        this.hasBody = hasBody;
        this.closeDelimited = closeDelimited;
    }

    void buffer(ByteBuf buffer) {
        hold(buffer);
    }
}
