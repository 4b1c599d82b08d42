package io.paduraksa.server.http1;

import static io.paduraksa.http1.Http1Names.CONNECTION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.http1.AsciiView;
import io.paduraksa.http1.Http1LineRun;
import io.paduraksa.http1.WebSocketAccept;
import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardCall;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.proxy.http1.Http1ResponseHead;
import io.paduraksa.respond.AsciiNumbers;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.RateLimitFields;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;
import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * The forwarded request of an HTTP/1.1 connection, as the forwarder sees it: one per connection
 * (a connection has at most one request in flight; pipelined ones wait in the decoder), reused by
 * every forwarded request. The upstream head is written from the client's head bytes; the response
 * head is written from the upstream's head bytes, both filtered by the snapshot's rules, so neither
 * direction makes a String or a header object. Response bodies without a length are sent chunked
 * (or close-delimited to an HTTP/1.0 client). Runs on the connection's event loop; allocates
 * nothing per request beyond the buffers it writes, when the upstream spoke HTTP/1.1 (a head from an
 * HTTP/2 upstream is written field by field from its header objects).
 *
 * <p>No lifecycle of its own: where the request is (forwarding, responding, tunnel, ended) is the
 * {@link Http1GateHandler.Phase phase} of the connection's handler, which routes the request body
 * here and which the forwarder's calls consult; a call after the request ended does nothing. What
 * it keeps is the forwarder's side: the call, the body held until the upstream takes it, the
 * response framing.
 *
 * <p>WebSocket: a handshake is forwarded with its Upgrade fields; on {@code 101} the head goes out
 * with {@code Connection: Upgrade}, the request decoder leaves the pipeline (what it buffered is
 * passed on as raw bytes) and the connection is a tunnel until either side closes. (HTTP/2 clients'
 * WebSockets, RFC 8441 extended CONNECT, are {@code server.http2.Http2Exchange}'s.)
 */
final class Http1Exchange implements ForwardExchange {
    private static final byte[] HTTP_1_1 = "HTTP/1.1 ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "Content-Length: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHUNKED = "Transfer-Encoding: chunked\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n'};
    private static final AsciiString CONTENT_LENGTH_NAME = AsciiString.cached("content-length");
    private static final AsciiString UPGRADE = AsciiString.cached("upgrade");
    private static final byte[] CONNECTION_UPGRADE = "Connection: Upgrade\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UPGRADE_WEBSOCKET = "Upgrade: websocket\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACCEPT_NAME = "Sec-WebSocket-Accept: ".getBytes(StandardCharsets.US_ASCII);
    private static final AsciiString SEC_WEBSOCKET_KEY = AsciiString.cached("sec-websocket-key");
    /** A Sec-WebSocket-Key is 16 random bytes in base64 (RFC 6455 4.1). */
    private static final int WEBSOCKET_KEY_LENGTH = 24;
    private static final AsciiString SEC_WEBSOCKET_ACCEPT = AsciiString.cached("sec-websocket-accept");
    private static final byte[] COLON_SPACE = {':', ' '};
    private static final int CRLF = ('\r' << 8) | '\n';
    /** A body piece up to this many bytes joins the pending head; the head with its pieces stays under {@link #PENDING_MAX}. */
    static final int COALESCE_LIMIT = 2048;
    static final int PENDING_MAX = 16 * 1024;
    /** Room a chunk's framing takes: up to 16 hex digits and two CRLFs. */
    private static final int CHUNK_FRAMING = 20;

    private final Http1GateHandler handler;
    private final Http1LineRun lineRun = new Http1LineRun();
    /**
     * Body chunks that arrived before the upstream could take them (while a policy waited, or before
     * the upstream head was written); allocated on first use.
     */
    private ArrayDeque<ByteBuf> held;
    private ChannelHandlerContext ctx;
    private Http1RequestHead head;
    private ForwardCall call;
    private long bodyLength;
    /** The response body goes out chunked (its length is unknown, the client speaks HTTP/1.1). */
    private boolean chunkedDown;
    /**
     * The response head not handed to the channel yet, with the small body pieces (and their chunk
     * framing) that follow it before the client's next flush: a small response leaves in one buffer and
     * one {@code send} instead of a {@code writev} of head and body (docs/benchmarks-e2e.md: 0.12 µs more
     * per call on loopback). Handed over before a larger piece, at a flush, at the end and on abort;
     * released if the client closes first.
     */
    private ByteBuf pending;

    Http1Exchange(Http1GateHandler handler) {
        this.handler = handler;
    }

    /** A request goes to the forwarder: remember what the response writing needs. A held body stays. */
    void begin(ChannelHandlerContext ctx, Http1RequestHead head) {
        this.ctx = ctx;
        this.head = head;
        this.bodyLength = !head.hasBody() ? 0 : head.isChunked() ? -1 : head.contentLength();
        this.chunkedDown = false;
        this.call = null;
    }

    // ---- from the connection handler, which owns the phase and calls these only when they apply ----

    void hold(ByteBuf chunk) {
        if (held == null) {
            held = new ArrayDeque<>(4);
        }
        held.addLast(chunk);
    }

    boolean hasHeldBody() {
        return held != null && !held.isEmpty();
    }

    /** The upstream head is written: what was held goes up. */
    void sendHeld() {
        ForwardCall c = call;
        ArrayDeque<ByteBuf> h = held;
        if (h != null) {
            ByteBuf b;
            while ((b = h.pollFirst()) != null) {
                c.requestBody(b);
            }
        }
    }

    void sendBody(ByteBuf chunk) {
        call.requestBody(chunk);
    }

    void endBody() {
        call.requestEnd();
    }

    /**
     * The decoder refused the rest of the body (413 past {@code max_body_size}, or broken chunk
     * framing): nothing more of it goes up, the forwarder abandons the upstream request and answers
     * {@code status} (or cuts the response off when it started). False when no call is attached.
     */
    boolean refuseBody(int status) {
        ForwardCall c = call;
        if (c == null) {
            return false;
        }
        c.requestRefused(status);
        return true;
    }

    /** The client connection closed; {@code forwarding}: the forwarder still has the request. */
    void clientClosed(boolean forwarding) {
        releasePending();
        releaseHeld();
        ForwardCall c = call;
        call = null;
        if (forwarding && c != null) {
            c.clientClosed();
        }
    }

    void clientWritable() {
        if (call != null && ctx.channel().isWritable()) {
            call.clientWritable();
        }
    }

    /** The forwarder is done with the request (the handler changes the phase). */
    void end() {
        call = null;
        releasePending();
        releaseHeld();
    }

    /** Hands the pending head (and what joined it) to the channel. */
    private void writePending() {
        ByteBuf p = pending;
        if (p != null) {
            pending = null;
            ctx.write(p, ctx.voidPromise());
        }
    }

    private void releasePending() {
        ByteBuf p = pending;
        if (p != null) {
            pending = null;
            p.release();
        }
    }

    /** Whether {@code n} more bytes join the pending head. */
    private boolean joinsPending(int n) {
        ByteBuf p = pending;
        return p != null && n <= COALESCE_LIMIT && p.readableBytes() + n <= PENDING_MAX;
    }

    void releaseHeld() {
        ArrayDeque<ByteBuf> h = held;
        if (h != null) {
            ByteBuf b;
            while ((b = h.pollFirst()) != null) {
                b.release();
            }
        }
    }

    // ---- ForwardExchange: the forwarder's calls, acted on only while the handler is forwarding ----

    @Override
    public void answer(PrecomputedResponse response) {
        if (handler.isForwarding()) {
            handler.answerForwarded(response);
        }
    }

    @Override
    public boolean isOpen() {
        return handler.isForwarding() && ctx.channel().isActive();
    }

    @Override
    public EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    @Override
    public long requestBodyLength() {
        return bodyLength;
    }

    @Override
    public boolean isUpgradeRequest() {
        return head.isUpgradeWebSocket();
    }

    @Override
    public boolean hasWebSocketKey() {
        Http1RequestHead h = head;
        int key = h.findHeader(SEC_WEBSOCKET_KEY);
        return key >= 0 && h.headerValueEnd(key) - h.headerValueStart(key) == WEBSOCKET_KEY_LENGTH;
    }

    @Override
    public void offerRequestFields(FieldSink sink, ForwardingRules rules) {
        Http1RequestHead h = head;
        ByteBuf bytes = h.buffer();
        boolean trusted = handler.state().isPeerTrustedProxy();
        boolean underscores = h.hasUnderscoreNames();
        for (int i = 0, n = h.headerCount(); i < n; i++) {
            AsciiView name = h.headerName(i);
            if (ForwardingFields.isForwarded(name, rules, trusted, underscores) && !h.isConnectionOption(name)) {
                sink.line(bytes, h.headerNameStart(i), h.headerNameEnd(i), h.headerValueStart(i), h.headerValueEnd(i));
            }
        }
    }

    @Override
    public void attach(ForwardCall call) {
        this.call = call;
    }

    @Override
    public void requestBodyReady() {
        handler.upstreamReady();
    }

    @Override
    public void pauseRequestBody(boolean pause) {
        handler.upstreamFull(pause);
    }

    @Override
    public void interimResponse(ResponseHead interim) {
        if (!handler.isHttp10() && interim.status() == 100) {
            ctx.write(ctx.alloc().ioBuffer(CONTINUE.length).writeBytes(CONTINUE), ctx.voidPromise());
            ctx.flush();
        }
        // 103 Early Hints and others are dropped: optional, and old HTTP/1.1 clients mishandle them.
    }

    @Override
    public void responseHead(ResponseHead h, ResponseHeaderRules rules, byte[] extraLine) {
        if (!handler.isForwarding()) {
            return; // the forward ended (answered, aborted, closed): its request state is gone
        }
        handler.responseStarted(h.status());
        writePending();
        if (h.status() == 101) {
            writeSwitchingProtocols(h, rules);
            return;
        }
        pending = encodeHead(h, rules, extraLine, 0);
    }

    /**
     * A cache hit: the head and a body of up to {@link Http1GateHandler#COPY_BODY_LIMIT} bytes in one
     * buffer and one write, as a gate answer is written; a larger body follows as a retained duplicate.
     */
    @Override
    public void storedResponse(ResponseHead h, ResponseHeaderRules rules, ByteBuf body) {
        handler.responseStarted(h.status());
        writePending(); // whatever was written before keeps its place
        int n = body == null || handler.isHeadRequest() ? 0 : body.readableBytes();
        boolean copy = n <= Http1GateHandler.COPY_BODY_LIMIT;
        ByteBuf out = encodeHead(h, rules, null, copy ? n : 0);
        if (copy && n > 0) {
            out.writeBytes(body, body.readerIndex(), n);
        }
        ctx.write(out, ctx.voidPromise());
        if (!copy) {
            ctx.write(body.retainedDuplicate(), ctx.voidPromise());
        }
        handler.sent(n);
        handler.forwardDone();
    }

    /** The response head as bytes, with room for {@code room} more (a body copied after it). */
    private ByteBuf encodeHead(ResponseHead h, ResponseHeaderRules rules, byte[] extraLine, int room) {
        byte[] own = rules.http1Lines();
        RequestState state = handler.state();
        boolean rateLimit = state.hasRateLimit();
        ForwardingRules forwarding = state.snapshot().forwarding();
        boolean echo = forwarding.echoForwardedRequestId();
        byte[] altSvc = handler.altSvcLine();
        int extra = own.length + (rateLimit ? RateLimitFields.MAX_HTTP1_LENGTH : 0)
                + (echo ? ForwardingFields.maxEchoLineLength(forwarding) : 0) + (altSvc != null ? altSvc.length : 0) + room;
        ByteBuf out;
        if (h instanceof Http1ResponseHead h1) {
            out = ctx.alloc().ioBuffer(h1.buffer().readableBytes() + extra + 64);
            writeHttp1Head(out, h1, rules, rateLimit);
        } else {
            byte[] lines = h.http1Lines(rules, rateLimit);
            int from = 0;
            if (lines != null) {
                out = ctx.alloc().ioBuffer(lines.length + extra + 128);
                out.writeBytes(lines); // a stored response: status line and fields in one copy, as a gate answer
                from = h.http1LineCount();
            } else {
                out = ctx.alloc().ioBuffer(1024 + extra);
                writeStatusLine(out, h.status());
            }
            for (int i = from, n = h.headerCount(); i < n; i++) {
                CharSequence name = h.headerName(i);
                if (!rules.isRemoved(name) && !isFraming(name) && !(rateLimit && RateLimitFields.isField(name))) {
                    writeField(out, name, h.headerValue(i));
                }
            }
        }
        out.writeBytes(own);
        if (echo) {
            ForwardingFields.writeEchoLine(out, state, forwarding); // the upstream's own copy was removed by the rules
        }
        if (rateLimit) {
            RateLimitFields.writeHttp1(out, state.rateLimitLimit(), state.rateLimitRemaining(), state.rateLimitReset());
        }
        if (extraLine != null) {
            out.writeBytes(extraLine);
        }
        if (altSvc != null) {
            out.writeBytes(altSvc); // the listener serves HTTP/3 (an upstream's own Alt-Svc is passed on too)
        }
        writeFraming(out, h);
        out.writeShort(CRLF);
        return out;
    }

    /**
     * The upstream's head bytes copied as they came, consecutive kept lines at once: no String, no
     * header object. With our own {@code RateLimit-*} fields ({@code rateLimit}) the upstream's are
     * left out, so each is sent once.
     */
    private void writeHttp1Head(ByteBuf out, Http1ResponseHead h, ResponseHeaderRules rules, boolean rateLimit) {
        ByteBuf src = h.buffer();
        out.writeBytes(HTTP_1_1);
        Http1ResponseWriting.writeStatus(out, h.status());
        out.writeByte(' ');
        out.writeBytes(src, h.reasonStart(), h.reasonEnd() - h.reasonStart());
        out.writeShort(CRLF);
        lineRun.reset(); // a head written before may have ended by an exception
        for (int i = 0, n = h.headerCount(); i < n; i++) {
            CharSequence name = h.headerName(i);
            if (rules.isRemoved(name) || h.isConnectionOption(name) || isFraming(name) || (rateLimit && RateLimitFields.isField(name))) {
                continue;
            }
            lineRun.add(out, src, h.headerNameStart(i), h.headerValueEnd(i));
        }
        lineRun.flush(out);
    }

    /** A status line for a head without a reason phrase (HTTP/2): the standard phrase. */
    private static void writeStatusLine(ByteBuf out, int status) {
        out.writeBytes(HTTP_1_1);
        Http1ResponseWriting.writeStatus(out, status);
        out.writeByte(' ');
        ByteBufUtil.writeAscii(out, HttpResponseStatus.valueOf(status).reasonPhrase()); // cached for known codes
        out.writeShort(CRLF);
    }

    private static void writeField(ByteBuf out, CharSequence name, CharSequence value) {
        TextBytes.write(out, name);
        out.writeBytes(COLON_SPACE);
        TextBytes.write(out, value);
        out.writeShort(CRLF);
    }

    /**
     * The upstream accepted the WebSocket handshake: its 101 with the fields the handshake needs
     * (Upgrade, Sec-WebSocket-*), Connection: Upgrade, no framing. The tunnel starts in {@link #upgraded}.
     */
    private void writeSwitchingProtocols(ResponseHead h, ResponseHeaderRules rules) {
        ByteBuf out = ctx.alloc().ioBuffer(512);
        writeStatusLine(out, 101);
        for (int i = 0, n = h.headerCount(); i < n; i++) {
            CharSequence name = h.headerName(i);
            if (CONNECTION.contentEqualsIgnoreCase(name) || isFraming(name)
                    || (!UPGRADE.contentEqualsIgnoreCase(name) && rules.isRemoved(name))) {
                continue;
            }
            writeField(out, name, h.headerValue(i));
        }
        out.writeBytes(CONNECTION_UPGRADE);
        out.writeShort(CRLF);
        ctx.write(out, ctx.voidPromise());
        ctx.flush();
    }

    /**
     * An HTTP/2 upstream accepted the WebSocket as an extended CONNECT (RFC 8441): that side has no
     * key, so the client's handshake is answered here, RFC 6455 4.2.2: {@code 101}, {@code Upgrade},
     * {@code Connection}, the {@code Sec-WebSocket-Accept} for the client's own key, and the
     * upstream's other fields (its {@code Sec-WebSocket-Protocol} and {@code -Extensions}).
     */
    @Override
    public void webSocketAccepted(ResponseHead h, ResponseHeaderRules rules) {
        handler.responseStarted(101);
        writePending();
        ByteBuf out = ctx.alloc().ioBuffer(512);
        writeStatusLine(out, 101);
        for (int i = 0, n = h.headerCount(); i < n; i++) {
            CharSequence name = h.headerName(i);
            if (CONNECTION.contentEqualsIgnoreCase(name) || UPGRADE.contentEqualsIgnoreCase(name) || isFraming(name)
                    || SEC_WEBSOCKET_ACCEPT.contentEqualsIgnoreCase(name) || rules.isRemoved(name)) {
                continue;
            }
            writeField(out, name, h.headerValue(i));
        }
        out.writeBytes(UPGRADE_WEBSOCKET);
        out.writeBytes(ACCEPT_NAME);
        byte[] accept = new byte[WebSocketAccept.LENGTH];
        Http1RequestHead rh = head;
        int key = rh.findHeader(SEC_WEBSOCKET_KEY);
        if (key >= 0) {
            WebSocketAccept.compute(rh.buffer(), rh.headerValueStart(key), rh.headerValueEnd(key), accept);
        } else {
            WebSocketAccept.compute(accept, 0, accept); // not reached: without a key ForwardCall answers 400 first
        }
        out.writeBytes(accept);
        out.writeShort(CRLF);
        out.writeBytes(CONNECTION_UPGRADE);
        out.writeShort(CRLF);
        ctx.write(out, ctx.voidPromise());
        ctx.flush();
    }

    @Override
    public void upgraded() {
        chunkedDown = false;
        handler.upgraded();
    }

    private void writeFraming(ByteBuf out, ResponseHead h) {
        boolean close = handler.closesAfterResponse();
        boolean http10 = handler.isHttp10();
        boolean chunked = h instanceof Http1ResponseHead h1 && h1.isChunked();
        if (h.hasBody() && !handler.isHeadRequest()) {
            if (h.contentLength() >= 0 && !chunked) {
                writeContentLength(out, h.contentLength());
            } else if (http10) {
                close = true; // an HTTP/1.0 client cannot read chunked: the close ends the body
            } else {
                chunkedDown = true;
                out.writeBytes(CHUNKED);
            }
        } else if (h.contentLength() >= 0 && h.status() != 204 && h.status() >= 200) {
            writeContentLength(out, h.contentLength()); // HEAD and 304 keep the length they describe
        }
        if (close) {
            handler.closeAfterResponse();
            out.writeBytes(CLOSE);
        } else if (http10) {
            out.writeBytes(KEEP_ALIVE);
        }
    }

    private static void writeContentLength(ByteBuf out, long length) {
        out.writeBytes(CONTENT_LENGTH);
        AsciiNumbers.writeDecimal(out, length);
        out.writeShort(CRLF);
    }

    /**
     * The upstream's Content-Length: written again by {@link #writeFraming} for the body this side
     * sends. Transfer-Encoding needs no check of its own: it is hop-by-hop, so the rules remove it.
     */
    private static boolean isFraming(CharSequence name) {
        return CONTENT_LENGTH_NAME.contentEqualsIgnoreCase(name);
    }

    @Override
    public void responseBody(ByteBuf chunk) {
        if (handler.isHeadRequest() || !handler.isForwarding()) {
            chunk.release();
            return;
        }
        int n = chunk.readableBytes();
        if (n == 0) {
            chunk.release();
            return;
        }
        handler.sent(n);
        if (joinsPending(n + (chunkedDown ? CHUNK_FRAMING : 0))) {
            ByteBuf p = pending;
            if (chunkedDown) {
                writeChunkSize(p, n);
                p.writeBytes(chunk);
                p.writeShort(CRLF);
            } else {
                p.writeBytes(chunk);
            }
            chunk.release();
            return;
        }
        writePending();
        if (chunkedDown) {
            ctx.write(writeChunkSize(ctx.alloc().ioBuffer(10), n), ctx.voidPromise());
            ctx.write(chunk, ctx.voidPromise());
            ctx.write(ctx.alloc().ioBuffer(2).writeShort(CRLF), ctx.voidPromise());
        } else {
            ctx.write(chunk, ctx.voidPromise());
        }
    }

    /** Appends a chunk's size line ({@code n} in hex, CRLF) to {@code out}; returns it. */
    private static ByteBuf writeChunkSize(ByteBuf out, int n) {
        AsciiNumbers.writeHex(out, n);
        return out.writeShort(CRLF);
    }

    @Override
    public boolean isWritable() {
        return ctx.channel().isWritable();
    }

    @Override
    public void flush() {
        writePending();
        ctx.flush();
    }

    @Override
    public void responseEnd(ResponseTrailers trailers) {
        if (!handler.isForwarding()) {
            return;
        }
        if (chunkedDown) {
            ByteBuf out = pending != null ? pending : ctx.alloc().ioBuffer(64);
            pending = null;
            out.writeBytes(LAST_CHUNK);
            if (trailers != null) {
                Http1ResponseWriting.writeTrailers(out, trailers);
            }
            out.writeShort(CRLF);
            ctx.write(out, ctx.voidPromise());
        }
        writePending();
        handler.forwardDone();
    }

    @Override
    public void abort() {
        if (handler.isForwarding()) {
            writePending();
            handler.forwardAborted();
        }
    }
}
