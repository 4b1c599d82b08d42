package io.paduraksa.server.http3;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3Exception;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.AsciiString;
import io.netty.util.Recycler;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestRecycler;
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
import io.paduraksa.respond.ValueTemplate;
import io.paduraksa.server.cycle.HeldBody;
import io.paduraksa.server.cycle.ProtocolExchange;
import io.paduraksa.server.cycle.RequestCycle;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;
import io.paduraksa.snapshot.Snapshot;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One HTTP/3 request stream (RFC 9114 4.1): the handler of its {@link QuicStreamChannel}, the
 * request cycle's {@link ProtocolExchange} and, for a forwarded request, the forwarder's
 * {@link ForwardExchange}. One per stream (Netty makes a channel and pipeline per stream anyway).
 *
 * <p><b>One phase per stream.</b>
 * <pre>
 * HEADERS --headers--&gt; GATE --answer, drop, refusal--&gt; DONE
 *                       |  ^-- WAITING_FOR_POLICY (an asynchronous policy decides; the stream is not read)
 *                       +--forward--&gt; FORWARDING --upstream head written--&gt; FORWARDING_BODY
 *                                     --response head--&gt; RESPONDING --end, abort, the client's reset--&gt; DONE
 * </pre>
 * Besides the phase only facts: a HEAD request, whether the request's FIN has come, whether the
 * upstream pushes back.
 *
 * <p><b>The end of a response.</b> The FIN travels with bytes: the response's last frame is followed
 * by a reserved frame (RFC 9114 7.2.8: type 0x21, no payload; a receiver ignores it) written below
 * the HTTP/3 codec as one QUIC stream frame with the FIN ({@link #endStream}). A FIN written alone
 * after the last frame ({@code QuicStreamChannel.SHUTDOWN_OUTPUT} as that frame's listener, as this
 * class did) left Netty's QUIC client, now and then, with the whole response and no end: when the
 * last DATA went out in one packet and the bare FIN in the next (a forwarded response is written
 * from the upstream's read, outside QUIC's read loop, so each write is sent at once), the client had
 * read the stream dry and quiche never reported it readable again for the FIN
 * ({@code Http3AllocationIT}: one run of its 10,000 forwarded streams in two or three failed so). Written in the stream's order, the closing
 * frame also waits behind frames held for flow-control credit.
 *
 * <p><b>Back-pressure.</b> Request body: the stream is not read (auto-read off) while the upstream
 * head is not written, while the upstream connection is full and while a policy waits; QUIC's stream
 * flow control then stops the client. Response body: the stream's writability (quiche's stream
 * capacity) is the forwarder's {@link #isWritable}; {@code channelWritabilityChanged} resumes it.
 */
final class Http3Exchange extends Http3RequestStreamInboundHandler implements ProtocolExchange, ForwardExchange {
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    /** RFC 9114 7.2.8: 0x1f * N + 0x21 with N = 0, a one-byte variable-length integer. */
    private static final int RESERVED_FRAME_TYPE = 0x21;
    private static final AsciiString TE = AsciiString.cached("te");
    private static final AsciiString TRAILERS = AsciiString.cached("trailers");
    /** RFC 9114 4.2: connection-specific fields make a request malformed (Netty checks {@code connection} and {@code te} itself). */
    private static final AsciiString[] CONNECTION_SPECIFIC = {
            AsciiString.cached("keep-alive"), AsciiString.cached("proxy-connection"),
            AsciiString.cached("transfer-encoding"), AsciiString.cached("upgrade"), AsciiString.cached("connection")};

    enum Phase {
        /** The stream is open, its HEADERS have not come. */
        HEADERS,
        /**
         * The HEADERS came with the request's FIN in the same read: its DATA frames are decoded
         * right after them, so the gate runs at the read's end, with the whole body in hand.
         */
        COLLECTING,
        /** The gate decides (synchronously). */
        GATE,
        /** An asynchronous policy decides; the stream is not read meanwhile. */
        WAITING_FOR_POLICY,
        /** The forwarder has the request, the upstream head is not written: the stream is not read. */
        FORWARDING,
        /** The upstream head is written: DATA goes straight up. */
        FORWARDING_BODY,
        /** The upstream's response head went to the client; its body follows. */
        RESPONDING,
        /** The request ended: answered, dropped, reset, or its response done. */
        DONE
    }

    private final Http3DrainHandler connection;
    private final RequestCycle cycle;
    /**
     * The request's recycled state and view (the state holds an 8 KiB path buffer: made per stream
     * it was most of what a request allocated), taken with the stream, returned when the request ends.
     */
    private Slot slot = Slot.take();
    private RequestState state = slot.state;
    private Http3RequestView view = slot.view;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.HEADERS;
    private boolean head;
    /** The request's FIN has come: no more body. */
    private boolean requestEnded;
    private boolean logged;
    /** The upstream connection pushes back: the stream is not read meanwhile. */
    private boolean upstreamFull;
    /** In WAITING_FOR_POLICY: the policy reads the body ({@link #inspectBody}), so the stream is read and DATA goes to the cycle too. */
    private boolean inspectingBody;
    private long started;
    private int decision = AccessLog.RESPOND;
    private long received;
    private ForwardCall call;
    /** Body read before the upstream head was written (at most one read: the stream is not read meanwhile). */
    private final HeldBody pending = new HeldBody();

    Http3Exchange(Http3DrainHandler connection) {
        this.connection = connection;
        this.cycle = connection.services().cycle();
    }

    // ---- from the stream's pipeline ----

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        connection.streamOpened();
    }

    /** The stream's pipeline is gone (after its close, whether or not it was ever active): the connection counts it closed. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        pending.release();
        connection.streamClosed();
    }

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
        if (phase != Phase.HEADERS) {
            return; // trailers of a request already decided: nothing in them is forwarded
        }
        QuicStreamChannel stream = (QuicStreamChannel) ctx.channel();
        if (connection.refusesStream(stream.streamId())) {
            // Opened after our GOAWAY named a lower id (RFC 9114 5.2): not processed, the client may retry.
            phase = Phase.DONE;
            reset(Http3ErrorCode.H3_REQUEST_REJECTED);
            return;
        }
        Http3Headers headers = frame.headers();
        CharSequence method = headers.method();
        head = method != null && HttpMethod.HEAD.asciiName().contentEquals(method);
        requestEnded = stream.isInputShutdown(); // a FIN read with the HEADERS is seen before they are delivered
        phase = Phase.GATE;
        started = cycle.startNanos();
        view.reset(connection.client(), headers);
        view.hasBody(!requestEnded);
        int refusal = refusal(method, headers);
        if (refusal == 0 && !requestEnded && declaredLength(headers) > connection.limits().maxBodySize()) {
            refusal = 413;
        }
        if (refusal != 0) {
            cycle.refuse(this, refusal);
            return;
        }
        if (requestEnded) {
            phase = Phase.COLLECTING; // the gate runs in channelReadComplete
            return;
        }
        cycle.run(view, this);
    }

    /** The read that brought a complete request is decoded: its gate runs now (see {@link Phase#COLLECTING}). */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (phase == Phase.COLLECTING) {
            phase = Phase.GATE;
            view.hasBody(pending.isReadable()); // the DATA that came with the FIN
            cycle.run(view, this);
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * Requests refused before the gate: a plain CONNECT 501, as on HTTP/1.1 and HTTP/2 (no tunnels;
     * extended CONNECT is not offered on HTTP/3, so {@code :protocol} is malformed), a request
     * without {@code :method} or {@code :path} or with a connection-specific field 400 (malformed,
     * RFC 9114 4.1.2, 4.2; answered instead of a bare reset, as 4.1.2 allows). Netty's validation
     * has already reset streams with unknown, repeated or misplaced pseudo-header fields, a
     * {@code connection} field, a {@code te} other than {@code trailers} and a {@code host} that
     * disagrees with {@code :authority}. 0 for the rest.
     */
    private static int refusal(CharSequence method, Http3Headers headers) {
        if (method == null) {
            return 400;
        }
        if (HttpMethod.CONNECT.asciiName().contentEquals(method)) {
            return headers.get(Http3Headers.PseudoHeaderName.PROTOCOL.value()) != null ? 400 : 501;
        }
        if (headers.path() == null || headers.get(Http3Headers.PseudoHeaderName.PROTOCOL.value()) != null) {
            return 400;
        }
        for (AsciiString name : CONNECTION_SPECIFIC) {
            if (headers.contains(name)) {
                return 400;
            }
        }
        CharSequence te = headers.get(TE);
        return te != null && !TRAILERS.contentEqualsIgnoreCase(te) ? 400 : 0;
    }

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
        ByteBuf data = frame.content();
        int n = data.readableBytes();
        received += n;
        if (phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING) {
            if (received > connection.limits().maxBodySize()) {
                frame.release();
                bodyTooLarge();
                return;
            }
            if (n > 0 && call != null) {
                call.requestBody(data.retain());
            }
        } else if ((phase == Phase.FORWARDING || phase == Phase.WAITING_FOR_POLICY || phase == Phase.COLLECTING) && n > 0) {
            if (received > connection.limits().maxBodySize()) {
                frame.release();
                bodyTooLarge();
                return;
            }
            pending.add(data.retain());
            if (inspectingBody && phase == Phase.WAITING_FOR_POLICY) {
                cycle.bodyChunk(this, data); // held already; the policy reading the body may decide now
            }
        }
        frame.release(); // an answered request's body is read and dropped (its stream was asked to stop sending)
    }

    /** The body passed {@code limits.max_body_size}: the upstream request is abandoned, the client gets 413 (or a reset once its response started). */
    private void bodyTooLarge() {
        pending.release();
        ForwardCall c = call;
        if (c != null) {
            c.requestRefused(413);
        } else if (phase == Phase.WAITING_FOR_POLICY || phase == Phase.COLLECTING) {
            phase = Phase.GATE;
            cycle.refuse(this, 413);
        }
    }

    /** The request's FIN (RFC 9114 4.1: the request is complete). */
    @Override
    protected void channelInputClosed(ChannelHandlerContext ctx) {
        requestEnded = true;
        if (phase == Phase.WAITING_FOR_POLICY && inspectingBody) {
            cycle.bodyEnd(this); // the policy reading the body decides now
        }
        if ((phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING) && call != null) {
            call.requestEnd();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && call != null && isForwarding()) {
            call.clientWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** The stream is gone: a request still in flight ends here (the client reset it, or the connection closed). */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (phase != Phase.DONE) {
            ForwardCall c = call;
            call = null;
            if (c != null) {
                c.clientClosed();
            }
            forwardStatus(0);
            end();
        }
        pending.release();
        ctx.fireChannelInactive();
    }

    /** QUIC errors on the stream (the client's RESET_STREAM or STOP_SENDING): the stream closes; nothing to log. */
    @Override
    protected void handleQuicException(ChannelHandlerContext ctx, QuicException exception) {
        ctx.close();
    }

    /** HTTP/3 errors: Netty has reset the stream (malformed frames, field section too large); close it quietly. */
    @Override
    protected void handleHttp3Exception(ChannelHandlerContext ctx, Http3Exception exception) {
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof QuicException || cause instanceof Http3Exception) {
            super.exceptionCaught(ctx, cause);
            return;
        }
        ctx.close(); // an I/O error on the stream: the client's to retry
    }

    // ---- ProtocolExchange ----

    @Override
    public RequestState state() {
        return state;
    }

    /** The QUIC connection (an asynchronous policy's I/O runs on its event loop). */
    @Override
    public Channel channel() {
        return ctx.channel().parent();
    }

    @Override
    public void logDecision(int decision) {
        this.decision = decision;
    }

    /**
     * HEADERS (the precomputed status and fields, the date, the request's own fields), DATA unless
     * HEAD or empty, then FIN once the last frame is taken. A body still coming is refused with
     * STOP_SENDING (H3_NO_ERROR, RFC 9114 4.1.1).
     */
    @Override
    public void writeAnswer(PrecomputedResponse response) {
        ChannelHandlerContext ctx = this.ctx;
        boolean noBody = head || response.contentLength() == 0;
        Http3Headers headers = answerHeaders(response);
        long id = state.requestId() != 0 ? state.requestId() : ThreadLocalRandom.current().nextLong();
        if (noBody) {
            ctx.write(new DefaultHttp3HeadersFrame(headers), ctx.voidPromise());
        } else {
            ctx.write(new DefaultHttp3HeadersFrame(headers), ctx.voidPromise());
            ByteBuf body;
            if (response.isTemplate()) {
                body = ctx.alloc().directBuffer(response.contentLength());
                response.writeBody(body, id, state.clientIpHigh(), state.clientIpLow());
            } else {
                body = response.retainedBody();
            }
            ctx.write(new DefaultHttp3DataFrame(body), ctx.voidPromise());
        }
        endStream();
        if (response.isOneShot()) {
            response.release();
        }
        state.status(response.status());
        state.addBytesSent(noBody ? 0 : response.contentLength());
        stopReading();
        ctx.flush();
        end();
    }

    /** The answer's header block: status, the answer's lower-case fields, date, RateLimit-*, the echoed request id. */
    private Http3Headers answerHeaders(PrecomputedResponse response) {
        AsciiString[] names = response.headerNames();
        AsciiString[] values = response.headerValues();
        Http3Headers h = new DefaultHttp3Headers(false, names.length + 6);
        h.status(response.statusText());
        ValueTemplate template = response.headerTemplate();
        for (int i = 0; i < names.length; i++) {
            if (template != null && i == response.templateHeaderIndex()) {
                byte[] value = new byte[template.length(state)];
                template.write(io.netty.buffer.Unpooled.wrappedBuffer(value).clear(), state);
                h.add(names[i], new AsciiString(value, false));
            } else {
                h.add(names[i], values[i]);
            }
        }
        h.add(HttpHeaderNames.DATE, connection.services().date().ascii());
        if (state.hasRateLimit()) {
            h.add(RateLimitFields.LIMIT, RateLimitFields.ascii(state.rateLimitLimit()));
            h.add(RateLimitFields.REMAINING, RateLimitFields.ascii(state.rateLimitRemaining()));
            h.add(RateLimitFields.RESET, RateLimitFields.ascii(state.rateLimitReset()));
        }
        Snapshot snapshot = state.snapshot() != null ? state.snapshot() : connection.services().gate().store().current();
        ForwardingRules forwarding = snapshot.forwarding();
        if (forwarding.echoRequestId() && state.requestId() != 0) {
            h.add(forwarding.requestIdHeader(), ForwardingFields.echoValue(state, forwarding));
        }
        return h;
    }

    /** Ends the stream without an answer: both directions reset with H3_REQUEST_CANCELLED. */
    @Override
    public void drop() {
        end();
        reset(Http3ErrorCode.H3_REQUEST_CANCELLED);
    }

    @Override
    public void forward() {
        phase = Phase.FORWARDING;
        decision = AccessLog.FORWARD;
        autoRead(false); // until the upstream head is written
        connection.services().forwarder().forward(state, this);
    }

    /** GATE -> WAITING_FOR_POLICY: the stream is not read until the policy decided. */
    @Override
    public void pauseReads() {
        phase = Phase.WAITING_FOR_POLICY;
        autoRead(false);
    }

    /** WAITING_FOR_POLICY -> GATE; a held body is dropped unless the request is forwarded or another policy waits. */
    @Override
    public void resumeReads(GateOutcome outcome) {
        phase = Phase.GATE;
        inspectingBody = false;
        if (outcome != GateOutcome.FORWARD && outcome != GateOutcome.NEEDS_ASYNC) {
            pending.release();
        }
        if (outcome != GateOutcome.NEEDS_ASYNC && outcome != GateOutcome.FORWARD) {
            autoRead(true);
        }
    }

    /**
     * GATE -> WAITING_FOR_POLICY for a policy that reads the body: DATA is held as for {@link #pauseReads},
     * but the stream is read and each frame also goes to the cycle; a body that came with the HEADERS in
     * one read ({@link Phase#COLLECTING}) is handed over at once, and its end with it.
     */
    @Override
    public void inspectBody() {
        phase = Phase.WAITING_FOR_POLICY;
        inspectingBody = true;
        if (pending.isReadable()) {
            cycle.bodyChunk(this, pending.bytes());
        }
        if (requestEnded && phase == Phase.WAITING_FOR_POLICY) {
            cycle.bodyEnd(this); // nothing when the chunk decided already
        }
        if (phase == Phase.WAITING_FOR_POLICY && !requestEnded) {
            autoRead(true);
        }
    }

    /** HTTP/3 holds what arrives; {@code limits.max_body_size} bounds it (413). */
    @Override
    public long bodyHoldLimit() {
        return Long.MAX_VALUE;
    }

    @Override
    public boolean awaits(long requestId) {
        return phase == Phase.WAITING_FOR_POLICY && state.requestId() == requestId; // state is null only once DONE
    }

    @Override
    public void resumed(GateOutcome outcome) {
        if (ctx != null) {
            ctx.flush();
        }
    }

    // ---- ForwardExchange ----

    /** The forwarder's own answer (502, 503, 504, 413 ...). */
    @Override
    public void answer(PrecomputedResponse response) {
        if (isOpen()) {
            forwardStatus(response.status());
            pending.release();
            call = null;
            if (phase == Phase.RESPONDING) {
                abort();
                return;
            }
            writeAnswer(response);
        }
    }

    @Override
    public boolean isOpen() {
        return phase != Phase.DONE;
    }

    @Override
    public EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    @Override
    public long requestBodyLength() {
        if (requestEnded) {
            return pending.readableBytes(); // the whole body is here
        }
        long n = declaredLength(view.headers());
        return n <= 0 ? -1 : n;
    }

    /** The request's {@code content-length}, or -1 when absent or not only digits (Netty checks DATA against it). */
    static long declaredLength(Http3Headers headers) {
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
        return false;
    }

    @Override
    public void offerRequestFields(FieldSink sink, ForwardingRules rules) {
        boolean trusted = state.isPeerTrustedProxy();
        for (Map.Entry<CharSequence, CharSequence> e : view.headers()) {
            CharSequence name = e.getKey();
            if (name.length() > 0 && name.charAt(0) != ':' && ForwardingFields.isForwarded(name, rules, trusted)) {
                sink.field(name, e.getValue()); // QPACK's names are lower case; values are immutable
            }
        }
    }

    @Override
    public void attach(ForwardCall call) {
        this.call = call;
    }

    /** FORWARDING -> FORWARDING_BODY: what was read goes up, then the end if it came; the stream is read again. */
    @Override
    public void requestBodyReady() {
        if (phase == Phase.FORWARDING) {
            phase = Phase.FORWARDING_BODY;
        }
        pending.sendTo(call, requestEnded);
        if (!requestEnded && !upstreamFull) {
            autoRead(true);
        }
    }

    @Override
    public void pauseRequestBody(boolean pause) {
        upstreamFull = pause;
        if (!requestEnded && (phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING)) {
            autoRead(!pause);
        }
    }

    @Override
    public void interimResponse(ResponseHead interim) {
        // 1xx are not relayed (optional; a 100-continue is answered by the final response).
    }

    @Override
    public void responseHead(ResponseHead h, ResponseHeaderRules rules, byte[] extraLine) {
        forwardStatus(h.status());
        phase = Phase.RESPONDING;
        Http3Headers out = new DefaultHttp3Headers(false, h.headerCount() + rules.names().length + 5);
        out.status(HttpResponseStatus.valueOf(h.status()).codeAsText());
        for (int i = 0, n = h.headerCount(); i < n; i++) {
            CharSequence name = h.headerName(i);
            if (rules.isRemoved(name) || h.isConnectionOption(name)) {
                continue; // the rules remove hop-by-hop fields and Transfer-Encoding
            }
            out.add(new AsciiString(name).toLowerCase(), new AsciiString(h.headerValue(i))); // the upstream's head is released later
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
        if (forwarding.echoForwardedRequestId()) {
            out.set(forwarding.requestIdHeader(), ForwardingFields.echoValue(state, forwarding));
        }
        if (state.hasRateLimit()) {
            out.set(RateLimitFields.LIMIT, RateLimitFields.ascii(state.rateLimitLimit()));
            out.set(RateLimitFields.REMAINING, RateLimitFields.ascii(state.rateLimitRemaining()));
            out.set(RateLimitFields.RESET, RateLimitFields.ascii(state.rateLimitReset()));
        }
        if (head || !h.hasBody()) {
            ctx.write(new DefaultHttp3HeadersFrame(out), ctx.voidPromise());
            endStream();
            finish();
        } else {
            ctx.write(new DefaultHttp3HeadersFrame(out), ctx.voidPromise());
        }
    }

    /** A precomputed "Name: value\r\n" line (an affinity cookie) as a lower-case field. */
    private static void addLine(Http3Headers out, byte[] line) {
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
    public void upgraded() {
        abort(); // never asked for (isUpgradeRequest is false): nothing can be tunnelled over HTTP/3 here
    }

    @Override
    public void responseBody(ByteBuf chunk) {
        if (!isOpen() || head) {
            chunk.release();
            return;
        }
        state.addBytesSent(chunk.readableBytes());
        ctx.write(new DefaultHttp3DataFrame(chunk), ctx.voidPromise());
    }

    /** The stream can take more (quiche's stream capacity); when not, {@code channelWritabilityChanged} resumes the forwarder. */
    @Override
    public boolean isWritable() {
        return ctx.channel().isWritable();
    }

    @Override
    public void flush() {
        ctx.flush();
    }

    @Override
    public void responseEnd(ResponseTrailers trailers) {
        if (!isOpen()) {
            return;
        }
        if (!head && trailers != null && trailers.count() > 0) {
            Http3Headers t = new DefaultHttp3Headers(false, trailers.count());
            for (int i = 0; i < trailers.count(); i++) {
                t.add(new AsciiString(trailers.name(i)).toLowerCase(), new AsciiString(trailers.value(i)));
            }
            ctx.write(new DefaultHttp3HeadersFrame(t), ctx.voidPromise());
        }
        endStream();
        finish();
    }

    /** The response is written (its FIN follows its last frame): a body still coming is refused, the request ends. */
    private void finish() {
        call = null;
        stopReading();
        ctx.flush();
        end();
    }

    /** The response cannot be completed: the stream is reset (H3_INTERNAL_ERROR), so the client cannot take a cut body for a whole one. */
    @Override
    public void abort() {
        if (!isOpen()) {
            return;
        }
        call = null;
        forwardStatus(0);
        end();
        reset(Http3ErrorCode.H3_INTERNAL_ERROR);
    }

    // ---- helpers ----

    /**
     * Ends the response stream: a reserved frame (type 0x21, length 0: two bytes) and the FIN in one
     * QUIC stream frame, written at the head of the stream's pipeline (below the HTTP/3 codec, which
     * takes only HTTP/3 frames) and so after every frame written before it.
     */
    private void endStream() {
        ByteBuf closing = ctx.alloc().directBuffer(2).writeByte(RESERVED_FRAME_TYPE).writeByte(0);
        ctx.pipeline().firstContext().write(new DefaultQuicStreamFrame(closing, true), ctx.voidPromise());
    }

    private boolean isForwarding() {
        return phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY || phase == Phase.RESPONDING;
    }

    private void autoRead(boolean on) {
        if (ctx != null) {
            ctx.channel().config().setAutoRead(on);
        }
    }

    /** The response is complete: a request body still coming is not wanted (STOP_SENDING, H3_NO_ERROR). */
    private void stopReading() {
        pending.release();
        QuicStreamChannel stream = (QuicStreamChannel) ctx.channel();
        if (!requestEnded && !stream.isInputShutdown()) {
            stream.shutdownInput(Http3ErrorCode.H3_NO_ERROR.code(), stream.voidPromise());
        }
    }

    /** Resets both directions with {@code code} (RESET_STREAM and STOP_SENDING) and closes the stream channel. */
    private void reset(Http3ErrorCode code) {
        pending.release();
        QuicStreamChannel stream = (QuicStreamChannel) ctx.channel();
        stream.shutdown(code.code(), stream.voidPromise());
        stream.close();
    }

    /** A forwarded request's status is known (counted once, before the response head). */
    private void forwardStatus(int status) {
        if (phase == Phase.FORWARDING || phase == Phase.FORWARDING_BODY) {
            cycle.forwarded(state, status);
        }
    }

    /** -> DONE: the one end-of-request hook (the access-log line). */
    private void end() {
        if (phase == Phase.DONE) {
            return;
        }
        phase = Phase.DONE;
        if (!logged) {
            logged = true;
            cycle.log(AccessLog.HTTP3, state, view.headers() == null ? null : view, connection.client(), started, decision);
        }
        call = null;
        Slot s = slot;
        slot = null;
        view.clear();
        state.clear();
        state = null; // a late use fails loudly instead of reading the next request's state
        view = null;
        s.handle.recycle(s);
    }

    /** A request's state and view, pooled per event loop (Netty's {@link Recycler}: 0 B to take and return there). */
    private static final class Slot {
        private static final Recycler<Slot> RECYCLER = new RequestRecycler<>() {
            @Override
            protected Slot newObject(Handle<Slot> handle) {
                return new Slot(handle);
            }
        };
        final Recycler.Handle<Slot> handle;
        final RequestState state = new RequestState();
        final Http3RequestView view = new Http3RequestView();

        private Slot(Recycler.Handle<Slot> handle) {
            this.handle = handle;
        }

        static Slot take() {
            return RECYCLER.get();
        }
    }
}
