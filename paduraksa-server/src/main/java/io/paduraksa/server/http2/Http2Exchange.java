package io.paduraksa.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.AsciiString;
import io.netty.util.Recycler;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestRecycler;
import io.paduraksa.gate.RequestState;
import io.paduraksa.http2.Http2ErrorCodes;
import io.paduraksa.ops.AccessLog;
import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardCall;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.http2.Http2Connection;
import io.paduraksa.server.cycle.HeldBody;
import io.paduraksa.server.cycle.ProtocolExchange;
import io.paduraksa.server.cycle.RequestCycle;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;

/**
 * Per-stream request state for HTTP/2: the gate's {@link RequestState} and the request's fields
 * ({@link Http2RequestFields}, the gate's view), taken from a {@link Recycler} when a stream's
 * headers arrive and returned when the request ends, so two live streams never share one. On the
 * event loop, taking and returning allocate nothing.
 *
 * <p>For a forwarded stream it is also the {@link ForwardExchange}: the request's fields are offered
 * to the upstream side as field lines (cookies joined, RFC 9113 8.2.3), DATA streams up with
 * HTTP/2 flow control as back-pressure (bytes are returned to the client's window only once the
 * upstream connection took them: {@code Http2Connection.consumed}), and the upstream's response
 * is encoded straight from its head's names and values into the connection's outbound buffer
 * ({@link Http2GateHandler#writeResponseHead}): no header objects.
 *
 * <p><b>One phase per stream.</b>
 * <pre>
 * GATE --answer, drop--&gt; DONE
 *  |  ^-- WAITING_FOR_POLICY (an asynchronous policy decides; DATA collects here, uncredited)
 *  +--forward--&gt; FORWARDING --upstream head written--&gt; FORWARDING_BODY --response head--&gt; RESPONDING
 *                 --end, abort, the forwarder's own answer, the client's reset--&gt; DONE
 *                                                  RESPONDING --101 accepted--&gt; TUNNEL --either side ends--&gt; DONE
 * </pre>
 *
 * <p><b>WebSocket over HTTP/2</b> (RFC 8441): an extended CONNECT the gate let through goes to an
 * HTTP/1.1 upstream as the usual handshake with a fresh {@code Sec-WebSocket-Key}
 * ({@link WebSocketHandshake}); the upstream's 101 is checked and becomes {@code :status 200}, a
 * refusal passes with its status, a 2xx that is no switch becomes 502. To an HTTP/2 upstream it goes
 * on as an extended CONNECT (no key), and that upstream's 2xx becomes {@code :status 200}. In TUNNEL, DATA goes up as
 * raw bytes and the upstream's bytes come down as DATA until either side ends.
 */
final class Http2Exchange implements ForwardExchange, ProtocolExchange {
    private static final Recycler<Http2Exchange> RECYCLER = new RequestRecycler<>() {
        @Override
        protected Http2Exchange newObject(Handle<Http2Exchange> handle) {
            return new Http2Exchange(handle);
        }
    };
    private static final AsciiString CONNECTION = AsciiString.cached("connection");
    private static final AsciiString UPGRADE = AsciiString.cached("upgrade");
    private static final AsciiString WEBSOCKET = AsciiString.cached("websocket");
    private static final AsciiString SEC_WEBSOCKET_KEY = AsciiString.cached("sec-websocket-key");
    private static final AsciiString SEC_WEBSOCKET_ACCEPT = AsciiString.cached("sec-websocket-accept");

    enum Phase {
        GATE, WAITING_FOR_POLICY, FORWARDING, FORWARDING_BODY, RESPONDING, TUNNEL, DONE
    }

    private final Recycler.Handle<Http2Exchange> handle;
    final RequestState state = new RequestState();
    final Http2RequestFields fields = new Http2RequestFields();
    private final FieldFilter filter = new FieldFilter();
    Http2GateHandler handler;
    private Http2GateHandler resumedOn;
    int slot;
    int streamId;
    private Phase phase = Phase.DONE;
    boolean head;
    /** The request's END_STREAM has come: nothing more to read. */
    boolean requestEnded;
    long started;
    int decision;
    long declaredLength;
    private ForwardCall call;
    private boolean upstreamFull;
    /** Request body bytes received and not yet returned to the client's flow-control windows. */
    private int unconsumed;
    private long received;
    private final HeldBody held = new HeldBody();
    private boolean websocket;
    /** In WAITING_FOR_POLICY: a policy reads the body ({@link #inspectBody}), so held DATA also goes to the cycle. */
    private boolean inspectingBody;
    private boolean logged;
    private WebSocketHandshake handshake;

