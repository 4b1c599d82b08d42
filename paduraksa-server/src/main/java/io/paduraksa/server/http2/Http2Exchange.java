package io.paduraksa.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.netty.util.Recycler;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.ops.AccessLog;
import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardCall;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.RateLimitFields;
import io.paduraksa.server.cycle.ProtocolExchange;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;
import java.util.Map;

/**
 * Per-stream request state for HTTP/2: the gate's {@link RequestState} and view, taken from a
 * {@link Recycler} when a stream's headers arrive and returned when the request ends, so two live
 * streams never share one. On the event loop, taking and returning allocate nothing.
 *
 * <p>For a forwarded stream it is also the {@link ForwardExchange}: the request's decoded fields
 * are offered to the upstream side, which writes them in its protocol (an HTTP/1.1 upstream joins
 * several {@code cookie} fields with "; ", RFC 9113 8.2.3), DATA frames stream up with HTTP/2
 * flow control as back-pressure (bytes are returned to the client's window only while the
 * upstream connection is writable), and the
 * upstream's response becomes HEADERS, DATA and trailing HEADERS. The response head costs Netty
 * header objects (lower-cased names, copied values); the rest allocates nothing per request.
 *
 * <p><b>One phase per stream.</b> Where the stream's request is, is its {@link Phase}, held here
 * and changed only by the transitions below; the handler's maps only index the streams it must
 * route frames to (forwarded ones, and those whose policy waits, with their held body).
 * <pre>
 * GATE --answer, drop--&gt; DONE
 *  |  ^-- WAITING_FOR_POLICY (an asynchronous policy decides; DATA is held by the handler)
 *  +--forward--&gt; FORWARDING --upstream head written--&gt; FORWARDING_BODY --response head--&gt; RESPONDING
 *                 --end, abort, the forwarder's own answer, the client's reset--&gt; DONE
 *                                                  RESPONDING --101 accepted--&gt; TUNNEL --either side ends--&gt; DONE
 * </pre>
 * Besides the phase only facts: a HEAD request, whether the request's END_STREAM has come, and the
 * upstream's back-pressure.
 *
 * <p><b>WebSocket over HTTP/2</b> (RFC 8441): an extended CONNECT the gate let through goes to an
 * HTTP/1.1 upstream as the usual handshake ({@code GET}, {@code Upgrade: websocket}, a fresh
 * {@code Sec-WebSocket-Key} from {@link WebSocketHandshake}, the client's
 * {@code Sec-WebSocket-Version}/{@code -Protocol}/{@code -Extensions}); the upstream's 101 is checked
 * ({@code Sec-WebSocket-Accept}) and becomes {@code :status 200}, a refusal passes with its status,
 * and a 2xx that is no switch becomes 502. In TUNNEL, DATA goes up as raw bytes (credited while the
 * upstream connection is writable: the stream's window bounds what waits) and the upstream's bytes
 * come down as DATA (the upstream is not read while the client's windows or socket are full); the
 * client's END_STREAM half-closes the upstream connection, its RST_STREAM closes it, the upstream's
 * close ends the stream (END_STREAM), and the upstream side's idle timeout ends a quiet tunnel. The
 * request's access-log line is written when the tunnel opens, as on HTTP/1.1.
 */
final class Http2Exchange implements ForwardExchange, ProtocolExchange {
    private static final Recycler<Http2Exchange> RECYCLER = new Recycler<>() {
        @Override
        protected Http2Exchange newObject(Handle<Http2Exchange> handle) {
            return new Http2Exchange(handle);
        }
    };
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    private static final AsciiString CONNECTION = AsciiString.cached("connection");
    private static final AsciiString UPGRADE = AsciiString.cached("upgrade");
    private static final AsciiString WEBSOCKET = AsciiString.cached("websocket");
    private static final AsciiString SEC_WEBSOCKET_KEY = AsciiString.cached("sec-websocket-key");
    private static final AsciiString SEC_WEBSOCKET_ACCEPT = AsciiString.cached("sec-websocket-accept");
    private static final AsciiString STATUS_200 = HttpResponseStatus.OK.codeAsText();
    private static final AsciiString ALT_SVC = AsciiString.cached("alt-svc");

