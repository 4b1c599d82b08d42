package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.paduraksa.http2.HpackFieldSink;
import io.paduraksa.http2.Http2Connection;
import io.paduraksa.http2.Http2ErrorCodes;
import io.paduraksa.http2.Http2Violation;
import io.paduraksa.proxy.Activity;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection to an upstream, client side, on our own codec: an {@link Http2Connection}
 * in the client role (preface, SETTINGS, frames, HPACK, flow control) fed by this decoder, one
 * outbound buffer flushed per read batch and after each write from the client side. The connection
 * is usable once the upstream's first SETTINGS arrived (so its SETTINGS_MAX_CONCURRENT_STREAMS is
 * known) and, over TLS, ALPN chose h2. A GOAWAY stops new streams, lets those at or below its last
 * stream id finish; the codec reports the ones above as REFUSED_STREAM, so their calls retry.
 *
 * <p>One explicit {@link Phase}; streams are the codec's slots, each with its
 * {@link Http2UpstreamStream} in {@link #bySlot}. Stream objects are recycled here (a free list, at
 * most the table's size plus those handed out and not opened): one returns once its call let go of
 * it and its slot is free. Runs on its pool's event loop; nothing per request is allocated.
 */
public final class Http2UpstreamHandler extends ByteToMessageDecoder implements Http2Connection.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(Http2UpstreamHandler.class);
    /** Stream and connection receive windows: room for a fast response without waiting for WINDOW_UPDATEs. */
    static final int STREAM_WINDOW = 1 << 20;
    static final int CONNECTION_WINDOW = 16 << 20;
    /** Streams one connection carries at most (our table), whatever the upstream allows. */
    static final int MAX_STREAMS = 128;
    /** Our SETTINGS_MAX_HEADER_LIST_SIZE: a larger response head resets its stream (the call fails). */
    static final int MAX_HEADER_LIST_SIZE = 64 * 1024;
    private static final HpackFieldSink IGNORED = (name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex) -> {
    };

    /** The connection's life: connecting (TCP, TLS, the upstream's SETTINGS), ready, draining (no new streams), closed. */
    enum Phase { CONNECTING, READY, DRAINING, CLOSED }

    private final Http2UpstreamPool pool;
    private final Http2Connection connection;
    private final Http2UpstreamStream[] bySlot = new Http2UpstreamStream[MAX_STREAMS];
    private Http2UpstreamStream[] free = new Http2UpstreamStream[8];
    private int freeCount;
    /** Streams handed out and not yet back (opened or not). */
    private int inUse;
    /** Streams handed out and not yet opened (they count against the stream limit). */
    private int reserved;
    /** The request block of the stream being opened (framed within open, so one serves every stream). */
    private final Http2RequestBlock requestBlock = new Http2RequestBlock();
    /** Streams that received DATA or HEADERS in the current read: their clients are flushed once at its end. */
    private final ArrayList<Http2UpstreamStream> dirty = new ArrayList<>(4);
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.CONNECTING;
    private boolean started;
    /** The upstream's first SETTINGS arrived (and ALPN chose h2): it was usable once. */
    private boolean settled;
    /** Reported to the pool as gone (connect failure or close); at most once. */
    boolean removed;
    private int goAwayLastStreamId = Integer.MAX_VALUE;
    private int opened;
    private final long created = System.nanoTime();
    private final Activity activity = new Activity();

    private Http2UpstreamHandler(Http2UpstreamPool pool) {
        this.pool = pool;
        activity.at(created);
        this.connection = new Http2Connection(new Http2Connection.Config(false, MAX_STREAMS, MAX_HEADER_LIST_SIZE, false,
                // No bound on the upstream's RST_STREAM frames (rapid reset is a client's attack on a server; the
                // streams are ours, and Netty's client had none either); as Netty's client: 2 empty frames in a
                // row, 10,000 queued control frames; 16 small CONTINUATIONs as on our listeners
                Integer.MAX_VALUE, 30, 16, 2, 10_000, pool.gracefulShutdownMillis()), this);
        this.connection.receiveWindows(STREAM_WINDOW, CONNECTION_WINDOW);
    }

    static Http2UpstreamHandler create(Http2UpstreamPool pool) {
        return new Http2UpstreamHandler(pool);
    }

    // ---- channel events

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    /** The preface and our SETTINGS (over TLS the SslHandler holds them until the handshake is done). */
    private void start() {
        if (!started) {
            started = true;
            connection.start(ctx);
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        connection.read(in);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        activity.touch();
        connection.flush();
        ArrayList<Http2UpstreamStream> d = dirty;
        for (int i = 0; i < d.size(); i++) {
            d.get(i).flushClient();
        }
        d.clear();
        super.channelReadComplete(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (!done.isSuccess()) {
                LOG.warn("upstream {}: TLS handshake failed: {}", pool.describe(), done.cause().toString());
            } else {
                String chosen = ctx.pipeline().get(SslHandler.class).applicationProtocol();
                if (!ApplicationProtocolNames.HTTP_2.equals(chosen)) {
                    LOG.warn("upstream {} chose {} by ALPN, but the cluster's protocol is h2: connection closed",
                            pool.describe(), chosen == null ? "no protocol" : "'" + chosen + "'");
                    ctx.close();
                    return;
                }
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        boolean writable = ctx.channel().isWritable();
        if (writable) {
            connection.writeAllPending(); // tells the streams that can take more
            connection.flush();
        } else {
            for (int slot = 0; slot < bySlot.length; slot++) {
                if (bySlot[slot] != null) {
                    bySlot[slot].onWritabilityChanged(false); // rare: the socket's buffer filled
                }
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        phase = Phase.CLOSED;
        connection.channelClosed(); // every open stream closes with CANCEL: its call fails or retries
        super.channelInactive(ctx);
        requestBlock.release();
        pool.connectionClosed(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("upstream {}: {}", pool.describe(), cause.toString());
        ctx.close();
    }

    // ---- for the pool and the streams

    ChannelHandlerContext context() {
        return ctx;
    }

    Http2Connection connection() {
        return connection;
    }

    /** Flushes what the streams wrote, unless a read is under way (its end flushes). */
    void flush() {
        if (!connection.isReading()) {
            connection.flush();
        }
    }

    /** Whether a new stream may start here now. */
    boolean canOpenStream(int maxRequests) {
        if (phase != Phase.READY || connection.isClosing()) {
            return false;
        }
        long limit = Math.min(MAX_STREAMS, connection.peerMaxConcurrentStreams());
        return connection.activeStreams() + reserved < limit && (maxRequests == 0 || opened + reserved < maxRequests);
    }

    boolean isReady() {
        return settled;
    }

    boolean isIdle() {
        return inUse == 0 && connection.activeStreams() == 0;
    }

    int opened() {
        return opened;
    }

    /** Whether the channel is still up (its buffers are released once it closed). */
    boolean isOpen() {
        return phase != Phase.CLOSED;
    }

    boolean isDraining() {
        return phase == Phase.DRAINING;
    }

    /** The request block to encode a new stream's head in. */
    Http2RequestBlock requestBlock() {
        return requestBlock.start();
    }

    /** A stream for the pool to hand out: a recycled one when there is one. */
    Http2UpstreamStream newStream() {
        Http2UpstreamStream s = freeCount > 0 ? free[--freeCount] : new Http2UpstreamStream(this);
        s.handedOut();
        inUse++;
        reserved++;
        return s;
    }

    /** Opens {@code stream} with the request block; false when the connection cannot take it after all. */
    boolean open(Http2UpstreamStream stream, boolean endStream) {
        if (phase != Phase.READY) {
            return false;
        }
        int slot = connection.openStream();
        if (slot < 0) {
            return false;
        }
        reserved--;
        bySlot[slot] = stream;
        stream.opened(slot);
        opened++;
        ByteBuf b = requestBlock.block();
        connection.writeHeaders(slot, b, b.readerIndex(), b.readableBytes(), endStream);
        flush();
        return true;
    }

    /** A stream handed out was never opened (its call ended while waiting, or open failed). */
    void notOpened(Http2UpstreamStream stream) {
        if (stream.isHandedOut() && !stream.wasOpened()) {
            reserved--;
        }
        recycle(stream);
    }

    /** Resets {@code stream}'s slot on our own account (no close report comes) and forgets it. */
    void reset(Http2UpstreamStream stream, int errorCode) {
        int slot = stream.slot();
        if (slot < 0) {
            return;
        }
        bySlot[slot] = null;
        stream.closedSlot();
        connection.resetStream(slot, errorCode);
        flush();
    }

    /** Gives {@code stream} back once both its call and its slot are done with it; tells the pool. */
    void recycle(Http2UpstreamStream stream) {
        if (!stream.isHandedOut() || stream.isActive() || stream.slot() >= 0) {
            return;
        }
        stream.recycled();
        inUse--;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = stream;
        activity.touch();
        pool.streamEnded(this);
    }

    /** Stops new streams; closes (GOAWAY, then the close) once the last stream ended. */
    void drain() {
        if (phase == Phase.READY || phase == Phase.CONNECTING) {
            phase = Phase.DRAINING;
        }
        if (isIdle() && ctx != null && phase != Phase.CLOSED) {
            if (started && ctx.channel().isActive()) {
                connection.close(Http2ErrorCodes.NO_ERROR); // GOAWAY, then the close: no stream is open
            } else {
                ctx.close();
            }
        }
    }

    /** The pool's sweep: connect/handshake/SETTINGS deadline, stream timeouts, pool idle timeout. */
    void sweep(long now, long connectNanos, long idleNanos, long poolIdleNanos) {
        if (ctx == null || phase == Phase.CLOSED) {
            return;
        }
        if (!settled) {
            if (now - created > connectNanos) {
                LOG.warn("upstream {}: no HTTP/2 SETTINGS within the connect timeout, connection closed", pool.describe());
                ctx.close();
            }
            return;
        }
        if (isIdle()) {
            if (phase == Phase.DRAINING || activity.idleAt(now) >= poolIdleNanos) {
                drain();
            }
            return;
        }
        for (int slot = 0; slot < bySlot.length; slot++) {
            Http2UpstreamStream s = bySlot[slot];
            if (s != null) {
                s.sweep(now, idleNanos);
            }
        }
    }

    private void markDirty(Http2UpstreamStream s) {
        ArrayList<Http2UpstreamStream> d = dirty;
        for (int i = 0; i < d.size(); i++) {
            if (d.get(i) == s) {
                return;
            }
        }
        d.add(s);
    }

    // ---- Http2Connection.Handler

    @Override
    public void onSettings() {
        if (!settled) {
            settled = true;
            if (phase == Phase.CONNECTING) {
                phase = Phase.READY;
            }
            pool.connectionReady(this);
        }
    }

    @Override
    public HpackFieldSink fields(int slot, boolean trailers) {
        Http2UpstreamStream s = bySlot[slot];
        return s == null ? IGNORED : s.fields();
    }

    @Override
    public void onHeaders(int slot, int streamId, boolean endStream, Http2Violation violation) {
        Http2UpstreamStream s = bySlot[slot];
        if (s == null) {
            connection.resetStream(slot, Http2ErrorCodes.PROTOCOL_ERROR); // a stream the upstream opened: servers do not
            return;
        }
        markDirty(s);
        s.onHeaders(endStream, false);
    }

    @Override
    public void onTrailers(int slot) {
        Http2UpstreamStream s = bySlot[slot];
        if (s != null) {
            markDirty(s);
            s.onHeaders(true, true);
        }
    }

    @Override
    public void onData(int slot, ByteBuf buf, int index, int length, boolean endStream) {
        Http2UpstreamStream s = bySlot[slot];
        if (s == null) {
            connection.consumed(slot, length);
            return;
        }
        markDirty(s);
        s.onData(buf, index, length, endStream);
    }

    @Override
    public void onWritable(int slot) {
        Http2UpstreamStream s = bySlot[slot];
        if (s != null) {
            s.onWritabilityChanged(true);
        }
    }

    @Override
    public void onWindowUpdate(int slot) {
    }

    @Override
    public void onStreamClosed(int slot, int streamId, long errorCode) {
        Http2UpstreamStream s = bySlot[slot];
        if (s == null) {
            return;
        }
        bySlot[slot] = null;
        activity.touch();
        s.onClosed(errorCode, connection.isLocalReset(), streamId > goAwayLastStreamId);
    }

    @Override
    public void onGoAway(int lastStreamId, long errorCode) {
        goAwayLastStreamId = lastStreamId;
        if (phase != Phase.CLOSED) {
            phase = Phase.DRAINING;
        }
        LOG.debug("upstream {} sent GOAWAY (last stream {}, error {})", pool.describe(), lastStreamId, errorCode);
        if (isIdle()) {
            ctx.executor().execute(this::drainIfIdle); // after the codec freed the streams above the last id
        }
    }

    private void drainIfIdle() {
        if (isIdle()) {
            drain();
        }
    }
}