    private Http2Exchange(Recycler.Handle<Http2Exchange> handle) {
        this.handle = handle;
    }

    static Http2Exchange take(Http2GateHandler handler, int slot) {
        Http2Exchange e = RECYCLER.get();
        e.handler = handler;
        e.resumedOn = null;
        e.slot = slot;
        e.streamId = 0;
        e.head = false;
        e.requestEnded = false;
        e.phase = Phase.GATE;
        e.upstreamFull = false;
        e.unconsumed = 0;
        e.received = 0;
        e.declaredLength = -1;
        e.call = null;
        e.decision = AccessLog.RESPOND;
        e.websocket = false;
        e.inspectingBody = false;
        e.logged = false;
        e.started = 0;
        return e;
    }

    void websocket(boolean websocket) {
        this.websocket = websocket;
        fields.websocket(websocket);
        if (websocket && handshake == null) {
            handshake = new WebSocketHandshake();
        }
    }

    void forwarding() {
        phase = Phase.FORWARDING;
        decision = AccessLog.FORWARD;
    }

    boolean isForwarding() {
        return phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING || phase == Phase.TUNNEL;
    }

    boolean isTunnel() {
        return phase == Phase.TUNNEL;
    }

    // ---- ProtocolExchange

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
        Http2GateHandler h = handler;
        int s = slot;
        recycle();
        h.reset(s, Http2ErrorCodes.CANCEL);
    }

    @Override
    public void forward() {
        forwarding();
        handler.services().forwarder().forward(state, this);
    }

    @Override
    public void pauseReads() {
        phase = Phase.WAITING_FOR_POLICY;
    }

    /** GATE -> WAITING_FOR_POLICY for a policy that reads the body: DATA is held as for {@link #pauseReads} and handed to the cycle as it arrives. */
    @Override
    public void inspectBody() {
        phase = Phase.WAITING_FOR_POLICY;
        inspectingBody = true;
    }

    /** Held DATA is not credited, so the stream's receive window is the most a waiting stream can send. */
    @Override
    public long bodyHoldLimit() {
        return Http2Connection.INITIAL_WINDOW;
    }

    /** The policy decided: a held body stays for a forward (or another wait), else it is dropped and credited. */
    @Override
    public void resumeReads(GateOutcome outcome) {
        phase = Phase.GATE;
        inspectingBody = false;
        resumedOn = handler;
        if (outcome != GateOutcome.NEEDS_ASYNC && outcome != GateOutcome.FORWARD) {
            held.release();
            returnCredit();
        }
    }

    @Override
    public boolean awaits(long requestId) {
        return phase == Phase.WAITING_FOR_POLICY && state.requestId() == requestId;
    }

    @Override
    public void resumed(GateOutcome outcome) {
        Http2GateHandler h = resumedOn;
        resumedOn = null;
        if (h != null) {
            h.flush();
        }
    }

    // ---- from the handler

    /** A DATA frame of this stream (copied or retained as needed); credit follows when the bytes went on. */
    void onData(ByteBuf buf, int index, int length, boolean endStream) {
        received += length;
        if (received > handler.maxBodySize() && phase != Phase.TUNNEL) {
            bodyTooLarge(length);
            return;
        }
        boolean upstreamReady = phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING || phase == Phase.TUNNEL;
        ByteBuf heldNow = null;
        if (length > 0) {
            ByteBuf data = buf.retainedSlice(index, length);
            if (upstreamReady) {
                call.requestBody(data);
            } else {
                held.add(data);
                heldNow = data;
            }
        }
        if (endStream) {
            requestEnded = true;
            if (upstreamReady) {
                call.requestEnd();
            }
        }
        if (upstreamFull || !upstreamReady) {
            unconsumed += length;
        } else {
            handler.connection().consumed(slot, length);
        }
        if (inspectingBody && phase == Phase.WAITING_FOR_POLICY) {
            // Last: the policy reading the body may decide now, and an answer recycles this exchange.
            RequestCycle cycle = handler.cycle();
            if (heldNow != null) {
                cycle.bodyChunk(this, heldNow); // held already (held owns it), read in place
            }
            if (endStream && inspectingBody && phase == Phase.WAITING_FOR_POLICY) {
                cycle.bodyEnd(this);
            }
        }
    }

    /** The request's trailers came: its body ended (the trailer fields are not forwarded). */
    void onTrailers() {
        requestEnded = true;
        if (inspectingBody && phase == Phase.WAITING_FOR_POLICY) {
            handler.cycle().bodyEnd(this); // trailers end a body a policy reads
            return;
        }
        if (phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING || phase == Phase.TUNNEL) {
            call.requestEnd();
        }
    }

    /**
     * The body passed {@code limits.max_body_size}: not passed on, the upstream request is
     * abandoned and the client gets 413 (or a reset when the response started); what this stream
     * holds is credited so the connection window stays open.
     */
    private void bodyTooLarge(int length) {
        unconsumed += length;
        held.release();
        returnCredit();
        ForwardCall c = call;
        if (c != null && isForwarding()) {
            c.requestRefused(413);
        } else if (phase == Phase.WAITING_FOR_POLICY) {
            Http2GateHandler h = handler;
            int s = slot;
            recycle();
            h.reset(s, Http2ErrorCodes.CANCEL);
        }
    }

    /** The client reset the stream or the connection ended. */
    void onClientClosed() {
        held.release();
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

    /** The stream was refused before the request reached the gate (malformed): back to the pool, no log line. */
    void discard() {
        held.release();
        logged = true;
        recycle();
    }

    void onWritable() {
        if (isOpen() && call != null) {
            call.clientWritable();
        }
    }

    // ---- ForwardExchange

    @Override
    public void answer(PrecomputedResponse response) {
        if (isOpen()) {
            forwardStatus(response.status());
            held.release();
            returnCredit();
            call = null;
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
        if (requestEnded && !held.isReadable() || websocket) {
            return 0; // a WebSocket handshake has no body: what the client sends later is the tunnel's
        }
        return declaredLength <= 0 ? -1 : declaredLength; // a declared 0 with DATA still coming: stream it
    }

    @Override
    public boolean isUpgradeRequest() {
        return websocket;
    }

    @Override
    public boolean acceptsUpgradeResponse(ResponseHead h) {
        int status = h.status();
        if (status == 101) {
            return handshake.accepts(value(h, SEC_WEBSOCKET_ACCEPT)) && WEBSOCKET.contentEqualsIgnoreCase(value(h, UPGRADE));
        }
        return status < 200 || status > 299;
    }

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
        filter.rules = rules;
        filter.trusted = state.isPeerTrustedProxy();
        filter.websocket = websocket;
        fields.offer(sink, filter);
        filter.rules = null;
        if (websocket && !call.isExtendedConnect()) {
            sink.field(SEC_WEBSOCKET_KEY, handshake.newKey()); // ours, checked in acceptsUpgradeResponse
        }
    }

    /** The forwarding rules as a name filter, one per exchange (no lambda per request). */
    private static final class FieldFilter implements Http2RequestFields.NameFilter {
        ForwardingRules rules;
        boolean trusted;
        boolean websocket;

        @Override
        public boolean accepts(CharSequence name) {
            // a connection field makes a request malformed on HTTP/2 (the validator refused it): no options to honour
            return ForwardingFields.isForwarded(name, rules, trusted)
                    && !(websocket && SEC_WEBSOCKET_KEY.contentEqualsIgnoreCase(name))
                    && !CONNECTION.contentEqualsIgnoreCase(name);
        }
    }

    @Override
    public void attach(ForwardCall call) {
        this.call = call;
    }

    @Override
    public void requestBodyReady() {
        if (phase == Phase.FORWARDING) {
            phase = Phase.FORWARDING_BODY;
        }
        sendPending();
    }

    private void sendPending() {
        held.sendTo(call, requestEnded);
        if (!upstreamFull) {
            returnCredit();
        }
    }

    @Override
    public void pauseRequestBody(boolean pause) {
        upstreamFull = pause;
        if (!pause) {
            returnCredit();
            handler.flush();
        }
    }

    private void returnCredit() {
        int n = unconsumed;
        if (n == 0 || !isOpen()) {
            return;
        }
        unconsumed = 0;
        handler.connection().consumed(slot, n);
    }

    @Override
    public void interimResponse(ResponseHead interim) {
        // 1xx responses are not relayed over HTTP/2 (optional; 100-continue is answered by the upstream's final response).
    }

    @Override
    public void responseHead(ResponseHead h, ResponseHeaderRules rules, byte[] extraLine) {
        boolean tunnel = websocket && h.status() == 101;
        forwardStatus(tunnel ? 200 : h.status());
        phase = Phase.RESPONDING;
        boolean endStream = !tunnel && (head || !h.hasBody());
        Http2GateHandler hd = handler;
        if (endStream) {
            recycleAfter();
            hd.writeResponseHead(slot, this, h, rules, extraLine, tunnel, true);
            recycle();
            hd.flush();
            return;
        }
        hd.writeResponseHead(slot, this, h, rules, extraLine, tunnel, false);
    }

    /** An HTTP/2 upstream's 2xx to the extended CONNECT: {@code :status 200}, the stream stays open for the tunnel. */
    @Override
    public void webSocketAccepted(ResponseHead h, ResponseHeaderRules rules) {
        forwardStatus(200);
        phase = Phase.RESPONDING;
        handler.writeResponseHead(slot, this, h, rules, null, true, false);
    }

    @Override
    public void responseBody(ByteBuf chunk) {
        if (!isOpen() || head) {
            chunk.release();
            return;
        }
        state.addBytesSent(chunk.readableBytes());
        handler.connection().writeData(slot, chunk, false);
    }

    @Override
    public boolean isWritable() {
        if (handler.connection().isWritable(slot)) {
            return true;
        }
        if (isOpen()) {
            handler.connection().markBlocked(slot);
            handler.watchSend();
        }
        return false;
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
        Http2GateHandler h = handler;
        recycleAfter();
        if (!head && trailers != null && trailers.count() > 0) {
            h.writeTrailers(slot, trailers);
        } else {
            h.connection().writeData(slot, Unpooled.EMPTY_BUFFER, true);
        }
        recycle();
        h.flush();
    }

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

    @Override
    public void abort() {
        if (!isOpen()) {
            return;
        }
        Http2GateHandler h = handler;
        int s = slot;
        forwardStatus(0);
        recycle();
        h.reset(s, Http2ErrorCodes.INTERNAL_ERROR);
        h.flush();
    }

    private void forwardStatus(int status) {
        if (phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY) {
            handler.cycle().forwarded(state, status);
        }
    }

    /**
     * The response's last frame is about to be written: the stream's events stop coming here (its
     * body still coming is credited and dropped by the handler), so that the stream's close does
     * not read as the client going away; {@link #recycle} follows the write.
     */
    private void recycleAfter() {
        returnCredit();
        handler.detach(slot, this);
    }

    /** -> DONE: ends the request and returns this object to the pool: the one end-of-request hook (access log). */
    void recycle() {
        if (!isOpen()) {
            return;
        }
        Http2GateHandler h = handler;
        if (phase == Phase.TUNNEL) {
            h.tunnel(false);
        }
        logEnd();
        phase = Phase.DONE;
        held.release();
        if (unconsumed > 0) {
            h.connection().consumed(slot, unconsumed);
            unconsumed = 0;
        }
        h.detach(slot, this);
        call = null;
        handler = null;
        if (handshake != null) {
            handshake.reset();
        }
        fields.clear();
        state.clear();
        handle.recycle(this);
    }

    private void logEnd() {
        if (!logged && handler != null) {
            logged = true;
            handler.cycle().log(AccessLog.HTTP2, state, fields, fields.client(), started, decision);
        }
    }
}