    /** Where the stream's request is; see the class comment for the transitions. */
    enum Phase {
        /** The headers arrived and the gate decides (synchronously). */
        GATE,
        /** An asynchronous policy (forward-auth) decides; the handler holds the DATA that arrives meanwhile. */
        WAITING_FOR_POLICY,
        /** The forwarder has the request, the upstream head is not written: DATA collects here, uncredited. */
        FORWARDING,
        /** The upstream head is written: DATA goes straight up, credited while the upstream can take more. */
        FORWARDING_BODY,
        /** The upstream's response head went to the client; its body and trailers follow. */
        RESPONDING,
        /** A WebSocket over HTTP/2: the upstream switched protocols, bytes flow both ways until either side ends. */
        TUNNEL,
        /** The request ended (answered, dropped, reset, its response done): back in the pool. */
        DONE
    }

    private final Recycler.Handle<Http2Exchange> handle;
    final RequestState state = new RequestState();
    final Http2RequestView view = new Http2RequestView();
    Http2GateHandler handler;
    /** The handler of a stream whose asynchronous policy just decided, for the flush after the dispatch. */
    private Http2GateHandler resumedOn;
    int streamId;
    private Phase phase = Phase.DONE;
    boolean head;
    /** The request's END_STREAM came with its headers: nothing more to read, no reset after the answer. */
    boolean requestEnded;
    /** For the access log: when the headers arrived (0 when the log is off) and what decided the request. */
    long started;
    int decision;
    private ForwardCall call;
    /** The upstream cannot take more of the body (back-pressure): DATA is not credited meanwhile. */
    private boolean upstreamFull;
    /** Request body bytes received but not yet returned to the client's flow-control window. */
    private int unconsumed;
    /** Request body bytes received so far, against {@code limits.max_body_size}. */
    private long received;
    /**
     * When response data of this stream started waiting for the client (System.nanoTime, never 0),
     * or 0: the send timeout resets a stream that waits too long.
     */
    long blockedSince;
    private ByteBuf pending;
    /** An extended CONNECT for a WebSocket (RFC 8441): forwarded as an Upgrade, answered 200 on a 101. */
    private boolean websocket;
    /** The access-log line was written (a tunnel is logged when it opens). */
    private boolean logged;
    /** The upstream handshake's key and expected accept; made on first WebSocket, kept with the exchange. */
    private WebSocketHandshake handshake;

    private Http2Exchange(Recycler.Handle<Http2Exchange> handle) {
        this.handle = handle;
    }

    static Http2Exchange take(Http2GateHandler handler, int streamId, boolean head, boolean requestEnded) {
        Http2Exchange e = RECYCLER.get();
        e.handler = handler;
        e.resumedOn = null;
        e.streamId = streamId;
        e.head = head;
        e.requestEnded = requestEnded;
        e.view.hasBody(!requestEnded);
        e.phase = Phase.GATE;
        e.upstreamFull = false;
        e.unconsumed = 0;
        e.received = 0;
        e.blockedSince = 0;
        e.call = null;
        e.decision = AccessLog.RESPOND;
        e.websocket = false;
        e.logged = false;
        return e;
    }

    /** The stream is a WebSocket over HTTP/2 (RFC 8441 extended CONNECT the handler accepted). */
    void websocket(boolean websocket) {
        this.websocket = websocket;
        if (websocket && handshake == null) {
            handshake = new WebSocketHandshake();
        }
    }

    /** GATE -> FORWARDING: the stream's DATA frames now belong to the upstream. */
    void forwarding() {
        phase = Phase.FORWARDING;
        decision = AccessLog.FORWARD;
    }

    /** Whether the forwarder has the request (the handler routes its frames here). */
    boolean isForwarding() {
        return phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING || phase == Phase.TUNNEL;
    }

    // ---- ProtocolExchange: the request cycle's orders for this stream, carried out by the handler ----

    @Override
    public RequestState state() {
        return state;
    }

    @Override
    public Channel channel() {
        return handler.context().channel();
    }

    @Override
    public void logDecision(int decision) {
        this.decision = decision;
    }

    @Override
    public void writeAnswer(PrecomputedResponse response) {
        handler.answer(this, response);
    }

    @Override
    public void drop() {
        handler.drop(this);
    }

