package io.paduraksa.server.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.ops.AccessLog;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.RateLimitFields;
import io.paduraksa.server.cycle.DrainEvent;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.cycle.ProtocolExchange;
import io.paduraksa.server.cycle.RequestCycle;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.Snapshot;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 with the gate in front, one instance per connection. It receives
 * {@link Http1RequestHead}s from {@link Http1RequestDecoder}, shows each to the gate through itself
 * (it is the {@link RequestView} over the head's positions: no Strings, no header objects), and
 * answers, drops or hands the request to the forwarder. The connection's one {@link RequestState}
 * is reset by every request. Answers are copied from precomputed parts into one pooled buffer and
 * flushed once per read, so pipelined requests are answered in order with one write.
 *
 * <p><b>One phase.</b> The connection's life is the {@link Phase} held here, and nowhere else
 * ({@link Http1Exchange}, the forwarding side, asks this handler): a connection serves one request
 * at a time, so the phase is that request's, from its head to the end of its answer.
 * <pre>
 * IDLE --head--&gt; IN_GATE --answer--&gt; IDLE (keep-alive) | LINGERING (body still arriving) | CLOSING
 *                  |  ^ --drop--&gt; CLOSING
 *                  |  +-- WAITING_FOR_POLICY (an asynchronous policy decides; its body is held)
 *                  +--forward--&gt; FORWARDING --upstream head written--&gt; FORWARDING_BODY
 *                                 --response head--&gt; RESPONDING --101--&gt; TUNNEL
 *                                 --end--&gt; IDLE | LINGERING | CLOSING; --abort--&gt; CLOSING
 * LINGERING --body ended--&gt; CLOSING
 * </pre>
 * Besides the phase, a few facts: the request's (a HEAD, HTTP/1.0, whether its answer is the
 * connection's last, whether body bytes are still to come), the connection's (the server drains)
 * and the upstream's back-pressure. Whether the socket is read follows from those
 * ({@link #updateReads}).
 *
 * <p>A request that carries a body and is answered by the gate gets {@code Connection: close}:
 * the gate never reads an unwanted body to keep a connection alive; what is still arriving is read
 * and dropped for up to {@link #LINGER_MILLIS} after the answer (lingering close), so that the
 * answer is not lost to a reset.
 */
public final class Http1GateHandler extends ChannelInboundHandlerAdapter
        implements RequestView, ProtocolExchange, Http1Deadlines.Expired {
    /** How long a connection keeps reading (and dropping) an unwanted body after its answer. */
    static final long LINGER_MILLIS = 2_000;
    /** How long a draining server waits for an idle HTTP/1.1 connection's next request before closing it. */
    static final long DRAIN_IDLE_GRACE_MILLIS = 1_000;

    /** Where the connection is in its current request; see the class comment for the transitions. */
    enum Phase {
        /** Between requests: waiting for (or reading) the next head. */
        IDLE,
        /** A head arrived and the gate decides; synchronous, within the read that brought the head. */
        IN_GATE,
        /** An asynchronous policy (forward-auth) decides: reads stop, body chunks wait in the exchange. */
        WAITING_FOR_POLICY,
        /**
         * The forwarder has the request and the upstream request head is not written yet: body chunks
         * wait in the exchange (reads stop once one waits). A request without a body stays here until
         * the response head.
         */
        FORWARDING,
        /** The upstream request head is written: body chunks go straight up; no response head yet. */
        FORWARDING_BODY,
        /** The upstream's response head went to the client; its body follows. */
        RESPONDING,
        /** A WebSocket handshake got 101: raw bytes both ways, no HTTP any more, until either side closes. */
        TUNNEL,
        /** The last answer is written, the write side shuts after it, the rest of the body is read and dropped. */
        LINGERING,
        /** The connection closes (or closed): nothing more is read into a request. */
        CLOSING
    }

    /**
     * Lingering close (RFC 9112 9.6) after answering a request whose body is still arriving: closing
     * at once with unread bytes in the socket makes the kernel send a reset, which can destroy the
     * answer before the client reads it. So the write side is shut down (FIN after the answer), the
     * rest of the body is read and dropped, and the connection closes when the client closes or after
     * {@link #LINGER_MILLIS}. Rare path: a listener and a timer task per lingering connection.
     */
    private static final ChannelFutureListener LINGER = future -> {
        Channel ch = future.channel();
        if (!future.isSuccess() || !(ch instanceof DuplexChannel duplex)) {
            ch.close();
            return;
        }
        duplex.shutdownOutput();
        ch.eventLoop().schedule(() -> ch.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
    };

    /** Bodies up to this size are copied into the answer buffer; larger ones go out as a duplicate. */
    static final int COPY_BODY_LIMIT = 16 * 1024;
    /**
     * For an HTTP/1.0 request that asked for keep-alive: such a client assumes the connection closes
     * unless the answer says otherwise (RFC 9112 section 9.3, appendix C.2.2).
     */
    private static final byte[] KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int CRLF_SHORT = ('\r' << 8) | '\n';

    private final ListenerServices context;
    private final RequestCycle cycle;
    private final Http1RequestDecoder decoder;
    private final Http1Deadlines deadlines;
    private final RequestState state;
    private final Http1Exchange exchange = new Http1Exchange(this);

    private ChannelHandlerContext ctx;
    private ClientInfo client;
    private Phase phase = Phase.IDLE;
    /** The current request's head: held from IN_GATE until its answer is written (or its tunnel starts). */
    private Http1RequestHead head;
    private CharSequence authority;
    private CharSequence target;
    // Facts about the current request, set at its head.
    private boolean headRequest;
    private boolean http10;
    /** Its answer is the connection's last ({@code Connection: close}). */
    private boolean closeAfter;
    /** Body bytes of it are still to come (the decoder's end marker has not). */
    private boolean bodyLeft;
    /** The server stops: the current or next answer is the last (a fact about the connection). */
    private boolean draining;
    /**
     * The gate's dispatch of a head runs now, inside the read or the resume that decoded it: a
     * response that ends within it (a cache hit) leaves its flush to the read's end (or the
     * resume's), so pipelined answers share one write syscall, as gate answers do.
     */
    private boolean dispatching;
    /** A flush was left to the end of the read or resume. */
    private boolean flushLeft;
    /** In WAITING_FOR_POLICY: the policy reads the body ({@link #inspectBody}), so reads go on and chunks go to the cycle too. */
    private boolean inspectingBody;
    /** The upstream cannot take more of the forwarded body (back-pressure): reads stop. */
    private boolean upstreamFull;
    /** For the access log: when the head arrived (0 when the log is off) and what decided the request. */
    private long started;
    private int decision;

    public Http1GateHandler(ListenerServices context, Http1RequestDecoder decoder, Http1Deadlines deadlines, int maxPathBytes) {
        this.context = context;
        this.cycle = context.cycle();
        this.decoder = decoder;
        this.deadlines = deadlines;
        this.state = new RequestState(maxPathBytes);
        deadlines.listener(this);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (context.stopping()) {
            drain(ctx); // accepted while the listeners closed: the stop's DrainEvent may have missed it
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http1RequestHead h) {
            onHead(ctx, h);
        } else if (msg instanceof ByteBuf body) {
            deadlines.bodyRead(body.readableBytes());
            onBody(body);
        } else if (msg == Http1RequestEnd.INSTANCE) {
            deadlines.bodyDone();
            onBodyEnd();
        } else if (msg instanceof Http1Error error) {
            onDecodeError(error);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushLeft = false;
        ctx.flush();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        boolean forwarding = isForwarding();
        if (forwarding) {
            forwardStatus(0); // the client left mid-forward: counted and logged without a status if none was written
            if (phase != Phase.TUNNEL) {
                logEnd(); // a tunnel was logged at its 101
            }
        }
        phase = Phase.CLOSING;
        inspectingBody = false;
        exchange.clientClosed(forwarding);
        releaseHead();
        state.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (isForwarding()) {
            exchange.clientWritable();
        }
        super.channelWritabilityChanged(ctx);
    }

    /**
     * Server stop: the current request, or the next one, is answered with Connection: close, and the
     * connection ends after it. An idle connection gets {@link #DRAIN_IDLE_GRACE_MILLIS} for its next
     * request first: a client that reuses a keep-alive connection may have sent a request already, and
     * closing under it would lose that request (a POST is not retried). Then it is closed.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof DrainEvent) {
            drain(ctx);
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    private void drain(ChannelHandlerContext ctx) {
        if (draining) {
            return;
        }
        draining = true;
        if (phase == Phase.IDLE) {
            ctx.executor().schedule(() -> closeIfIdle(ctx), DRAIN_IDLE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void closeIfIdle(ChannelHandlerContext ctx) {
        if (phase == Phase.IDLE) {
            phase = Phase.CLOSING;
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // I/O errors (resets by the peer) end the connection; nothing to answer.
        ctx.close();
    }

    // ---- the request's way in: head, body, end, decoding errors ----

    /** IDLE -> IN_GATE: a request starts; the gate decides at once (or it is refused before the gate). */
    private void onHead(ChannelHandlerContext ctx, Http1RequestHead h) {
        if (isClosing()) {
            h.release();
            return;
        }
        head = h;
        phase = Phase.IN_GATE;
        started = cycle.startNanos();
        bodyLeft = h.hasBody();
        deadlines.headReceived(h.hasBody());
        if (client == null) {
            client = ClientInfoHandler.clientInfo(ctx.channel());
        }
        headRequest = h.isMethod(HttpMethod.HEAD.asciiName());
        closeAfter = draining || !h.isKeepAlive() || h.hasBody();
        http10 = h.version() == Http1RequestHead.HTTP_1_0;
        int refusal = refusal(h);
        if (refusal != 0) {
            // CONNECT may be followed by tunnel bytes at once; an unmappable target leaves nothing to trust.
            closeAfter = true;
            cycle.refuse(this, refusal);
            return;
        }
        dispatching = true;
        try {
            cycle.run(this, this);
        } finally {
            dispatching = false;
        }
    }

    /** A body chunk goes where the phase says: held, sent up, or (for an answered request) dropped. */
    private void onBody(ByteBuf chunk) {
        switch (phase) {
            case WAITING_FOR_POLICY -> {
                exchange.hold(chunk);
                if (inspectingBody) {
                    cycle.bodyChunk(this, chunk); // may decide at once: the chunk is held already
                }
            }
            case FORWARDING -> {
                // Until the upstream head is written. Unlike back-pressure this keeps the body-rate
                // rule running: connecting is bounded by the connect timeout, far below the rule's grace.
                exchange.hold(chunk);
                updateReads();
            }
            case FORWARDING_BODY, RESPONDING, TUNNEL -> exchange.sendBody(chunk);
            default -> chunk.release(); // the body of an answered request is read and dropped
        }
    }

    private void onBodyEnd() {
        bodyLeft = false;
        switch (phase) {
            case FORWARDING_BODY, RESPONDING -> exchange.endBody();
            case LINGERING, CLOSING -> {
                // The answered request's body is all read: the close (or the linger's end) is awaited.
                phase = Phase.CLOSING;
                state.clear();
                deadlines.requestDone(decoder.hasBufferedBytes());
            }
            case WAITING_FOR_POLICY -> {
                if (inspectingBody) {
                    cycle.bodyEnd(this); // the policy reading the body decides now
                }
            }
            default -> {
                // FORWARDING (and WAITING_FOR_POLICY): the end follows the held chunks (upstreamReady).
            }
        }
    }

    private void onDecodeError(Http1Error error) {
        if (isForwarding() && exchange.refuseBody(error.status())) {
            return; // a forwarded body broke a limit or its framing: the forwarder answers and closes
        }
        releaseHead();
        if (isClosing()) {
            return;
        }
        closeAfter = true;
        headRequest = false;
        started = 0;
        cycle.refuse(this, error.status());
    }

    /** Slowloris: the head did not complete within the header timeout. */
    @Override
    public void headerTimeout(ChannelHandlerContext c) {
        if (isClosing() || !c.channel().isActive()) {
            return;
        }
        closeAfter = true;
        headRequest = false;
        started = 0;
        cycle.refuse(this, 408);
    }

    /**
     * Requests refused before the gate: CONNECT (no tunnels, RFC 9110 9.3.6: we are not a forward
     * proxy) and absolute-form targets we cannot map (the head has no path for them). Sets the
     * view's authority and target from the head's positions.
     */
    private int refusal(Http1RequestHead h) {
        authority = null; // not stale from the previous request in a refused request's log line
        target = null;
        if (h.targetForm() == Http1RequestHead.AUTHORITY_FORM || h.isMethod(HttpMethod.CONNECT.asciiName())) {
            return 501;
        }
        authority = h.authority();
        target = h.path();
        return target == null ? 400 : 0;
    }

    // ---- ProtocolExchange: what the request cycle tells this connection to do ----

    @Override
    public Channel channel() {
        return ctx.channel();
    }

    @Override
    public void logDecision(int decision) {
        this.decision = decision;
    }

    /** IN_GATE -> CLOSING: no answer. */
    @Override
    public void drop() {
        logEnd();
        releaseHead();
        phase = Phase.CLOSING;
        ctx.close();
    }

    /**
     * IN_GATE -> FORWARDING: the request goes to the forwarder. Its body goes upstream instead of
     * being dropped, so it no longer forces a close; the head stays held (the next pipelined request
     * waits in the decoder) until the response ended. A body that arrived while a policy waited is
     * already in the exchange and goes up with the rest.
     */
    @Override
    public void forward() {
        decision = AccessLog.FORWARD;
        closeAfter = draining || !head.isKeepAlive();
        phase = Phase.FORWARDING;
        exchange.begin(ctx, head);
        context.forwarder().forward(state, exchange);
        if (phase == Phase.FORWARDING && exchange.hasHeldBody()) {
            updateReads();
        }
    }

    /**
     * IN_GATE -> WAITING_FOR_POLICY: an asynchronous policy starts. The head stays held, reading
     * stops, and body chunks already decoded wait until the decision; the client's body-rate rule
     * pauses meanwhile (the wait is the policy's, bounded by its timeout).
     */
    @Override
    public void pauseReads() {
        phase = Phase.WAITING_FOR_POLICY;
        updateReads();
        deadlines.bodyPaused(true);
    }

    /**
     * IN_GATE -> WAITING_FOR_POLICY for a policy that reads the body: the body is held as for
     * {@link #pauseReads}, but reading goes on (the body-rate rule with it) and each chunk also goes
     * to the request cycle.
     */
    @Override
    public void inspectBody() {
        phase = Phase.WAITING_FOR_POLICY;
        inspectingBody = true;
        updateReads();
    }

    /** HTTP/1.1 holds what arrives; the decoder's body limit bounds it. */
    @Override
    public long bodyHoldLimit() {
        return Long.MAX_VALUE;
    }

    @Override
    public boolean hasBody() {
        return head.hasBody();
    }

    /** WAITING_FOR_POLICY -> IN_GATE: the gate goes on; a held body is dropped unless it may still go up. */
    @Override
    public void resumeReads(GateOutcome outcome) {
        phase = Phase.IN_GATE;
        inspectingBody = false;
        updateReads();
        deadlines.bodyPaused(false);
        if (outcome != GateOutcome.FORWARD && outcome != GateOutcome.NEEDS_ASYNC) {
            exchange.releaseHeld(); // forward() sends the held body up; another policy keeps holding it
        }
    }

    @Override
    public boolean awaits(long requestId) {
        return phase == Phase.WAITING_FOR_POLICY && state.requestId() == requestId;
    }

    @Override
    public void resumed(GateOutcome outcome) {
        if (outcome == GateOutcome.RESPOND || outcome == GateOutcome.CHALLENGE) {
            resumeDecoding();
        }
        ctx.flush();
    }

    /**
     * Writes a precomputed answer; closes after it when the request asked for that or had a body.
     * Everything per request (Connection, the RateLimit fields, the request id) is decided first,
     * then the bytes go out in order: the precomputed fields, ours, the blank line, the body.
     */
    @Override
    public void writeAnswer(PrecomputedResponse response) {
        ChannelHandlerContext c = ctx;
        // draining: the stop began while this request was in flight (a forward); its answer is the last.
        boolean close = closeAfter || draining;
        int bodyLength = headRequest ? 0 : response.contentLength();
        boolean copyBody = bodyLength > 0 && (bodyLength <= COPY_BODY_LIMIT || response.isTemplate());
        boolean keepAlive10 = http10 && !close;
        boolean rateLimit = state.hasRateLimit();
        // The page's id (0 before the gate: a fresh one), also echoed in the request-id field when configured.
        long id = answerId(state.requestId());
        Snapshot snapshot = state.snapshot() != null ? state.snapshot() : context.gate().store().current();
        byte[] echo = snapshot.forwarding().echoRequestId() ? snapshot.forwarding().requestIdLinePrefix() : null;
        byte[] altSvc = altSvcLine();
        ByteBuf out = c.alloc().ioBuffer(response.http1FieldsLength(close, state) + (keepAlive10 ? KEEP_ALIVE.length : 0)
                + (rateLimit ? RateLimitFields.MAX_HTTP1_LENGTH : 0) + (echo != null ? echo.length + 18 : 0)
                + (altSvc != null ? altSvc.length : 0) + 2 + (copyBody ? bodyLength : 0));
        response.writeHttp1Fields(out, context.date(), close, state); // a templated Location is filled from the request
        if (altSvc != null) {
            out.writeBytes(altSvc);
        }
        if (rateLimit) {
            RateLimitFields.writeHttp1(out, state.rateLimitLimit(), state.rateLimitRemaining(), state.rateLimitReset());
        }
        if (echo != null) {
            out.writeBytes(echo);
            PrecomputedResponse.writeHex(out, id);
            out.writeShort(CRLF_SHORT);
        }
        if (keepAlive10) {
            out.writeBytes(KEEP_ALIVE);
        }
        out.writeShort(CRLF_SHORT);
        if (copyBody) {
            // Template slots (a request id, a challenge token for this client) are filled here.
            response.writeBody(out, id, state.clientIpHigh(), state.clientIpLow());
            c.write(out, c.voidPromise());
        } else if (bodyLength > 0) {
            c.write(out, c.voidPromise());
            c.write(response.retainedBody(), c.voidPromise());
        } else {
            c.write(out, c.voidPromise());
        }
        if (response.isOneShot()) {
            response.release(); // built for this request (a challenge's redirect): copied or retained above
        }
        state.status(response.status());
        state.addBytesSent(bodyLength);
        logEnd();
        releaseHead();
        if (close) {
            closeAfterWrite();
        } else {
            endRequest(); // close is false only without a body left (a body forces closeAfter)
        }
    }

    /**
     * The id an answer's page shows: the gate's, or for answers before the gate (a malformed head,
     * a timeout, a refusal; the state holds no request then, id 0) a fresh one.
     */
    static long answerId(long gateId) {
        return gateId != 0 ? gateId : java.util.concurrent.ThreadLocalRandom.current().nextLong();
    }

    // ---- the end of a forwarded request, from Http1Exchange ----

    /** Whether the forwarder has the current request: the exchange's callbacks act only then. */
    boolean isForwarding() {
        return phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING || phase == Phase.TUNNEL;
    }

    /** FORWARDING -> FORWARDING_BODY: the upstream head is written; what arrived goes up, then the rest as it comes. */
    void upstreamReady() {
        if (phase != Phase.FORWARDING) {
            return;
        }
        phase = Phase.FORWARDING_BODY;
        exchange.sendHeld();
        if (!bodyLeft) {
            exchange.endBody();
        }
        updateReads();
    }

    /** Back-pressure from the upstream: reads stop (true) or resume; the body-rate rule pauses meanwhile. */
    void upstreamFull(boolean full) {
        if (upstreamFull != full) {
            upstreamFull = full;
            updateReads();
            deadlines.bodyPaused(full);
        }
    }

    /** FORWARDING(_BODY) -> RESPONDING: the upstream's head is being written; its status counts the request. */
    void responseStarted(int status) {
        forwardStatus(status);
        phase = Phase.RESPONDING;
    }

    /** Whether the forwarded response must say Connection: close: decided at the head, by a stop, or a body still arriving. */
    boolean closesAfterResponse() {
        return closeAfter || draining || bodyLeft;
    }

    /** The forwarded response says Connection: close: the connection ends after it. */
    void closeAfterResponse() {
        closeAfter = true;
    }

    /**
     * The forwarder answers (502, 503, 504) instead of the upstream; may run after the read that
     * brought the request, so it flushes. A body still arriving is dropped behind a lingering close.
     */
    void answerForwarded(PrecomputedResponse response) {
        endForward();
        if (!ctx.channel().isActive()) {
            phase = Phase.CLOSING; // closed under the forward: channelInactive follows
            return;
        }
        if (bodyLeft) {
            closeAfter = true;
        }
        forwardStatus(response.status());
        writeAnswer(response);
        resumeDecoding();
        ctx.flush();
    }

    /** The upstream's response was written completely (a tunnel ended): keep-alive, or close. */
    void forwardDone() {
        ChannelHandlerContext c = ctx;
        boolean tunnel = phase == Phase.TUNNEL;
        endForward();
        if (!tunnel) {
            logEnd();
        }
        releaseHead();
        if (closeAfter || bodyLeft) {
            closeAfterWrite();
            return;
        }
        if (dispatching) {
            flushLeft = true; // a response that ended in the dispatch of its head: flushed when the read or resume ends
        } else {
            c.flush();
        }
        endRequest();
        resumeDecoding();
    }

    /** -> CLOSING: the response broke off (the upstream failed mid-way): the client learns it from the close. */
    void forwardAborted() {
        boolean tunnel = phase == Phase.TUNNEL;
        endForward();
        forwardStatus(0);
        if (!tunnel) {
            logEnd();
        }
        releaseHead();
        phase = Phase.CLOSING;
        ctx.flush();
        ctx.close();
    }

    /**
     * RESPONDING -> TUNNEL: a forwarded WebSocket handshake got 101. The decoder leaves (passing on
     * what it buffered as raw bytes, which go up as tunnel bytes) and so do the HTTP deadlines; the
     * tunnel's idle limit is the upstream side's. The head is released: nothing reads it any more.
     */
    void upgraded() {
        logEnd(); // a WebSocket is logged at its 101: the tunnel's end has no request any more
        releaseHead();
        phase = Phase.TUNNEL;
        closeAfter = true;
        ChannelHandlerContext c = ctx;
        if (c.pipeline().get(Http1Deadlines.class) != null) {
            c.pipeline().remove(Http1Deadlines.class);
        }
        if (c.pipeline().get(Http1RequestDecoder.class) != null) {
            c.pipeline().remove(Http1RequestDecoder.class);
        }
    }

    /** The listener's {@code Alt-Svc} field line when it serves HTTP/3 ({@link ListenerServices#altSvc}), else null. */
    byte[] altSvcLine() {
        ListenerServices.AltSvc a = context.altSvc();
        return a == null ? null : a.http1Line();
    }

    /** The connection's request state: the gate's, and the exchange's for the response head (its {@code RateLimit-*} fields). */
    @Override
    public RequestState state() {
        return state;
    }

    /** Body bytes of a forwarded response went to the client. */
    void sent(int bytes) {
        state.addBytesSent(bytes);
    }

    boolean isHeadRequest() {
        return headRequest;
    }

    boolean isHttp10() {
        return http10;
    }

    // ---- transitions and what they share ----

    /** -> IDLE: the request is done (answered, its body read); the next head may start. */
    private void endRequest() {
        phase = Phase.IDLE;
        state.clear();
        deadlines.requestDone(decoder.hasBufferedBytes());
    }

    /** -> LINGERING (body still arriving) or CLOSING: the connection closes once the answer is written. */
    private void closeAfterWrite() {
        boolean linger = bodyLeft;
        phase = linger ? Phase.LINGERING : Phase.CLOSING;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(linger ? LINGER : ChannelFutureListener.CLOSE);
    }

    /** The forwarder is done with the request: what the exchange held goes, and reads resume if it had stopped them. */
    private void endForward() {
        exchange.end();
        if (upstreamFull) {
            upstreamFull = false;
            deadlines.bodyPaused(false);
        }
        updateReads();
    }

    /**
     * Reads stop while a policy waits, while a body chunk waits for the upstream head, and while the
     * upstream is full; otherwise the socket is read.
     */
    private void updateReads() {
        boolean read = (phase != Phase.WAITING_FOR_POLICY || inspectingBody) && !upstreamFull
                && !(phase == Phase.FORWARDING && exchange.hasHeldBody());
        ChannelConfig config = ctx.channel().config();
        if (config.isAutoRead() != read) {
            config.setAutoRead(read);
        }
    }

    private boolean isClosing() {
        return phase == Phase.LINGERING || phase == Phase.CLOSING;
    }

    /**
     * A forwarded request's client-side status is known: the upstream's head, the forwarder's own
     * answer, or 0 when it ended without one. Counted once: only before the response head. 0 B.
     */
    private void forwardStatus(int status) {
        if (phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY) {
            cycle.forwarded(state, status);
        }
    }

    private void releaseHead() {
        if (head != null) {
            head.release();
            head = null;
        }
    }

    /** The one end-of-request hook of this protocol: the access-log line (0 B on the loop; nothing when off). */
    private void logEnd() {
        cycle.log(AccessLog.HTTP1, state, head == null ? null : this, client, started, decision);
    }

    /**
     * A request pipelined behind the one just answered waits in the decoder until the head is
     * released; outside the read that brought it nothing else would decode it. A no-op while the
     * decoder is running (a synchronous answer).
     */
    private void resumeDecoding() {
        if (isClosing()) {
            return;
        }
        boolean left = flushLeft;
        flushLeft = false;
        try {
            decoder.resume(); // does nothing inside a read: the read's own decoding goes on instead
        } catch (Exception e) {
            ctx.fireExceptionCaught(e);
        }
        if (flushLeft && !dispatching) {
            flushLeft = false;
            ctx.flush(); // responses of resumed requests: no read-complete follows a resume
        }
        flushLeft |= left;
    }

    // ---- RequestView over the current head ----

    @Override
    public ClientInfo client() {
        return client;
    }

    @Override
    public CharSequence method() {
        return head.method();
    }

    @Override
    public CharSequence target() {
        return target;
    }

    @Override
    public CharSequence authority() {
        return authority;
    }

    @Override
    public CharSequence header(AsciiString lowerCaseName) {
        int i = head.findHeader(lowerCaseName);
        return i < 0 ? null : head.headerValue(i);
    }

    @Override
    public int headerCount() {
        return head.headerCount();
    }

    @Override
    public CharSequence headerName(int index) {
        return head.headerName(index);
    }

    @Override
    public CharSequence headerValue(int index) {
        return head.headerValue(index);
    }
}
