package io.paduraksa.server.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.http1.Http1Bytes;
import io.paduraksa.http1.Http1FieldSection;

/**
 * One decoded HTTP/1.1 request head: positions into the head's bytes plus the framing facts the
 * decoder derived from them. One instance per {@link Http1RequestDecoder} (so per connection),
 * reset for every request; nothing here allocates per request.
 *
 * <p><b>Bytes and lifetime.</b> {@link #buffer()} is a retained slice of the inbound bytes holding
 * exactly the head (request line through the empty line); every position is an index into it,
 * starting at 0. The consumer owns that reference and calls {@link #release()} when it no longer
 * reads the head (at once, for an answer from the gate; after writing the upstream head, for a
 * forwarded request). The decoder parses the next pipelined head only after the previous one was
 * released (see {@link Http1RequestDecoder#resume()}), so an unreleased head is never overwritten.
 * Body bytes flow independently of this.
 *
 * <p><b>Views.</b> {@link #method()}, {@link #target()}, {@link #host()}, {@link #authority()},
 * {@link #path()}, {@link #headerName(int)}
 * and {@link #headerValue(int)} each re-point one {@link AsciiView} owned by this head: a view stays
 * valid until the same accessor is called again, or the head is released. Read it, or copy the
 * positions, before asking again.
 *
 * <p>Field values are trimmed of leading and trailing OWS. Names keep the case the client sent;
 * compare them with {@link #findHeader} / {@link #nameEquals}, which fold ASCII case in place.
 */
public final class Http1RequestHead extends Http1FieldSection {
    /** {@link #version()} of an HTTP/1.0 request. */
    public static final int HTTP_1_0 = 10;
    /** {@link #version()} of an HTTP/1.1 request. */
    public static final int HTTP_1_1 = 11;

    /** request-target forms of RFC 9112 section 3.2. {@code /path?query}. */
    public static final int ORIGIN_FORM = 0;
    /** {@code http://a.test/x}: scheme "://" authority, then the path; see {@link #authority()} and {@link #path()}. */
    public static final int ABSOLUTE_FORM = 1;
    /** {@code host:port}, only with CONNECT (which the consumer refuses). */
    public static final int AUTHORITY_FORM = 2;
    /** {@code *}, only with OPTIONS. */
    public static final int ASTERISK_FORM = 3;

    private static final int INITIAL_HEADER_CAPACITY = 32;
    /** The path of an absolute-form target without one ({@code http://a.test}). */
    private static final AsciiString ROOT = AsciiString.cached("/");

    private int methodEnd;
    private int targetStart;
    private int targetEnd;
    private int targetForm;
    /** Within the target: the authority of an absolute-form target (else -1) and the path the gate routes on. */
    private int authorityStart;
    private int authorityEnd;
    private int pathStart;
    private int pathEnd;
    private int version;
    private long contentLength;
    private boolean chunked;
    private boolean keepAlive;
    private boolean expectContinue;
    private boolean upgradeWebSocket;
    private int hostIndex;

    private final AsciiView methodView = new AsciiView();
    private final AsciiView targetView = new AsciiView();
    private final AsciiView hostView = new AsciiView();
    private final AsciiView authorityView = new AsciiView();
    private final AsciiView pathView = new AsciiView();

    Http1RequestHead(int maxHeaderCount) {
        super(maxHeaderCount, INITIAL_HEADER_CAPACITY);
        reset();
    }

    // ---- request line

    /** Always 0: the head starts with the method. */
    public int methodStart() {
        return 0;
    }

    public int methodEnd() {
        return methodEnd;
    }

    public int targetStart() {
        return targetStart;
    }

    public int targetEnd() {
        return targetEnd;
    }

    /** {@link #ORIGIN_FORM}, {@link #ABSOLUTE_FORM}, {@link #AUTHORITY_FORM} or {@link #ASTERISK_FORM}. */
    public int targetForm() {
        return targetForm;
    }

    /** {@link #HTTP_1_0} or {@link #HTTP_1_1}. */
    public int version() {
        return version;
    }

    /** Whether the method is exactly {@code method} (methods are case-sensitive, RFC 9110 section 9.1). */
    public boolean isMethod(AsciiString method) {
        return methodEnd == method.length() && Http1Bytes.equalsExact(buffer(), 0, method);
    }

    /** The method, through the head's method view. */
    public AsciiView method() {
        return methodView.point(buffer(), 0, methodEnd);
    }

    /** The request-target as sent (path and query for origin-form), through the head's target view. */
    public AsciiView target() {
        return targetView.point(buffer(), targetStart, targetEnd);
    }

