package io.paduraksa.server.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
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
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 with the gate in front, one instance per connection. It receives
 * {@link Http1RequestHead}s from {@link Http1RequestDecoder}, shows each to the gate through itself
 * (it is the {@link RequestView} over the head's positions: no Strings, no header objects), and
 * answers, drops or hands the request to the forwarder. The connection's one {@link RequestState}
 * is reset by every request. Answers are copied from precomputed parts into one pooled buffer and
 * flushed once per read, so pipelined requests are answered in order with one write.
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
    private static final int COPY_BODY_LIMIT = 16 * 1024;
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
    /** How long a draining server waits for an idle HTTP/1.1 connection's next request before closing it. */
    static final long DRAIN_IDLE_GRACE_MILLIS = 1_000;

    private ChannelHandlerContext ctx;
    private ClientInfo client;
    private Http1RequestHead head;
    private CharSequence authority;
    private CharSequence target;
    private boolean closeAfterAnswer;
    private boolean headRequest;
    private boolean http10KeepAlive;
    private boolean inRequest;
    private boolean discardingBody;
    private boolean closing;
    private boolean draining;
    /** A policy's I/O is pending (forward-auth); its body chunks wait in {@link #held}. */
    private boolean policyPending;
    private ArrayDeque<ByteBuf> held;
    private boolean heldEnd;
    /** For the access log: when the head arrived (0 when the log is off) and what decided the request. */
    private long started;
    private int decision;
    /** The forwarded request was counted (its status is known). */
    private boolean forwardCounted;

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
            if (exchange.isActive()) {
                exchange.onBody(body);
            } else if (policyPending) {
                hold(body);
            } else {
                body.release(); // the body of an answered request is read and dropped
            }
        } else if (msg == Http1RequestEnd.INSTANCE) {
            deadlines.bodyDone();
            if (exchange.isActive()) {
                exchange.onBodyEnd();
            } else if (policyPending) {
                heldEnd = true;
            } else {
                endOfRequest(ctx);
            }
        } else if (msg instanceof Http1Error error) {
            onDecodeError(ctx, error);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (exchange.isActive()) {
            forwardStatus(0); // the client left mid-forward: counted and logged without a status if none was written
            logForwardEnd();
        }
        exchange.onClientClosed();
        releaseHeld();
        releaseHead();
        state.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        exchange.onWritable();
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
        if (!inRequest) {
            ctx.executor().schedule(() -> closeIfIdle(ctx), DRAIN_IDLE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void closeIfIdle(ChannelHandlerContext ctx) {
        if (!inRequest && !closing) {
            closing = true;
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // I/O errors (resets by the peer) end the connection; nothing to answer.
        ctx.close();
    }

    private void onHead(ChannelHandlerContext ctx, Http1RequestHead h) {
        if (closing) {
            h.release();
            return;
        }
        head = h;
        inRequest = true;
        started = cycle.startNanos();
        discardingBody = h.hasBody();
        deadlines.headReceived(h.hasBody());
        if (client == null) {
            client = ClientInfoHandler.clientInfo(ctx.channel());
        }
        headRequest = h.isMethod(HttpMethod.HEAD.asciiName());
        closeAfterAnswer = draining || !h.isKeepAlive() || h.hasBody();
        http10KeepAlive = h.version() == Http1RequestHead.HTTP_1_0;
        int refusal = refusal(h);
        if (refusal != 0) {
            // CONNECT may be followed by tunnel bytes at once; an unmappable target leaves nothing to trust.
            closeAfterAnswer = true;
            cycle.refuse(this, refusal);
            return;
        }
        cycle.run(this, this);
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

    @Override
    public void drop() {
        drop(ctx);
    }

    /** Hands the request to the forwarder, then the body that arrived while a policy waited (if any). */
    @Override
    public void forward() {
        forward(ctx, head);
        replayHeld();
    }

    /**
     * An asynchronous policy starts: the head stays held, reading stops, and body chunks already
     * decoded wait until the decision; the client's body-rate rule pauses meanwhile (the wait is the
     * policy's, bounded by its timeout).
     */
    @Override
    public void pauseReads() {
        policyPending = true;
        ctx.channel().config().setAutoRead(false);
        deadlines.bodyPaused(true);
    }

    @Override
    public void resumeReads(GateOutcome outcome) {
        policyPending = false;
        ctx.channel().config().setAutoRead(true);
        deadlines.bodyPaused(false);
        if (outcome == GateOutcome.FORWARD || outcome == GateOutcome.NEEDS_ASYNC) {
            return; // forward() replays the held body; another policy keeps holding it
        }
        releaseHeld();
        if (heldEnd && outcome != GateOutcome.DROP) {
            discardingBody = false; // the whole body was read while waiting
        }
    }

    @Override
    public boolean awaits(long requestId) {
        return policyPending && state.requestId() == requestId && head != null;
    }

    @Override
    public void resumed(GateOutcome outcome) {
        if (outcome == GateOutcome.RESPOND || outcome == GateOutcome.CHALLENGE) {
            resumeDecoding();
        }
        ctx.flush();
    }

    private void hold(ByteBuf chunk) {
        if (held == null) {
            held = new ArrayDeque<>(4);
        }
        held.addLast(chunk);
    }

    private void replayHeld() {
        ArrayDeque<ByteBuf> chunks = held;
        while (chunks != null && !chunks.isEmpty()) {
            exchange.onBody(chunks.pollFirst());
        }
        if (heldEnd) {
            heldEnd = false;
            exchange.onBodyEnd();
        }
    }

    private void releaseHeld() {
        ArrayDeque<ByteBuf> chunks = held;
        while (chunks != null && !chunks.isEmpty()) {
            chunks.pollFirst().release();
        }
    }

    /**
     * Hands the request to the forwarder. Its body goes upstream instead of being dropped, so it no
     * longer forces a close; the head stays held (the next pipelined request waits in the decoder)
     * until the response ended.
     */
    private void forward(ChannelHandlerContext ctx, Http1RequestHead h) {
        discardingBody = false;
        decision = AccessLog.FORWARD;
        forwardCounted = false;
        closeAfterAnswer = draining || !h.isKeepAlive();
        exchange.begin(ctx, h, headRequest, closeAfterAnswer);
        context.forwarder().forward(state, exchange);
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

    /**
     * Writes a precomputed answer; closes after it when the request asked for that or had a body.
     * Everything per request (Connection, the RateLimit fields, the request id) is decided first,
     * then the bytes go out in order: the precomputed fields, ours, the blank line, the body.
     */
    @Override
    public void writeAnswer(PrecomputedResponse response) {
        ChannelHandlerContext c = ctx;
        // draining: the stop began while this request was in flight (a forward); its answer is the last.
        boolean close = closeAfterAnswer || draining;
        int bodyLength = headRequest ? 0 : response.contentLength();
        boolean copyBody = bodyLength > 0 && (bodyLength <= COPY_BODY_LIMIT || response.isTemplate());
        boolean keepAlive10 = http10KeepAlive && !close;
        boolean rateLimit = state.hasRateLimit();
        // The page's id (0 before the gate: a fresh one), also echoed in the request-id field when configured.
        long id = answerId(state.requestId());
        Snapshot snapshot = state.snapshot() != null ? state.snapshot() : context.gate().store().current();
        byte[] echo = snapshot.forwarding().echoRequestId() ? snapshot.forwarding().requestIdLinePrefix() : null;
        ByteBuf out = c.alloc().ioBuffer(response.http1FieldsLength(close) + (keepAlive10 ? KEEP_ALIVE.length : 0)
                + (rateLimit ? RateLimitFields.MAX_HTTP1_LENGTH : 0) + (echo != null ? echo.length + 18 : 0)
                + 2 + (copyBody ? bodyLength : 0));
        response.writeHttp1Fields(out, context.date(), close);
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
        finishAnswer(c, close);
    }

    /**
     * The id an answer's page shows: the gate's, or for answers before the gate (a malformed head,
     * a timeout, a refusal; the state holds no request then, id 0) a fresh one.
     */
    static long answerId(long gateId) {
        return gateId != 0 ? gateId : java.util.concurrent.ThreadLocalRandom.current().nextLong();
    }

    private void finishAnswer(ChannelHandlerContext c, boolean close) {
        releaseHead();
        if (close) {
            closing = true;
            c.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(discardingBody ? LINGER : ChannelFutureListener.CLOSE);
            return;
        }
        if (!discardingBody) {
            endOfRequest(c);
        }
    }

    private void drop(ChannelHandlerContext c) {
        logEnd();
        releaseHead();
        closing = true;
        c.close();
    }

    private void endOfRequest(ChannelHandlerContext c) {
        discardingBody = false;
        heldEnd = false;
        if (inRequest && head == null) {
            inRequest = false;
            state.clear();
            deadlines.requestDone(decoder.hasBufferedBytes());
        }
    }

    private void onDecodeError(ChannelHandlerContext c, Http1Error error) {
        if (exchange.isActive() && exchange.onBodyRefused(error.status())) {
            return; // a forwarded body broke a limit or its framing: the forwarder answers and closes
        }
        releaseHead();
        if (closing) {
            return;
        }
        closeAfterAnswer = true;
        headRequest = false;
        started = 0;
        cycle.refuse(this, error.status());
    }

    /** Slowloris: the head did not complete within the header timeout. */
    @Override
    public void headerTimeout(ChannelHandlerContext c) {
        if (closing || !c.channel().isActive()) {
            return;
        }
        closeAfterAnswer = true;
        headRequest = false;
        started = 0;
        cycle.refuse(this, 408);
    }

    private void releaseHead() {
        if (head != null) {
            head.release();
            head = null;
        }
    }

    // ---- the end of a forwarded request, from Http1Exchange ----

    /**
     * The forwarder answers (502, 503, 504) instead of the upstream; may run after the read that
     * brought the request, so it flushes. A body still arriving is dropped behind a lingering close.
     */
    void answerForwarded(PrecomputedResponse response, boolean bodyLeft) {
        if (!isOpen()) {
            return;
        }
        if (bodyLeft) {
            closeAfterAnswer = true;
            discardingBody = true;
        }
        forwardStatus(response.status());
        writeAnswer(response);
        resumeDecoding();
        ctx.flush();
    }

    /** The upstream's response was written completely. */
    void forwardDone(boolean close, boolean bodyLeft) {
        ChannelHandlerContext c = ctx;
        logForwardEnd();
        releaseHead();
        if (close || bodyLeft || closing) {
            closing = true;
            discardingBody = bodyLeft;
            c.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(bodyLeft ? LINGER : ChannelFutureListener.CLOSE);
            return;
        }
        c.flush();
        endOfRequest(c);
        resumeDecoding();
    }

    /** The response broke off (the upstream failed mid-way): the client learns it from the close. */
    void forwardAborted() {
        forwardStatus(0);
        logForwardEnd();
        releaseHead();
        closing = true;
        ctx.flush();
        ctx.close();
    }

    /**
     * A forwarded WebSocket handshake got 101: the connection becomes a tunnel. The decoder leaves
     * (passing on what it buffered as raw bytes) and so do the HTTP deadlines; the tunnel's idle
     * limit is the upstream side's. The head is released: nothing reads it any more.
     */
    void upgraded() {
        logEnd(); // a WebSocket is logged at its 101: the tunnel's end has no request any more
        releaseHead();
        ChannelHandlerContext c = ctx;
        if (c.pipeline().get(Http1Deadlines.class) != null) {
            c.pipeline().remove(Http1Deadlines.class);
        }
        if (c.pipeline().get(Http1RequestDecoder.class) != null) {
            c.pipeline().remove(Http1RequestDecoder.class);
        }
    }

    /** The connection's request state: the gate's, and the exchange's for the response head (its {@code RateLimit-*} fields). */
    @Override
    public RequestState state() {
        return state;
    }

    /**
     * A forwarded request's client-side status is known: the upstream's head, the forwarder's own
     * answer, or 0 when it ended without one. Counted once. 0 B.
     */
    void forwardStatus(int status) {
        if (forwardCounted) {
            return;
        }
        forwardCounted = true;
        cycle.forwarded(state, status);
    }

    /** Body bytes of a forwarded response went to the client. */
    void sent(int bytes) {
        state.addBytesSent(bytes);
    }

    /** The one end-of-request hook of this protocol: the access-log line (0 B on the loop; nothing when off). */
    private void logEnd() {
        cycle.log(AccessLog.HTTP1, state, head == null ? null : this, client, started, decision);
    }

    /** A forwarded request ended; an upgraded one (its head already released) was logged at the 101. */
    private void logForwardEnd() {
        if (head != null) {
            logEnd();
        }
    }

    void bodyPaused(boolean paused) {
        deadlines.bodyPaused(paused);
    }

    boolean isDraining() {
        return draining;
    }

    /**
     * A request pipelined behind the one just answered waits in the decoder until the head is
     * released; outside the read that brought it nothing else would decode it. A no-op while the
     * decoder is running (a synchronous answer).
     */
    private void resumeDecoding() {
        if (closing) {
            return;
        }
        try {
            decoder.resume();
        } catch (Exception e) {
            ctx.fireExceptionCaught(e);
        }
    }

    private boolean isOpen() {
        return inRequest && !closing && ctx.channel().isActive();
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
}
