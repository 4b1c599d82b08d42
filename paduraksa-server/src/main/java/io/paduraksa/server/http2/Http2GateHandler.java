package io.paduraksa.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.RequestState;
import io.paduraksa.http2.HpackEncoder;
import io.paduraksa.http2.HpackFieldSink;
import io.paduraksa.http2.HpackStaticTable;
import io.paduraksa.http2.Http2Connection;
import io.paduraksa.http2.Http2ErrorCodes;
import io.paduraksa.http2.Http2Violation;
import io.paduraksa.ops.Metrics;
import io.paduraksa.proxy.ForwardingFields;
import io.paduraksa.proxy.LoopFlushes;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.respond.AsciiNumbers;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.RateLimitFields;
import io.paduraksa.respond.ValueTemplate;
import io.paduraksa.server.cycle.DrainEvent;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.cycle.RequestCycle;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;
import io.paduraksa.snapshot.Snapshot;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * HTTP/2 (h2c prior knowledge, or h2 after ALPN) with the gate in front, on our own codec
 * ({@link Http2Connection}: frames, HPACK, streams, flow control). When a stream's headers arrive,
 * the gate runs on a recycled {@link Http2Exchange} over the decoded fields' positions; answers go
 * out as HPACK blocks written straight into the connection's outbound buffer (static indices,
 * literals without indexing, the cached date, the request id and a templated Location written per
 * request), drops reset the stream, FORWARD goes to the forwarder. One flush per read batch.
 *
 * <p>Streams are slots of the connection's table; {@link #exchanges} holds the exchange of each
 * slot whose request is not done (an answered stream whose DATA still waits for the client's
 * window has a slot and no exchange).
 */
public final class Http2GateHandler extends ByteToMessageDecoder implements Http2Connection.Handler {
    private static final AsciiString CONNECT = AsciiString.cached("CONNECT");
    private static final AsciiString HEAD = AsciiString.cached("HEAD");
    private static final AsciiString WEBSOCKET = AsciiString.cached("websocket");
    private static final HpackFieldSink IGNORED = (name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex) -> {
    };
    /** {@code date}: static name index 33 as a literal without indexing (4-bit prefix: 15, then 18), 29 bytes. */
    private static final int DATE_NAME_INDEX = 33;

    private final ListenerServices services;
    private final RequestCycle cycle;
    private final Http2Limits limits;
    private final Http2Connection connection;
    private final Http2Exchange[] exchanges;
    private final boolean[] opened;
    /** A field block being built (a response head, trailers), then framed by the connection. */
    private final ByteBuf block = Unpooled.buffer(1024);
    private final long sendTimeoutNanos;
    private SendCheck sendCheck;
    private ClientInfo client;
    private ChannelHandlerContext ctx;
    private int tunnels;
    /** When a frame was last read or written (System.nanoTime), for the idle timeout. */
    private long lastActivity;
    /** Whether {@link #queuedFlush} waits for the end of this event loop turn. */
    private boolean flushQueued;
    private final Runnable queuedFlush = this::runQueuedFlush;