    @Override
    public void forward() {
        handler.forward(this);
    }

    /** GATE -> WAITING_FOR_POLICY. */
    @Override
    public void pauseReads() {
        phase = Phase.WAITING_FOR_POLICY;
        handler.pauseReads(this);
    }

    /** GATE -> WAITING_FOR_POLICY for a policy that reads the body: DATA is held and also handed to the cycle. */
    @Override
    public void inspectBody() {
        phase = Phase.WAITING_FOR_POLICY;
        handler.inspectBody(this);
    }

    @Override
    public long bodyHoldLimit() {
        return handler.bodyHoldLimit();
    }

    /** WAITING_FOR_POLICY -> GATE: the gate goes on after the policy's decision. */
    @Override
    public void resumeReads(GateOutcome outcome) {
        phase = Phase.GATE;
        resumedOn = handler;
        handler.resumeReads(this, outcome);
    }

    /** Still waiting for the policy that request {@code requestId} started (not reset, not recycled for another). */
    @Override
    public boolean awaits(long requestId) {
        return phase == Phase.WAITING_FOR_POLICY && state.requestId() == requestId;
    }

    /** The dispatch may have recycled this exchange (an answer, a reset): the handler was kept by {@link #resumeReads}. */
    @Override
    public void resumed(GateOutcome outcome) {
        Http2GateHandler h = resumedOn;
        resumedOn = null;
        if (h != null) {
            h.flush();
        }
    }

    // ---- from the connection handler ----

    /**
     * A DATA frame of this forwarded stream; returns the bytes to return to the client's window now
     * (the rest is returned when the upstream can take more).
     */
    int onData(ByteBuf data, int padding, boolean endOfStream) {
        int n = data.readableBytes();
        received += n;
        if (received > handler.maxBodySize() && phase != Phase.TUNNEL) {
            return bodyTooLarge(n + padding); // a tunnel's bytes are no body: no limit, as on HTTP/1.1
        }
        boolean upstreamReady = phase != Phase.FORWARDING;
        if (n > 0) {
            if (upstreamReady) {
                call.requestBody(data.retain());
            } else {
                if (pending == null) {
                    pending = data.alloc().compositeBuffer();
                }
                ((CompositeByteBuf) pending).addComponent(true, data.retain());
            }
        }
        if (endOfStream) {
            requestEnded = true;
            if (upstreamReady) {
                call.requestEnd();
            }
        }
        if (upstreamFull || !upstreamReady) {
            unconsumed += n;
            return padding;
        }
        return n + padding;
    }

    /**
     * The body passed {@code limits.max_body_size}: this frame is not passed on (the upstream got at
     * most the limit), the upstream request is abandoned and the client gets 413 (or a reset when the
     * response started). Everything this stream holds uncredited is credited now, so the connection
     * window stays open; later DATA is credited and dropped like an answered stream's.
     */
    private int bodyTooLarge(int frameBytes) {
        int credit = unconsumed + frameBytes;
        unconsumed = 0;
        ForwardCall c = call;
        if (c != null) {
            c.requestRefused(413);
        }
        return credit;
    }

    void onClientClosed() {
        releasePending();
        if (!isOpen()) {
            return;
        }
        ForwardCall c = call;
        call = null;
        if (c != null) {
            c.clientClosed();
        }
        forwardStatus(0);
        recycle();
    }

    void onWritable() {
        if (isOpen() && call != null) {
            if (blockedSince != 0 && canWrite()) {
                blockedSince = 0; // the client took bytes: the send clock stops
            }
            call.clientWritable();
        }
    }

    /**
     * The client opened this stream's window: progress for the send timeout, unless the socket
     * itself is full (then opening windows alone moves nothing).
     */
    void clientTookBytes() {
        if (blockedSince != 0 && handler.context().channel().isWritable()) {
            blockedSince = System.nanoTime() | 1;
        }
    }

    // ---- ForwardExchange ----

    @Override
    public void answer(PrecomputedResponse response) {
        if (isOpen()) {
            forwardStatus(response.status());
            releasePending();
            call = null;
            detach();
            Http2GateHandler h = handler;
            h.answer(this, response); // recycles this exchange
            h.flush();
        }
    }

    @Override
    public boolean isOpen() {
        return phase != Phase.DONE;
    }