    /**
     * The authority the request is for, through the head's authority view: the one in an
     * absolute-form target (RFC 9112 3.2.2: it wins over Host), else the Host value; null when
     * there is neither (HTTP/1.0 without Host).
     */
    public AsciiView authority() {
        if (authorityStart >= 0) {
            return authorityView.point(buffer(), authorityStart, authorityEnd);
        }
        return hostIndex < 0 ? null : authorityView.point(buffer(), headerValueStart(hostIndex), headerValueEnd(hostIndex));
    }

    /**
     * The path and query the gate routes on, through the head's path view: the whole target in
     * origin- and asterisk-form; in absolute-form what follows the authority, {@code /} when nothing
     * does, and null when a query follows the authority without a path ({@code http://a.test?q}).
     */
    public CharSequence path() {
        if (pathStart < 0) {
            return null;
        }
        return pathStart == pathEnd ? ROOT : pathView.point(buffer(), pathStart, pathEnd);
    }

    // ---- framing facts

    /** Index of the single Host header, or -1 (only possible for HTTP/1.0). */
    public int hostIndex() {
        return hostIndex;
    }

    /** The Host value through the head's host view; empty when there is no Host header. */
    public AsciiView host() {
        return hostIndex < 0 ? hostView.clear() : hostView.point(buffer(), headerValueStart(hostIndex), headerValueEnd(hostIndex));
    }

    /** Declared Content-Length, or -1 when there is none. */
    public long contentLength() {
        return contentLength;
    }

    /** Transfer-Encoding: chunked (the only coding accepted). */
    public boolean isChunked() {
        return chunked;
    }

    /**
     * Whether body messages and an {@link Http1RequestEnd} follow this head: chunked, or
     * Content-Length above 0. Otherwise the head is the whole request.
     */
    public boolean hasBody() {
        return chunked || contentLength > 0;
    }

    /**
     * Whether the connection may stay open after this request: HTTP/1.1 without a {@code close}
     * connection option, or HTTP/1.0 with {@code keep-alive} and without {@code close}. When false the
     * decoder ignores everything after this request (RFC 9112 section 9.6).
     */
    public boolean isKeepAlive() {
        return keepAlive;
    }

    /** HTTP/1.1 with {@code Expect: 100-continue} (ignored in HTTP/1.0, RFC 9110 section 10.1.1). */
    public boolean isExpectContinue() {
        return expectContinue;
    }

    /**
     * {@code Upgrade} lists {@code websocket} and {@code Connection} lists {@code upgrade}. To take
     * the upgrade, the consumer removes the decoder from the pipeline while handling this head; the
     * decoder then passes the bytes after the head on unparsed.
     */
    public boolean isUpgradeWebSocket() {
        return upgradeWebSocket;
    }

    /** For logs and tests only: allocates. */
    @Override
    public String toString() {
        if (!isHeld()) {
            return "Http1RequestHead(released)";
        }
        StringBuilder sb = new StringBuilder("Http1RequestHead(").append(method()).append(' ').append(target())
                .append(version == HTTP_1_1 ? " HTTP/1.1" : " HTTP/1.0");
        return appendFields(sb, ", ").append(')').toString();
    }

    // ---- written by the parser

    void reset() {
        clearFields();
        methodEnd = 0;
        targetStart = 0;
        targetEnd = 0;
        targetForm = ORIGIN_FORM;
        authorityStart = -1;
        authorityEnd = -1;
        pathStart = 0;
        pathEnd = 0;
        version = 0;
        contentLength = -1;
        chunked = false;
        keepAlive = false;
        expectContinue = false;
        upgradeWebSocket = false;
        hostIndex = -1;
    }

    void requestLine(int methodEnd, int targetStart, int targetEnd, int targetForm, int version) {
        this.methodEnd = methodEnd;
        this.targetStart = targetStart;
        this.targetEnd = targetEnd;
        this.targetForm = targetForm;
        this.version = version;
        this.pathStart = targetStart;
        this.pathEnd = targetEnd;
    }

    /** An absolute-form target's parts: its authority, and where its path starts (-1: none may be mapped). */
    void absoluteTarget(int authorityStart, int authorityEnd, int pathStart) {
        this.authorityStart = authorityStart;
        this.authorityEnd = authorityEnd;
        this.pathStart = pathStart;
    }

    void framing(long contentLength, boolean chunked, boolean keepAlive, boolean expectContinue,
            boolean upgradeWebSocket, int hostIndex) {
        this.contentLength = contentLength;
        this.chunked = chunked;
        this.keepAlive = keepAlive;
        this.expectContinue = expectContinue;
        this.upgradeWebSocket = upgradeWebSocket;
        this.hostIndex = hostIndex;
    }

    void buffer(ByteBuf buffer) {
        hold(buffer);
    }
}
