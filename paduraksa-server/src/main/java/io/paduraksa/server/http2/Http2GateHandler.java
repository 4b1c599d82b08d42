package io.paduraksa.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.ops.Metrics;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.ValueTemplate;
import io.paduraksa.server.cycle.DrainEvent;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.cycle.RequestCycle;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.Snapshot;
import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/2 (h2c prior knowledge, or h2 after ALPN) with the gate in front: Netty's
 * {@link Http2ConnectionHandler} with a frame listener, no child channel per stream (fewer objects
 * per stream than Netty's multiplex handler). When a stream's headers arrive the gate runs on a recycled
 * {@link Http2Exchange}; answers are written from precomputed parts, drops reset the stream,
 * FORWARD goes to the forwarder. Body frames of answered streams are consumed and credited.
 */
public final class Http2GateHandler extends Http2ConnectionHandler {
    /** Opaque data of the PING sent with a stop's first GOAWAY ("PADURAKS"). */
    private static final long DRAIN_PING = 0x5041445552414b53L;
    /** How long a stop's first GOAWAY waits for that PING's ack before the final GOAWAY. */
    private static final long DRAIN_ACK_MILLIS = 1_000;
    private final ListenerServices context;
    private final RequestCycle cycle;
    /** The answer's header block, reused for every answer on this connection (see its class comment). */
    private final Http2AnswerHeaders answerHeaders = new Http2AnswerHeaders();
    /** Streams handed to the forwarder, by id (their DATA frames, closes and writability go to the exchange). */
    private final IntObjectHashMap<Http2Exchange> forwarded = new IntObjectHashMap<>(8);
    /** Streams whose deciding policy awaits I/O (forward-auth), by id, with the body that arrived meanwhile. */
    private final IntObjectHashMap<HeldBody> awaiting = new IntObjectHashMap<>(4);
    private final long maxBodySize;
    private final long sendTimeoutNanos;
    /** The send-timeout check, made once per connection on first need; armed only while a stream waits. */
    private SendCheck sendCheck;
    private ClientInfo client;
    private ChannelHandlerContext ctx;
    /** The stop's final GOAWAY is out (see {@link #announceDrain}). */
    private boolean drainFinished;
    /** Whether extended CONNECT (RFC 8441) is advertised and taken: the listener's {@code h2_websockets}. */
    private final boolean websockets;
    /** Streams of this connection that are WebSocket tunnels now: while any is open, the connection is not idle. */
    private int tunnels;

    Http2GateHandler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
                     ListenerServices context, Http2Limits limits) {
        super(decoder, encoder, settings);
        this.context = context;
        this.cycle = context.cycle();
        this.maxBodySize = limits.maxBodySize();
        this.sendTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.sendTimeoutMillis());
        this.websockets = limits.websockets();
    }

    /**
     * A stream became a WebSocket tunnel (true) or such a tunnel ended (false). The last tunnel of a
     * stopping connection lets the close go on (see {@link #finishDrain}).
     */
    void tunnel(boolean open) {
        tunnels += open ? 1 : -1;
        if (tunnels == 0 && drainFinished && ctx.channel().isActive()) {
            closeGracefully(ctx);
        }
    }

    /**
     * A forwarded stream's response data waits for the client (its window, the connection's, or the
     * socket): make sure the send-timeout check runs. One timer per connection, scheduled only while
     * some stream waits, never per request.
     */
    void watchSend() {
        SendCheck check = sendCheck;
        if (check == null) {
            check = sendCheck = new SendCheck();
        }
        check.arm();
    }

    /**
     * {@code limits.send_timeout} on HTTP/2: a forwarded stream whose response data could not go to
     * the client for that long (a client that never opens its windows, e.g. INITIAL_WINDOW_SIZE 0,
     * or stops reading the socket) is reset with CANCEL; the reset ends its forward, which closes the
     * upstream connection or resets the upstream stream, and drops the data queued for it. Other
     * streams and the connection go on.
     */
    private final class SendCheck implements Runnable {
        private final long periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(50),
                Math.min(sendTimeoutNanos / 4, TimeUnit.SECONDS.toNanos(1)));
        private boolean armed;

        void arm() {
            if (!armed && ctx != null) {
                armed = true;
                ctx.executor().schedule(this, periodNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void run() {
            armed = false;
            if (forwarded.isEmpty() || !ctx.channel().isActive()) {
                return;
            }
            long now = System.nanoTime();
            boolean waiting = false;
            for (Http2Exchange e : forwarded.values().toArray(new Http2Exchange[0])) { // rare path: a stream waits
                long since = e.blockedSince;
                if (since == 0 || !e.isForwarding()) {
                    continue;
                }
                if (now - since > sendTimeoutNanos) {
                    resetStream(ctx, e.streamId, Http2Error.CANCEL.code(), ctx.voidPromise());
                } else {
                    waiting = true;
                }
            }
            flush();
            if (waiting) {
                arm();
            }
        }
    }

    /** {@code limits.max_body_size}: the most request body bytes a forwarded stream passes on. */
    long maxBodySize() {
        return maxBodySize;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        this.ctx = ctx;
        client = ctx.channel().attr(ClientInfoHandler.CLIENT_INFO).get();
        connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamActive(Http2Stream stream) {
                Metrics m = context.metrics();
                if (m != null) {
                    m.streamOpened();
                }
            }

            @Override
            public void onStreamClosed(Http2Stream stream) {
                Metrics m = context.metrics();
                if (m != null) {
                    m.streamClosed();
                }
                Http2Exchange e = forwarded.remove(stream.id());
                if (e != null) {
                    e.onClientClosed();
                }
                HeldBody held = awaiting.isEmpty() ? null : awaiting.remove(stream.id());
                if (held != null) {
                    held.release();
                    held.exchange.onClientClosed(); // reset while the policy waited: the decision finds it recycled
                }
            }
        });
        encoder().flowController().listener(stream -> {
            Http2Exchange e = forwarded.get(stream.id());
            if (e != null) {
                e.onWritable();
            }
        });
        if (context.stopping()) {
            // Accepted while the listeners closed (the stop's DrainEvent may have missed it): GOAWAY
            // after our SETTINGS, once this task is done.
            ctx.executor().execute(() -> ctx.pipeline().fireUserEventTriggered(DrainEvent.INSTANCE));
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable() && !forwarded.isEmpty()) {
            for (Http2Exchange e : forwarded.values().toArray(new Http2Exchange[0])) {
                e.onWritable(); // rare: the socket's buffer drained
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    ChannelHandlerContext context() {
        return ctx;
    }

    /** Writes what the flow controller holds back (DATA) and flushes: ctx.flush() alone would skip the former. */
    void flush() {
        flush(ctx);
    }

    void forgetForwarded(int streamId) {
        forwarded.remove(streamId);
    }

    /**
     * An idle connection (no frames for the idle timeout) or a stopping server closes gracefully:
     * GOAWAY, streams in flight finish (up to the graceful-shutdown timeout), then close. A stop
     * announces itself first ({@link #announceDrain}).
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof DrainEvent && !connection().goAwaySent()) {
            announceDrain(ctx);
            return;
        }
        if (evt instanceof IdleStateEvent && tunnels > 0) {
            return; // a WebSocket's quiet is the tunnel's to judge (the upstream side's idle timeout), as on HTTP/1.1
        }
        if (evt instanceof IdleStateEvent || evt instanceof DrainEvent) {
            // Our own close (Http2ConnectionHandler's) sends GOAWAY and waits for open streams;
            // ctx.close() would start at the handler before us and cut the connection without GOAWAY.
            close(ctx, ctx.newPromise());
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    /**
     * A stop's first step, as RFC 9113 6.8 advises: GOAWAY with the largest stream id (open no new
     * streams) and a PING. A request the client sent before it read that GOAWAY still arrives and is
     * served; the PING's ack (or {@link #DRAIN_ACK_MILLIS}, for a client that does not ack) shows
     * that everything sent before it has arrived, and {@link #finishDrain} follows. A single GOAWAY
     * naming the last stream seen, then the close, lost such a request to a reset.
     */
    private void announceDrain(ChannelHandlerContext ctx) {
        goAway(ctx, Integer.MAX_VALUE, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
        encoder().writePing(ctx, false, DRAIN_PING, ctx.newPromise());
        flush(ctx);
        ctx.executor().schedule(() -> finishDrain(ctx), DRAIN_ACK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * The stop's final GOAWAY names the last stream taken; the connection closes once its streams
     * are done. While a WebSocket tunnel is open the close waits for it (or for the server's
     * {@code drain_timeout}, after which the server closes what is left), as an HTTP/1.1 tunnel
     * does: Netty's close would cut it after its graceful-shutdown wait of
     * {@link Http2Limits#gracefulShutdownMillis}, whatever the drain timeout says.
     */
    private void finishDrain(ChannelHandlerContext ctx) {
        if (drainFinished || !ctx.channel().isActive()) {
            return;
        }
        drainFinished = true;
        goAway(ctx, connection().remote().lastStreamCreated(), Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
        if (tunnels > 0) {
            flush(ctx);
            return;
        }
        closeGracefully(ctx);
    }

    private void closeGracefully(ChannelHandlerContext ctx) {
        try {
            close(ctx, ctx.newPromise());
        } catch (Exception e) { // Netty's close declares it; it fails only when the channel is broken
            ctx.close();
        }
    }

    /**
     * I/O errors end the connection quietly, as on HTTP/1.1: a peer's reset, and writes after the
     * close (our answers use void promises, which report failures here). Netty's handler would pass
     * them to the pipeline's tail, one WARN log line per connection a client chooses to break, for
     * example on every rapid-reset attacker after its GOAWAY. HTTP/2 errors keep Netty's handling.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (cause instanceof IOException) {
            ctx.close();
            return;
        }
        if (isCancelledWrite(cause)) {
            return;
        }
        super.exceptionCaught(ctx, cause);
    }

    /**
     * A DATA frame queued for a stream that was reset meanwhile (by the client, or by the send
     * timeout): Netty's flow controller fails its (void) promise with STREAM_CLOSED, once per queued
     * frame. The stream is gone and nothing needs saying; passed on, each would make Netty write
     * another RST_STREAM and count it against the connection's reset limit, so that a stream with
     * hundreds of queued frames (an HTTP/2 upstream's 1 MiB window of 16 KiB frames) ended the whole
     * connection.
     */
    private boolean isCancelledWrite(Throwable cause) {
        if (!(cause instanceof Http2Exception.StreamException e) || e.error() != Http2Error.STREAM_CLOSED) {
            return false;
        }
        Http2Stream stream = connection().stream(e.streamId());
        return stream == null || stream.state() == Http2Stream.State.CLOSED;
    }

    final class Listener extends Http2FrameAdapter {
        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
            onRequestHeaders(ctx, streamId, headers, endOfStream);
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            onRequestHeaders(ctx, streamId, headers, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            Http2Exchange e = forwarded.isEmpty() ? null : forwarded.get(streamId);
            if (e != null && e.isForwarding()) {
                return e.onData(data, padding, endOfStream);
            }
            HeldBody held = awaiting.isEmpty() ? null : awaiting.get(streamId);
            if (held != null) {
                held.add(data, endOfStream);
                if (held.inspecting) {
                    inspectHeld(held, data, endOfStream); // a policy reads the body: it may decide now
                }
                return padding; // not credited: the client's window bounds what waits here
            }
            // Answered requests need no body: credit it back so the connection window stays open.
            return data.readableBytes() + padding;
        }

        /**
         * The client opened a stream's window: it took bytes, so a waiting forwarded stream made
         * progress and its send clock restarts. A connection-level update does not count for any
         * one stream (a stream whose own window stays shut still cannot send).
         */
        @Override
        public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {
            Http2Exchange e = streamId == 0 || forwarded.isEmpty() ? null : forwarded.get(streamId);
            if (e != null) {
                e.clientTookBytes();
            }
        }

        @Override
        public void onPingAckRead(ChannelHandlerContext ctx, long data) {
            if (data == DRAIN_PING) {
                finishDrain(ctx);
            }
        }
    }

    private void onRequestHeaders(ChannelHandlerContext ctx, int streamId, Http2Headers headers, boolean endOfStream) {
        Http2Stream stream = connection().stream(streamId);
        if (stream == null || isTrailers(stream)) {
            HeldBody held = awaiting.isEmpty() || !endOfStream ? null : awaiting.get(streamId);
            if (held != null && held.inspecting) {
                held.ended = true;
                cycle.bodyEnd(held.exchange); // trailers end a body a policy reads
            }
            return; // trailers of a request already decided, or a stream already gone
        }
        if (client == null) {
            client = ctx.channel().attr(ClientInfoHandler.CLIENT_INFO).get();
        }
        CharSequence method = headers.method();
        CharSequence protocol = headers.get(PROTOCOL);
        int extended = protocol == null ? NOT_EXTENDED : extendedConnect(method, protocol, headers, endOfStream);
        if (extended == MALFORMED) {
            // RFC 8441 3, 4 and RFC 9113 8.1.1: :protocol without our setting, on another method than
            // CONNECT, or without :authority is a malformed request: a stream error, as Netty treats a
            // missing :scheme or :path.
            resetStream(ctx, streamId, Http2Error.PROTOCOL_ERROR.code(), ctx.voidPromise());
            return;
        }
        boolean head = method != null && HttpMethod.HEAD.asciiName().contentEquals(method);
        Http2Exchange exchange = Http2Exchange.take(this, streamId, head, endOfStream);
        exchange.started = cycle.startNanos();
        exchange.websocket(extended == WEBSOCKET);
        exchange.view.reset(client, headers, extended == WEBSOCKET); // before a refusal too: its log line shows what was asked
        int refusal = extended > 0 ? extended : extended == WEBSOCKET ? 0 : refusal(method, headers);
        if (refusal == 0 && extended != WEBSOCKET && !endOfStream && Http2Exchange.declaredLength(headers) > maxBodySize) {
            refusal = 413; // refused before the gate, as the HTTP/1.1 decoder refuses such a head
        }
        if (refusal != 0) {
            cycle.refuse(exchange, refusal);
            return;
        }
        cycle.run(exchange.view, exchange);
    }

    // ---- what the request cycle tells a stream to do (through its Http2Exchange) ----

    /** Resets the stream without an answer. */
    void drop(Http2Exchange exchange) {
        int streamId = exchange.streamId;
        exchange.recycle();
        resetStream(ctx, streamId, Http2Error.CANCEL.code(), ctx.voidPromise());
    }

    /**
     * Hands the stream to the forwarder, then the body that arrived while a policy waited (if any;
     * dropped when the forward ended at once, the forwarder answering itself).
     */
    void forward(Http2Exchange exchange) {
        HeldBody held = awaiting.isEmpty() ? null : awaiting.remove(exchange.streamId);
        forwarded.put(exchange.streamId, exchange);
        exchange.forwarding();
        context.forwarder().forward(exchange.state, exchange);
        if (held != null) {
            if (exchange.isForwarding()) {
                replay(exchange, held);
            } else {
                held.release();
            }
        }
    }

    /**
     * An asynchronous policy starts: the stream is registered so that its DATA frames wait
     * unacknowledged and a reset by the client recycles it.
     */
    void pauseReads(Http2Exchange exchange) {
        if (!awaiting.containsKey(exchange.streamId)) {
            awaiting.put(exchange.streamId, new HeldBody(exchange));
        }
    }

    /** A policy reads the stream's body: DATA is held as for {@link #pauseReads} and handed to the cycle as it arrives. */
    void inspectBody(Http2Exchange exchange) {
        pauseReads(exchange);
        awaiting.get(exchange.streamId).inspecting = true;
    }

    /** Held DATA is not credited, so the stream's window is the most a waiting stream can send. */
    long bodyHoldLimit() {
        return decoder().flowController().initialWindowSize();
    }

    private void inspectHeld(HeldBody held, ByteBuf data, boolean endOfStream) {
        cycle.bodyChunk(held.exchange, data);
        if (endOfStream) {
            cycle.bodyEnd(held.exchange); // nothing when the chunk decided already
        }
    }

    /**
     * The policy decided: the held body stays for the forward (which takes it, {@link #forward}) or
     * another policy's wait, or is dropped.
     */
    void resumeReads(Http2Exchange exchange, GateOutcome outcome) {
        if (outcome == GateOutcome.NEEDS_ASYNC || outcome == GateOutcome.FORWARD) {
            return;
        }
        HeldBody held = awaiting.remove(exchange.streamId);
        if (held != null) {
            exchange.requestEnded |= held.ended;
            held.release();
        }
    }

    /** Hands the body that arrived while the policy waited to the forwarded exchange, crediting what it takes. */
    private void replay(Http2Exchange exchange, HeldBody held) {
        ByteBuf body = held.body != null ? held.body : Unpooled.EMPTY_BUFFER;
        int credit = held.ended || body.isReadable() ? exchange.onData(body, 0, held.ended) : 0;
        held.release();
        Http2Stream stream = connection().stream(exchange.streamId);
        if (credit > 0 && stream != null) {
            try {
                decoder().flowController().consumeBytes(stream, credit);
            } catch (Http2Exception e) {
                onError(ctx, false, e);
            }
        }
    }

    /** A waiting stream's body so far (rare path: a forward-auth call is in flight). */
    private static final class HeldBody {
        final Http2Exchange exchange;
        ByteBuf body;
        boolean ended;
        /** A policy reads this body: each DATA frame goes to the request cycle too. */
        boolean inspecting;

        HeldBody(Http2Exchange exchange) {
            this.exchange = exchange;
        }

        void add(ByteBuf data, boolean end) {
            ended |= end;
            if (data.isReadable()) {
                if (body == null) {
                    body = data.alloc().compositeBuffer();
                }
                ((CompositeByteBuf) body).addComponent(true, data.retain());
            }
        }

        void release() {
            if (body != null) {
                body.release();
                body = null;
            }
        }
    }

    /** The listener's {@code Alt-Svc} value when it serves HTTP/3, else null. */
    AsciiString altSvc() {
        return context.altSvc() == null ? null : context.altSvc().value();
    }

    /** The listener's request cycle: the forwarded stream's count and the access-log line go through it. */
    RequestCycle cycle() {
        return cycle;
    }

    /**
     * Whether the HEADERS frame being delivered is a request's trailers (its second HEADERS; a server
     * receives no informational ones). Netty marks headers, then trailers, received before calling
     * the listener; but a stream opened by HEADERS with END_STREAM is created half-closed (remote)
     * and marked once more when it is activated, so it shows "trailers received" on its first
     * HEADERS. Trailers never find a stream in that state (Netty refuses frames on a stream the peer
     * has closed), hence the second test. Reading Netty's marks replaces a per-stream property of
     * ours (one more slot in the stream's property array, 8 B, and a map lookup per HEADERS).
     */
    private static boolean isTrailers(Http2Stream stream) {
        return stream.isTrailersReceived() && stream.state() != Http2Stream.State.HALF_CLOSED_REMOTE;
    }

    /** {@link #extendedConnect}: not an extended CONNECT (no {@code :protocol}). */
    private static final int NOT_EXTENDED = -1;
    /** {@link #extendedConnect}: a WebSocket over HTTP/2 to run through the gate like a GET of its {@code :path}. */
    private static final int WEBSOCKET = 0;
    /** {@link #extendedConnect}: malformed, the stream is reset with PROTOCOL_ERROR. */
    private static final int MALFORMED = -2;
    private static final AsciiString PROTOCOL = Http2Headers.PseudoHeaderName.PROTOCOL.value();
    private static final AsciiString WEBSOCKET_PROTOCOL = AsciiString.cached("websocket");

    /**
     * A request with {@code :protocol} (RFC 8441 4): {@link #WEBSOCKET} for a CONNECT with
     * {@code :protocol websocket} and {@code :authority} (Netty checked {@code :scheme} and
     * {@code :path}); {@link #MALFORMED} when this listener does not advertise the setting, the
     * method is not CONNECT or {@code :authority} is missing; 501 for another protocol (we tunnel
     * only WebSockets); 400 when the HEADERS end the stream (a tunnel that can carry nothing).
     */
    private int extendedConnect(CharSequence method, CharSequence protocol, Http2Headers headers, boolean endOfStream) {
        if (!websockets || method == null || !HttpMethod.CONNECT.asciiName().contentEquals(method) || headers.authority() == null) {
            return MALFORMED;
        }
        if (!WEBSOCKET_PROTOCOL.contentEqualsIgnoreCase(protocol)) {
            return 501;
        }
        return endOfStream ? 400 : WEBSOCKET;
    }

    /**
     * Requests refused before the gate: a plain CONNECT gets 501 like on HTTP/1.1 (no tunnels to a
     * host the client names; an RFC 9113 8.5 CONNECT has no :path, so it is checked first; extended
     * CONNECT is {@link #extendedConnect}'s), a request without :method or :path 400
     * (malformed, RFC 9113 8.3.1). Returns 0 for the rest.
     */
    private static int refusal(CharSequence method, Http2Headers headers) {
        if (method == null) {
            return 400;
        }
        if (HttpMethod.CONNECT.asciiName().contentEquals(method)) {
            return 501;
        }
        if (headers.path() == null) {
            return 400;
        }
        // RFC 9113 8.3.1: a Host naming another entity than :authority makes the request malformed;
        // letting one of them win would let a client route by one name and be judged by the other.
        CharSequence authority = headers.authority();
        CharSequence host = authority == null ? null : headers.get(HttpHeaderNames.HOST);
        return host != null && !AsciiString.contentEqualsIgnoreCase(authority, host) ? 400 : 0;
    }

    /**
     * Writes a precomputed answer on the exchange's stream and ends the exchange. When the request's
     * body is still coming, the stream is then reset with NO_ERROR to ask the client to stop sending
     * (RFC 9113 8.1), but only once the answer's last frame is written: a reset at once would make
     * the flow controller drop the queued DATA frame, and the client would get headers without body.
     */
    void answer(Http2Exchange exchange, PrecomputedResponse response) {
        ChannelHandlerContext ctx = this.ctx;
        int streamId = exchange.streamId;
        boolean noBody = exchange.head || response.contentLength() == 0;
        Http2AnswerHeaders headers = answerHeaders.of(response, context.date().ascii());
        RequestState state = exchange.state;
        if (state.hasRateLimit()) {
            headers.rateLimit(state.rateLimitLimit(), state.rateLimitRemaining(), state.rateLimitReset());
        }
        long id = state.requestId() != 0 ? state.requestId() : ThreadLocalRandom.current().nextLong(); // 0 before the gate (a refusal): a fresh id
        Snapshot snapshot = state.snapshot() != null ? state.snapshot() : context.gate().store().current();
        ForwardingRules forwarding = snapshot.forwarding();
        if (forwarding.echoRequestId()) {
            headers.requestId(forwarding.requestIdHeader(), hex(id)); // a new value each time: HPACK may keep it in its table
        }
        if (context.altSvc() != null) {
            headers.altSvc(context.altSvc().value());
        }
        ValueTemplate template = response.headerTemplate();
        if (template != null) {
            // A Location filled from the request: a new value each time, as above (one small array per such
            // redirect until the HTTP/2 codec is ours; HTTP/1.1 writes it in place).
            byte[] value = new byte[template.length(state)];
            template.write(io.netty.buffer.Unpooled.wrappedBuffer(value).clear(), state);
            headers.templated(response.templateHeaderIndex(), new AsciiString(value, false));
        }
        encoder().writeHeaders(ctx, streamId, kept(streamId, noBody) ? headers.copy() : headers, 0, noBody, ctx.voidPromise());
        headers.reset();
        if (noBody && !exchange.requestEnded) {
            resetStream(ctx, streamId, Http2Error.NO_ERROR.code(), ctx.voidPromise());
        }
        if (!noBody) {
            ByteBuf body;
            if (response.isTemplate()) {
                body = ctx.alloc().ioBuffer(response.contentLength());
                response.writeBody(body, id, exchange.state.clientIpHigh(), exchange.state.clientIpLow());
            } else {
                body = response.retainedBody();
            }
            encoder().writeData(ctx, streamId, body, 0, true,
                    exchange.requestEnded ? ctx.voidPromise() : ctx.newPromise().addListener(new ResetWhenWritten(this, streamId)));
        }
        if (response.isOneShot()) {
            response.release(); // built for this request (a challenge's redirect): headers encoded, body copied or retained
        }
        exchange.state.status(response.status());
        exchange.state.addBytesSent(noBody ? 0 : response.contentLength());
        exchange.recycle();
    }

    /** The id as 16 lower-case hex digits, as in pages and the access log. */
    private static AsciiString hex(long id) {
        byte[] b = new byte[PrecomputedResponse.REQUEST_ID_LENGTH];
        for (int i = 0; i < b.length; i++) {
            int d = (int) (id >>> (60 - 4 * i)) & 0xF;
            b[i] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
        }
        return new AsciiString(b, false);
    }

    /**
     * Whether the encoder would keep the headers object instead of encoding it at once: only a
     * HEADERS frame that ends its stream while DATA of that stream waits in the flow controller
     * ({@code DefaultHttp2ConnectionEncoder.writeHeaders0}). Never for an answer, whose HEADERS is
     * its stream's first frame; checked so that the reused view can never be written late.
     */
    private boolean kept(int streamId, boolean endOfStream) {
        if (!endOfStream) {
            return false;
        }
        Http2Stream stream = connection().stream(streamId);
        return stream != null && encoder().flowController().hasFlowControlled(stream);
    }

    /**
     * Resets a stream with NO_ERROR once its answer is written. Only for answered requests whose body
     * was still coming, so the two objects it costs (promise and listener) stay off the common path.
     */
    private static final class ResetWhenWritten implements ChannelFutureListener {
        private final Http2GateHandler handler;
        private final int streamId;

        ResetWhenWritten(Http2GateHandler handler, int streamId) {
            this.handler = handler;
            this.streamId = streamId;
        }

        @Override
        public void operationComplete(ChannelFuture future) {
            ChannelHandlerContext ctx = handler.ctx;
            if (future.isSuccess() && handler.connection().stream(streamId) != null) {
                handler.resetStream(ctx, streamId, Http2Error.NO_ERROR.code(), ctx.voidPromise());
                ctx.flush();
            }
        }
    }

    /** Builds the handler with our limits and protections. */
    public static Http2GateHandler create(ListenerServices context, Http2Limits limits) {
        return new Builder(context, limits).build();
    }

    /** Netty's builder with our settings; frame listener and handler are made together. */
    static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Http2GateHandler, Builder> {
        private final ListenerServices context;
        private final Http2Limits limits;

        Builder(ListenerServices context, Http2Limits limits) {
            this.context = context;
            this.limits = limits;
            server(true);
            Http2Settings settings = Http2Settings.defaultSettings()
                    .maxConcurrentStreams(limits.maxConcurrentStreams())
                    .maxHeaderListSize(limits.maxHeaderListSize());
            if (limits.websockets()) {
                settings.connectProtocolEnabled(true); // RFC 8441 3: SETTINGS_ENABLE_CONNECT_PROTOCOL = 1
            }
            initialSettings(settings);
            validateHeaders(true);
            validateRequiredPseudoHeaders(true);
            // CVE-2023-44487 (rapid reset) and CONTINUATION floods: Netty counts and closes with GOAWAY.
            decoderEnforceMaxRstFramesPerWindow(limits.maxResetsPerWindow(), limits.resetWindowSeconds());
            decoderEnforceMaxSmallContinuationFrames(limits.maxSmallContinuationFrames());
            decoderEnforceMaxConsecutiveEmptyDataFrames(2);
            encoderEnforceMaxQueuedControlFrames(10_000);
            headerSensitivityDetector(new RequestIdNeverIndexed(context.gate().store()));
            gracefulShutdownTimeoutMillis(limits.gracefulShutdownMillis());
        }

        @Override
        protected Http2GateHandler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
            Http2GateHandler handler = new Http2GateHandler(decoder, encoder, settings, context, limits);
            frameListener(handler.new Listener());
            return handler;
        }

        @Override
        protected Http2GateHandler build() {
            return super.build();
        }
    }
}