    @Override
    public EventLoop eventLoop() {
        return handler.context().channel().eventLoop();
    }

    @Override
    public long requestBodyLength() {
        if (requestEnded || websocket) {
            return 0; // a WebSocket handshake has no body: what the client sends later is the tunnel's
        }
        long n = declaredLength(view.headers());
        return n <= 0 ? -1 : n; // a declared 0 with DATA still coming: stream it, the upstream reads the end
    }

    /** The request's {@code content-length}, or -1 when absent or not only digits (Netty validates it further). */
    static long declaredLength(Http2Headers headers) {
        CharSequence length = headers.get(CONTENT_LENGTH);
        if (length == null) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < length.length(); i++) {
            char c = length.charAt(i);
            if (c < '0' || c > '9' || n > Long.MAX_VALUE / 10 - 10) {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    @Override
    public boolean isUpgradeRequest() {
        return websocket;
    }

    @Override
    public boolean isTunnelRequired() {
        return websocket;
    }

    /**
     * The upstream's answer to the handshake: a 101 must name websocket in {@code Upgrade} and carry
     * the accept of our key (RFC 6455 4.1, which an HTTP/2 client cannot check); a 2xx that is no
     * switch would read as an open tunnel to the client (RFC 8441 5), so it is refused too. Others
     * (403, 426, ...) pass with their status.
     */
    @Override
    public boolean acceptsUpgradeResponse(ResponseHead h) {
        int status = h.status();
        if (status == 101) {
            return handshake.accepts(value(h, SEC_WEBSOCKET_ACCEPT)) && WEBSOCKET.contentEqualsIgnoreCase(value(h, UPGRADE));
        }
        return status < 200 || status > 299;
    }

    /** The value of {@code name} in the upstream's head, or null (a small walk: once per handshake). */
    private static CharSequence value(ResponseHead h, AsciiString name) {
        for (int i = 0, n = h.headerCount(); i < n; i++) {
            if (name.contentEqualsIgnoreCase(h.headerName(i))) {
                return h.headerValue(i);
            }
        }
        return null;
    }

    @Override
    public void offerRequestFields(FieldSink sink, ForwardingRules rules) {
        Http2Headers headers = view.headers();
        CharSequence options = headers.get(CONNECTION); // malformed on HTTP/2 (Netty rejects it); kept for safety
        boolean trusted = state.isPeerTrustedProxy();
        for (Map.Entry<CharSequence, CharSequence> e : headers) {
            CharSequence name = e.getKey();
            if (name.length() > 0 && name.charAt(0) != ':' && ForwardingFields.isForwarded(name, rules, trusted, options)
                    && !(websocket && SEC_WEBSOCKET_KEY.contentEqualsIgnoreCase(name))) {
                sink.field(name, e.getValue()); // decoded names are lower case already; values are immutable
            }
        }
        if (websocket) {
            sink.field(SEC_WEBSOCKET_KEY, handshake.newKey()); // ours, checked in acceptsUpgradeResponse
        }
    }

    @Override
    public void attach(ForwardCall call) {
        this.call = call;
    }

    /** FORWARDING -> FORWARDING_BODY: what collected goes up, then the end if it came, and the credit. */
    @Override
    public void requestBodyReady() {
        if (phase == Phase.FORWARDING) {
            phase = Phase.FORWARDING_BODY;
        }
        sendPending();
    }

    /** What collected goes up to the call, then the end if it came, and the credit. */
    private void sendPending() {
        ByteBuf p = pending;
        pending = null;
        if (p != null && p.isReadable()) {
            call.requestBody(p);
        } else if (p != null) {
            p.release();
        }
        if (requestEnded) {
            call.requestEnd();
        }
        if (!upstreamFull) {
            returnCredit();
        }
    }

    @Override
    public void pauseRequestBody(boolean pause) {
        upstreamFull = pause;
        if (!pause) {
            returnCredit();
        }
    }

    private void returnCredit() {
        int n = unconsumed;
        if (n == 0 || !isOpen()) {
            return;
        }
        unconsumed = 0;
        Http2Stream stream = handler.connection().stream(streamId);
        if (stream == null) {
            return;
        }
        try {
            handler.decoder().flowController().consumeBytes(stream, n);
            handler.flush();
        } catch (Http2Exception e) {
            handler.context().fireExceptionCaught(e);
        }
    }

    @Override
    public void interimResponse(ResponseHead interim) {
        // 1xx responses are not relayed over HTTP/2 (optional; 100-continue is answered by the upstream's final response).
    }

    /**
     * FORWARDING(_BODY) -> RESPONDING: the upstream's head becomes the stream's HEADERS; its status
     * counts the request. A WebSocket's accepted 101 becomes {@code :status 200} without END_STREAM
     * (RFC 8441 5), keeping {@code Sec-WebSocket-Protocol}/{@code -Extensions}; {@link #upgraded} follows.
     */
    @Override
    public void responseHead(ResponseHead h, ResponseHeaderRules rules, byte[] extraLine) {
        boolean tunnel = websocket && h.status() == 101;
        forwardStatus(tunnel ? 200 : h.status());
        phase = Phase.RESPONDING;
        Http2Headers out = new DefaultHttp2Headers(false, h.headerCount() + rules.names().length + 5);
        out.status(tunnel ? STATUS_200 : HttpResponseStatus.valueOf(h.status()).codeAsText()); // cached for registered statuses
        for (int i = 0, n = h.headerCount(); i < n; i++) {
            CharSequence name = h.headerName(i);
            if (rules.isRemoved(name) || h.isConnectionOption(name)) { // rules remove hop-by-hop fields, Transfer-Encoding too
                continue;
            }
            if (tunnel && (SEC_WEBSOCKET_ACCEPT.contentEqualsIgnoreCase(name) || CONTENT_LENGTH.contentEqualsIgnoreCase(name))) {
                continue; // the accept was for us; a 200 that opens a tunnel has no length
            }
            // The name is shared when Netty knows it; the value is copied (the upstream's head is released).
            out.add(ResponseFieldNames.lowerCase(name), new AsciiString(h.headerValue(i)));
        }
        AsciiString[] names = rules.names();
        AsciiString[] values = rules.values();
        for (int i = 0; i < names.length; i++) {
            out.set(names[i], values[i]);
        }
        if (extraLine != null) {
            addLine(out, extraLine);
        }
        ForwardingRules forwarding = state.snapshot().forwarding();
        if (forwarding.echoRequestId()) {
            out.set(forwarding.requestIdHeader(), ForwardingFields.echoValue(state, forwarding)); // the upstream's was removed by the rules
        }
        if (handler.altSvc() != null) {
            out.add(ALT_SVC, handler.altSvc()); // the listener serves HTTP/3
        }
        if (state.hasRateLimit()) {
            // set: replaces an upstream's own RateLimit-* fields, so each is sent once
            out.set(RateLimitFields.LIMIT, RateLimitFields.ascii(state.rateLimitLimit()));
            out.set(RateLimitFields.REMAINING, RateLimitFields.ascii(state.rateLimitRemaining()));
            out.set(RateLimitFields.RESET, RateLimitFields.ascii(state.rateLimitReset()));
        }
        boolean endStream = !tunnel && (head || !h.hasBody());
        if (endStream) {
            detach();
        }
        handler.encoder().writeHeaders(handler.context(), streamId, out, 0, endStream, handler.context().voidPromise());
        if (endStream) {
            finish();
        }
    }

    /** A precomputed "Name: value\r\n" line as a lower-case HTTP/2 field. */
    private static void addLine(Http2Headers out, byte[] line) {
        int colon = 0;
        while (colon < line.length && line[colon] != ':') {
            colon++;
        }
        int end = line.length;
        while (end > colon && (line[end - 1] == '\r' || line[end - 1] == '\n')) {
            end--;
        }
        int valueStart = Math.min(end, colon + 2);
        out.add(new AsciiString(line, 0, colon, true).toLowerCase(), new AsciiString(line, valueStart, end - valueStart, true));
    }

    @Override
    public void responseBody(ByteBuf chunk) {
        if (!isOpen() || head) {
            chunk.release();
            return;
        }
        ChannelHandlerContext ctx = handler.context();
        state.addBytesSent(chunk.readableBytes());
        handler.encoder().writeData(ctx, streamId, chunk, 0, false, ctx.voidPromise());
    }

    /**
     * Whether the client can take more of the response now (the stream's and the connection's
     * windows, and the socket). When not, the forwarder stops reading the upstream (at most one
     * read's data waits here per stream), and the send clock of {@code limits.send_timeout} starts;
     * it stops when the client takes bytes again ({@link #onWritable}).
     */
    @Override
    public boolean isWritable() {
        if (canWrite()) {
            return true;
        }
        if (blockedSince == 0 && isOpen()) {
            blockedSince = System.nanoTime() | 1;
            handler.watchSend();
        }
        return false;
    }

    private boolean canWrite() {
        Http2Stream stream = handler.connection().stream(streamId);
        return stream != null && handler.encoder().flowController().isWritable(stream)
                && handler.context().channel().isWritable();
    }

    @Override
    public void flush() {
        handler.flush();
    }

    @Override
    public void responseEnd(ResponseTrailers trailers) {
        if (!isOpen()) {
            return;
        }
        ChannelHandlerContext ctx = handler.context();
        detach();
        if (head) {
            finish();
            return;
        }
        if (trailers != null && trailers.count() > 0) {
            Http2Headers t = new DefaultHttp2Headers(false, trailers.count());
            for (int i = 0; i < trailers.count(); i++) {
                t.add(new AsciiString(trailers.name(i)).toLowerCase(), new AsciiString(trailers.value(i)));
            }
            handler.encoder().writeHeaders(ctx, streamId, t, 0, true, ctx.voidPromise());
        } else {
            handler.encoder().writeData(ctx, streamId, Unpooled.EMPTY_BUFFER, 0, true, ctx.voidPromise());
        }
        finish();
    }

    /**
     * RESPONDING -> TUNNEL: the 200 went out; the request is logged now (its end has no request any
     * more, as on HTTP/1.1), DATA that came early goes up, and what waited uncredited is credited.
     */
    @Override
    public void upgraded() {
        if (!isOpen()) {
            return;
        }
        phase = Phase.TUNNEL;
        handler.tunnel(true);
        logEnd();
        sendPending();
        handler.flush();
    }

    /**
     * The response is written. A request body still coming is then credited and dropped by the
     * handler like that of an answered stream (no reset: it could overtake queued DATA).
     */
    private void finish() {
        Http2GateHandler h = handler;
        returnCredit();
        recycle();
        h.flush();
    }

    @Override
    public void abort() {
        if (!isOpen()) {
            return;
        }
        Http2GateHandler h = handler;
        int id = streamId;
        forwardStatus(0);
        recycle();
        h.resetStream(h.context(), id, Http2Error.INTERNAL_ERROR.code(), h.context().voidPromise());
        h.flush();
    }

    /**
     * Stops routing the stream's events here before its last frame is written: writing END_STREAM
     * can close the stream at once, and the close must not read as the client going away.
     */
    private void detach() {
        handler.forgetForwarded(streamId);
    }

    private void releasePending() {
        ByteBuf p = pending;
        pending = null;
        if (p != null) {
            p.release();
        }
    }

    /**
     * A forwarded request's client-side status is known: the upstream's head, the forwarder's own
     * answer, or 0 when it ended without one. Counted once: only before the response head (every
     * caller leaves those phases right after). 0 B.
     */
    private void forwardStatus(int status) {
        if (phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY) {
            handler.cycle().forwarded(state, status);
        }
    }

    /** -> DONE: ends the request and returns this object to the pool: the one end-of-request hook (access log). */
    void recycle() {
        if (!isOpen()) {
            return;
        }
        if (phase == Phase.TUNNEL && handler != null) {
            handler.tunnel(false);
        }
        logEnd();
        boolean forwarded = isForwarding();
        phase = Phase.DONE;
        releasePending();
        if (forwarded && handler != null) {
            handler.forgetForwarded(streamId); // an abort: no detach before
        }
        call = null;
        handler = null;
        if (handshake != null) {
            handshake.reset();
        }
        view.clear();
        state.clear();
        handle.recycle(this);
    }

    /** The request's access-log line, once: at its end, or when its tunnel opens. */
    private void logEnd() {
        if (!logged && handler != null) {
            logged = true;
            handler.cycle().log(AccessLog.HTTP2, state, view, view.client(), started, decision);
        }
    }
}