    Http2GateHandler(ListenerServices services, Http2Limits limits) {
        this.services = services;
        this.cycle = services.cycle();
        this.limits = limits;
        int streams = limits.maxConcurrentStreams();
        this.connection = new Http2Connection(new Http2Connection.Config(true, streams,
                (int) Math.min(Integer.MAX_VALUE / 4, limits.maxHeaderListSize()), limits.websockets(),
                limits.maxResetsPerWindow(), limits.resetWindowSeconds(), limits.maxSmallContinuationFrames(),
                Http2Limits.MAX_CONSECUTIVE_EMPTY_FRAMES, Http2Limits.MAX_QUEUED_CONTROL_FRAMES,
                limits.gracefulShutdownMillis()), this);
        this.exchanges = new Http2Exchange[streams];
        this.opened = new boolean[streams];
        this.sendTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.sendTimeoutMillis());
    }

    /** Builds the handler with our limits and protections. */
    public static Http2GateHandler create(ListenerServices services, Http2Limits limits) {
        return new Http2GateHandler(services, limits);
    }

    // ---- channel events

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        this.ctx = ctx;
        client = ctx.channel().attr(ClientInfoHandler.CLIENT_INFO).get();
        connection.start(ctx);
        lastActivity = System.nanoTime();
        ctx.executor().schedule(new IdleCheck(), limits.idleTimeoutMillis(), TimeUnit.MILLISECONDS);
        if (services.stopping()) {
            // accepted while the listeners closed (the stop's DrainEvent may have missed it)
            ctx.executor().execute(() -> ctx.pipeline().fireUserEventTriggered(DrainEvent.INSTANCE));
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        connection.read(in);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        lastActivity = System.nanoTime();
        connection.flush();
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connection.channelClosed();
        block.release();
        super.channelInactive(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            connection.writeAllPending();
            connection.flush();
        }
        super.channelWritabilityChanged(ctx);
    }

    /** A stop drains ({@link Http2Connection#drain}: GOAWAY 2^31-1 and a PING, the final GOAWAY on its ack or after a second). */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof DrainEvent) {
            connection.drain();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    /**
     * {@code limits.idle_timeout}: no frame read and nothing written for that long closes the
     * connection with GOAWAY once its streams are done, unless a WebSocket tunnel is open (its quiet
     * is the upstream side's to judge, as on HTTP/1.1). One task per connection, rescheduled for
     * the time left; the activity stamp is a clock read per read batch and per flush. (Netty's
     * {@code IdleStateHandler} made every write's void promise a real one with a listener: about
     * 80 B per batch.)
     */
    private final class IdleCheck implements Runnable {
        @Override
        public void run() {
            if (connection.isClosed() || !ctx.channel().isActive()) {
                return;
            }
            long idleNanos = TimeUnit.MILLISECONDS.toNanos(limits.idleTimeoutMillis());
            long left = idleNanos - (System.nanoTime() - lastActivity);
            if (left <= 0 && tunnels == 0) {
                connection.close(Http2ErrorCodes.NO_ERROR);
                return;
            }
            ctx.executor().schedule(this, left <= 0 ? idleNanos : left, TimeUnit.NANOSECONDS);
        }
    }

    /** I/O errors end the connection quietly, as on HTTP/1.1 (a peer's reset, writes after the close). */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof IOException)) {
            ctx.fireExceptionCaught(cause);
        }
        ctx.close();
    }

    // ---- Http2Connection.Handler

    @Override
    public HpackFieldSink fields(int slot, boolean trailers) {
        if (trailers) {
            return IGNORED; // request trailers are not forwarded (they end the body)
        }
        if (client == null) {
            client = ctx.channel().attr(ClientInfoHandler.CLIENT_INFO).get();
        }
        Http2Exchange e = Http2Exchange.take(this, slot);
        e.fields.reset(client, (int) Math.min(Integer.MAX_VALUE / 4, limits.maxHeaderListSize()));
        exchanges[slot] = e;
        return e.fields;
    }

    @Override
    public void onHeaders(int slot, int streamId, boolean endStream, Http2Violation violation) {
        Metrics m = services.metrics();
        if (m != null) {
            m.streamOpened();
        }
        opened[slot] = true;
        Http2Exchange e = exchanges[slot];
        e.streamId = streamId;
        e.requestEnded = endStream;
        e.fields.hasBody(!endStream);
        e.started = cycle.startNanos();
        if (violation == Http2Violation.AUTHORITY_HOST_MISMATCH) {
            // RFC 9113 8.3.1: letting one of them win would let a client route by one name and be judged by the other
            cycle.refuse(e, 400);
            return;
        }
        if (violation != null || e.fields.overflowed()) {
            // RFC 9113 10.5.1: a server may answer a too large field section with 431; the fields are
            // incomplete, so nothing is judged on them
            e.recycle();
            Http2HeaderBlocks.status(block, 431);
            connection.resetWhenDone(slot);
            connection.writeHeaders(slot, block, 0, block.readableBytes(), true);
            return;
        }
        Http2RequestFields f = e.fields;
        boolean extended = f.hasProtocol();
        if (extended && (!f.methodIs(CONNECT) || !f.hasAuthority())) {
            // RFC 8441 4: :protocol only on CONNECT with :authority (the validator let it through only with our setting)
            e.recycle();
            connection.resetStream(slot, Http2ErrorCodes.PROTOCOL_ERROR, true);
            return;
        }
        boolean websocket = extended && f.protocolIs(WEBSOCKET) && !endStream;
        e.websocket(websocket);
        e.head = f.methodIs(HEAD);
        long length = f.contentLength();
        if (length == -2) {
            e.recycle();
            connection.resetStream(slot, Http2Violation.CONTENT_LENGTH_INVALID.code(), true);
            return;
        }
        e.declaredLength = length;
        if (length >= 0) {
            connection.expectLength(slot, length);
        }
        int refusal = 0;
        if (extended && !websocket) {
            refusal = endStream ? 400 : 501; // a tunnel that can carry nothing; we tunnel only WebSockets
        } else if (!extended && f.methodIs(CONNECT)) {
            refusal = 501; // no tunnels to a host the client names, as on HTTP/1.1
        } else if (!websocket && !endStream && length > limits.maxBodySize()) {
            refusal = 413; // refused before the gate, as the HTTP/1.1 decoder refuses such a head
        }
        if (refusal != 0) {
            cycle.refuse(e, refusal);
            return;
        }
        cycle.run(e.fields, e);
    }

    @Override
    public void onTrailers(int slot) {
        Http2Exchange e = exchanges[slot];
        if (e != null) {
            e.onTrailers();
        }
    }

    @Override
    public void onData(int slot, ByteBuf buf, int index, int length, boolean endStream) {
        Http2Exchange e = exchanges[slot];
        if (e != null) {
            e.onData(buf, index, length, endStream);
        } else {
            connection.consumed(slot, length); // an answered request's body: credited and dropped
        }
    }

    @Override
    public void onWritable(int slot) {
        Http2Exchange e = exchanges[slot];
        if (e != null) {
            e.onWritable();
        }
    }

    @Override
    public void onWindowUpdate(int slot) {
        if (slot >= 0 && ctx.channel().isWritable()) {
            connection.progress(slot); // the client took bytes: the send clock restarts
        }
    }

    @Override
    public void onStreamClosed(int slot, int streamId, long errorCode) {
        if (opened[slot]) {
            opened[slot] = false;
            Metrics m = services.metrics();
            if (m != null) {
                m.streamClosed();
            }
        }
        Http2Exchange e = exchanges[slot];
        if (e != null) {
            exchanges[slot] = null;
            if (e.streamId == 0) {
                e.discard(); // reset before its headers reached us (a malformed request)
            } else {
                e.onClientClosed();
            }
        }
    }

    @Override
    public boolean keepOpen() {
        return tunnels > 0;
    }

    // ---- what exchanges ask for

    ChannelHandlerContext context() {
        return ctx;
    }

    ListenerServices services() {
        return services;
    }

    RequestCycle cycle() {
        return cycle;
    }

    Http2Connection connection() {
        return connection;
    }

    long maxBodySize() {
        return limits.maxBodySize();
    }

    /**
     * Flushes at the end of this event loop turn ({@link LoopFlushes}: the responses several
     * upstreams deliver in one turn leave in one send), unless a read batch is running (its end
     * flushes once for all its streams).
     */
    void flush() {
        if (!connection.isReading() && !flushQueued) {
            flushQueued = true;
            LoopFlushes.flushLater(ctx.channel(), queuedFlush);
        }
    }

    private void runQueuedFlush() {
        flushQueued = false;
        lastActivity = System.nanoTime();
        connection.flush();
    }

    /** The exchange of {@code slot} is done: frames of the slot no longer reach it. */
    void detach(int slot, Http2Exchange e) {
        if (exchanges[slot] == e) {
            exchanges[slot] = null;
        }
    }

    /** Resets the stream of {@code slot} (its exchange already recycled). */
    void reset(int slot, int errorCode) {
        connection.resetStream(slot, errorCode, true);
        flush();
    }

    void tunnel(boolean open) {
        tunnels += open ? 1 : -1;
    }

    /** A forwarded stream's response waits for the client: the send-timeout check runs (one timer per connection, only while some stream waits). */
    void watchSend() {
        SendCheck check = sendCheck;
        if (check == null) {
            check = sendCheck = new SendCheck();
        }
        check.arm();
    }

    /**
     * {@code limits.send_timeout} on HTTP/2: a stream whose response data could not go to the client
     * for that long (windows never opened, the socket not read) is reset with CANCEL; its forward
     * ends (the upstream connection is closed or its stream reset). Other streams go on.
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
            if (connection.isClosed() || !ctx.channel().isActive()) {
                return;
            }
            if (connection.sweepSendTimeouts(System.nanoTime(), sendTimeoutNanos)) {
                arm();
            }
        }
    }

    /**
     * Writes a precomputed answer on the exchange's stream and ends the exchange: the block from the
     * answer's parts, then the body (waiting for the client's window if it must). When the request's
     * body is still coming, the connection resets the stream with NO_ERROR once the answer's last
     * frame is out (RFC 9113 8.1).
     */
    void answer(Http2Exchange exchange, PrecomputedResponse response) {
        int slot = exchange.slot;
        RequestState state = exchange.state;
        boolean noBody = exchange.head || response.contentLength() == 0;
        long id = state.requestId() != 0 ? state.requestId() : ThreadLocalRandom.current().nextLong(); // 0 before the gate (a refusal)
        Snapshot snapshot = state.snapshot() != null ? state.snapshot() : services.gate().store().current();
        ByteBuf b = block;
        b.clear();
        Http2HeaderBlocks.answer(b, response, services.date(), state, snapshot.forwarding(), id, altSvc());
        ByteBuf body = null;
        if (!noBody) {
            if (response.isTemplate()) {
                body = ctx.alloc().ioBuffer(response.contentLength());
                response.writeBody(body, id, state.clientIpHigh(), state.clientIpLow());
            } else {
                body = response.retainedBody();
            }
        }
        state.status(response.status());
        state.addBytesSent(noBody ? 0 : response.contentLength());
        exchange.recycle(); // detaches: the stream's end must not read as the client going away
        connection.resetWhenDone(slot);
        connection.writeHeaders(slot, b, 0, b.readableBytes(), noBody);
        if (body != null) {
            connection.writeData(slot, body, true);
        }
        if (response.isOneShot()) {
            response.release(); // built for this request (a challenge's redirect): encoded, body copied or retained
        }
    }

    /** A forwarded response's head, encoded from the upstream head's names and values (0 B). */
    void writeResponseHead(int slot, Http2Exchange e, ResponseHead h, ResponseHeaderRules rules, byte[] extraLine,
            boolean tunnel, boolean endStream) {
        ByteBuf b = block;
        b.clear();
        Http2HeaderBlocks.responseHead(b, h, rules, extraLine, tunnel, e.state, altSvc());
        connection.writeHeaders(slot, b, 0, b.readableBytes(), endStream);
    }

    void writeTrailers(int slot, ResponseTrailers trailers) {
        ByteBuf b = block;
        b.clear();
        for (int i = 0; i < trailers.count(); i++) {
            HpackEncoder.literal(b, trailers.name(i), trailers.value(i));
        }
        connection.writeTrailers(slot, b, 0, b.readableBytes());
    }

    /** The listener's {@code Alt-Svc} value when it serves HTTP/3, else null. */
    private AsciiString altSvc() {
        ListenerServices.AltSvc a = services.altSvc();
        return a == null ? null : a.value();
    }

    /** The HPACK blocks this handler writes; static methods over the caller's buffer, 0 B. */
    static final class Http2HeaderBlocks {
        private static final AsciiString ALT_SVC = AsciiString.cached("alt-svc");
        private Http2HeaderBlocks() {
        }

        static void status(ByteBuf b, int status) {
            b.clear();
            HpackEncoder.status(b, status);
        }

        static void date(ByteBuf b, DateHeader date) {
            HpackEncoder.integer(b, 0, 4, DATE_NAME_INDEX);
            HpackEncoder.integer(b, 0, 7, DateHeader.LENGTH);
            date.writeTo(b);
        }

        /** A precomputed answer's {@code :status} and fixed fields, encoded once per answer ({@link PrecomputedResponse#encoded}). */
        private static final Function<PrecomputedResponse, byte[]> FIXED_FIELDS = Http2HeaderBlocks::fixedFields;

        private static byte[] fixedFields(PrecomputedResponse response) {
            ByteBuf b = Unpooled.buffer(128);
            try {
                writeFixedFields(b, response);
                return ByteBufUtil.getBytes(b);
            } finally {
                b.release();
            }
        }

        private static void writeFixedFields(ByteBuf b, PrecomputedResponse response) {
            HpackEncoder.status(b, response.status());
            AsciiString[] names = response.headerNames();
            AsciiString[] values = response.headerValues();
            int templated = response.headerTemplate() == null ? -1 : response.templateHeaderIndex();
            for (int i = 0; i < names.length; i++) {
                if (i != templated) {
                    HpackEncoder.literal(b, names[i], values[i]);
                }
            }
        }

        /**
         * An answer's block: its fixed part copied as encoded once, then what each request adds (the
         * templated field, as HTTP/1.1 writes it, after the fixed ones; {@code date}; rate-limit fields;
         * the request id; {@code alt-svc}).
         */
        static void answer(ByteBuf b, PrecomputedResponse response, DateHeader date, RequestState state,
                ForwardingRules forwarding, long id, AsciiString altSvc) {
            if (response.isOneShot()) {
                writeFixedFields(b, response); // built for this request: an encoding kept with it would be used once
            } else {
                b.writeBytes(response.encoded(FIXED_FIELDS));
            }
            if (response.headerTemplate() != null) {
                ValueTemplate t = response.headerTemplate();
                literalName(b, response.headerNames()[response.templateHeaderIndex()]);
                HpackEncoder.integer(b, 0, 7, t.length(state));
                t.write(b, state);
            }
            date(b, date);
            if (state.hasRateLimit()) {
                rateLimit(b, state);
            }
            if (forwarding.echoRequestId()) {
                literalName(b, forwarding.requestIdHeader());
                HpackEncoder.integer(b, 0, 7, PrecomputedResponse.REQUEST_ID_LENGTH);
                PrecomputedResponse.writeHex(b, id);
            }
            if (altSvc != null) {
                HpackEncoder.literal(b, ALT_SVC, altSvc); // the listener serves HTTP/3
            }
        }

        static void responseHead(ByteBuf b, ResponseHead h, ResponseHeaderRules rules, byte[] extraLine,
                boolean tunnel, RequestState state, AsciiString altSvc) {
            HpackEncoder.status(b, tunnel ? 200 : h.status());
            for (int i = 0, n = h.headerCount(); i < n; i++) {
                CharSequence name = h.headerName(i);
                if (rules.isRemoved(name) || h.isConnectionOption(name)) { // hop-by-hop fields, Transfer-Encoding too
                    continue;
                }
                if (tunnel && (isName(name, "sec-websocket-accept") || isName(name, "content-length"))) {
                    continue; // the accept was for us; a 200 that opens a tunnel has no length
                }
                if (isSetByUs(name, rules, state)) {
                    continue;
                }
                HpackEncoder.literal(b, name, h.headerValue(i));
            }
            AsciiString[] names = rules.names();
            AsciiString[] values = rules.values();
            for (int i = 0; i < names.length; i++) {
                HpackEncoder.literal(b, names[i], values[i]);
            }
            if (extraLine != null) {
                line(b, extraLine);
            }
            ForwardingRules forwarding = state.snapshot().forwarding();
            if (forwarding.echoForwardedRequestId()) {
                literalName(b, forwarding.requestIdHeader());
                CharSequence incoming = ForwardingFields.propagatedId(state, forwarding);
                if (incoming != null) {
                    HpackEncoder.text(b, incoming);
                } else {
                    HpackEncoder.integer(b, 0, 7, PrecomputedResponse.REQUEST_ID_LENGTH);
                    PrecomputedResponse.writeHex(b, state.requestId());
                }
            }
            if (state.hasRateLimit()) {
                rateLimit(b, state);
            }
            if (altSvc != null) {
                HpackEncoder.literal(b, ALT_SVC, altSvc); // the listener serves HTTP/3 (an upstream's own is passed on too)
            }
        }

        /** Fields set by the rules or by us replace the upstream's (each sent once). */
        private static boolean isSetByUs(CharSequence name, ResponseHeaderRules rules, RequestState state) {
            AsciiString[] names = rules.names();
            for (AsciiString n : names) {
                if (n.contentEqualsIgnoreCase(name)) {
                    return true;
                }
            }
            if (state.hasRateLimit() && name.length() > 10 && isPrefix(name, "ratelimit-")
                    && (isName(name, "ratelimit-limit") || isName(name, "ratelimit-remaining") || isName(name, "ratelimit-reset"))) {
                return true;
            }
            ForwardingRules forwarding = state.snapshot().forwarding();
            return forwarding.echoForwardedRequestId() && forwarding.requestIdHeader().contentEqualsIgnoreCase(name);
        }

        private static void rateLimit(ByteBuf b, RequestState state) {
            decimal(b, RateLimitFields.LIMIT, state.rateLimitLimit());
            decimal(b, RateLimitFields.REMAINING, state.rateLimitRemaining());
            decimal(b, RateLimitFields.RESET, state.rateLimitReset());
        }

        private static void decimal(ByteBuf b, AsciiString name, long value) {
            literalName(b, name);
            int digits = 1;
            for (long v = value; v >= 10; v /= 10) {
                digits++;
            }
            HpackEncoder.integer(b, 0, 7, digits);
            AsciiNumbers.writeDecimal(b, value);
        }

        /** The name part of a literal without indexing (its static index when the table has it); the value follows. */
        private static void literalName(ByteBuf b, AsciiString lowerName) {
            int index = HpackStaticTable.indexOfName(lowerName);
            HpackEncoder.integer(b, 0, 4, index);
            if (index == 0) {
                HpackEncoder.text(b, lowerName);
            }
        }

        /** A precomputed "Name: value\r\n" line as a lower-case field. */
        private static void line(ByteBuf b, byte[] line) {
            int colon = 0;
            while (colon < line.length && line[colon] != ':') {
                colon++;
            }
            int end = line.length;
            while (end > colon && (line[end - 1] == '\r' || line[end - 1] == '\n')) {
                end--;
            }
            int valueStart = Math.min(end, colon + 2);
            HpackEncoder.integer(b, 0, 4, 0);
            HpackEncoder.integer(b, 0, 7, colon);
            for (int i = 0; i < colon; i++) {
                int c = line[i];
                b.writeByte(c >= 'A' && c <= 'Z' ? c + 32 : c);
            }
            HpackEncoder.integer(b, 0, 7, end - valueStart);
            b.writeBytes(line, valueStart, end - valueStart);
        }

        private static boolean isName(CharSequence name, String lower) {
            return name.length() == lower.length() && isPrefix(name, lower);
        }

        private static boolean isPrefix(CharSequence name, String lower) {
            for (int i = 0; i < lower.length(); i++) {
                int c = name.charAt(i);
                if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != lower.charAt(i)) {
                    return false;
                }
            }
            return true;
        }
    }
}
