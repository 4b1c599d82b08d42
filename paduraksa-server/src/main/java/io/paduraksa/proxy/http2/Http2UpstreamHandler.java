package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.collection.IntObjectHashMap;
import java.io.IOException;
import java.util.ArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection to an upstream, client side: Netty's {@link Http2ConnectionHandler} with a
 * frame listener and no child channels (the server side's shape, see
 * {@code server.http2.Http2GateHandler}). It is usable once the upstream's first SETTINGS arrived
 * (so its SETTINGS_MAX_CONCURRENT_STREAMS is known) and, over TLS, ALPN chose h2; a GOAWAY stops new
 * streams, lets those at or below its last stream id finish and reports the ones above as
 * unprocessed (their calls retry). Frames of a stream go to its {@link Http2UpstreamStream}.
 * Runs on its pool's event loop.
 */
public final class Http2UpstreamHandler extends Http2ConnectionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(Http2UpstreamHandler.class);
    /** Stream and connection receive windows: room for a fast response without waiting for WINDOW_UPDATEs. */
    static final int STREAM_WINDOW = 1 << 20;
    static final int CONNECTION_WINDOW = 16 << 20;

    private final Http2UpstreamPool pool;
    /** The header block of the stream being opened (encoded within open, so one serves every stream). */
    private final Http2RequestHeaders requestHeaders = new Http2RequestHeaders();
    private final IntObjectHashMap<Http2UpstreamStream> streams = new IntObjectHashMap<>(8);
    /** Streams that received DATA in the current read: their clients are flushed once at its end. */
    private final ArrayList<Http2UpstreamStream> dirty = new ArrayList<>(4);
    private ChannelHandlerContext ctx;
    private boolean ready;
    private boolean draining;
    private boolean closed;
    /** Reported to the pool as gone (connect failure or close); at most once. */
    boolean removed;
    private int goAwayLastStreamId = Integer.MAX_VALUE;
    private int opened;
    private final long created = System.nanoTime();
    private long lastActivity = created;

    private Http2UpstreamHandler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
                                 Http2UpstreamPool pool) {
        super(decoder, encoder, settings);
        this.pool = pool;
    }

    static Http2UpstreamHandler create(Http2UpstreamPool pool) {
        return new Builder(pool).build();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        this.ctx = ctx;
        connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamClosed(Http2Stream stream) {
                streamClosed(stream.id());
            }

            @Override
            public void onGoAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {
                draining = true;
                goAwayLastStreamId = lastStreamId;
                LOG.debug("upstream {} sent GOAWAY (last stream {}, error {})", pool.describe(), lastStreamId, errorCode);
            }
        });
        encoder().flowController().listener(stream -> {
            Http2UpstreamStream s = streams.get(stream.id());
            if (s != null) {
                s.onWritabilityChanged(encoder().flowController().isWritable(stream) && ctx.channel().isWritable());
            }
        });
    }

    ChannelHandlerContext context() {
        return ctx;
    }

    /** Writes what the flow controller holds back and flushes. */
    void flushAll() {
        flush(ctx);
    }

    /** Whether a new stream may start here now. */
    boolean canOpenStream(int maxRequests) {
        return ready && !draining && !closed && connection().local().canOpenStream() && (maxRequests == 0 || opened < maxRequests);
    }

    boolean isReady() {
        return ready;
    }

    boolean isIdle() {
        return streams.isEmpty();
    }

    int opened() {
        return opened;
    }

    /** The header block to build a new stream's request head in; cleared after {@link #open}. */
    Http2RequestHeaders requestHeaders() {
        return requestHeaders;
    }

    /** A stream for the pool to hand out. */
    Http2UpstreamStream newStream() {
        return new Http2UpstreamStream(this);
    }

    /** Opens {@code stream} with its header block; false when the connection could not create it. */
    boolean open(Http2UpstreamStream stream, Http2Headers headers, boolean endStream) {
        if (closed || draining || !connection().local().canOpenStream()) {
            return false;
        }
        int id = connection().local().incrementAndGetNextStreamId();
        if (id < 0) {
            draining = true; // stream ids ran out: this connection takes no more
            return false;
        }
        stream.id(id);
        streams.put(id, stream);
        opened++;
        encoder().writeHeaders(ctx, id, headers, 0, endStream, ctx.voidPromise());
        if (connection().stream(id) == null && streams.remove(id) != null) {
            return false;
        }
        flushAll();
        return true;
    }

    /** A stream handed out was never opened (its call ended while waiting). */
    void abandoned() {
        pool.streamEnded(this);
    }

    private void streamClosed(int id) {
        Http2UpstreamStream s = streams.remove(id);
        if (s == null) {
            return;
        }
        lastActivity = System.nanoTime();
        s.onClosed(id > goAwayLastStreamId);
        pool.streamEnded(this);
    }

    /** Stops new streams; closes once the last stream ended (the pool closes, or the endpoint retires). */
    void drain() {
        draining = true;
        if (streams.isEmpty()) {
            ctx.close();
        }
    }

    boolean isDraining() {
        return draining;
    }

    /** The pool's sweep: connect/handshake/SETTINGS deadline, stream timeouts, pool idle timeout. */
    void sweep(long now, long connectNanos, long idleNanos, long poolIdleNanos) {
        if (ctx == null || closed) {
            return;
        }
        if (!ready) {
            if (now - created > connectNanos) {
                LOG.warn("upstream {}: no HTTP/2 SETTINGS within the connect timeout, connection closed", pool.describe());
                ctx.close();
            }
            return;
        }
        if (streams.isEmpty()) {
            if (draining || now - lastActivity >= poolIdleNanos) {
                ctx.close();
            }
            return;
        }
        for (Http2UpstreamStream s : streams.values().toArray(new Http2UpstreamStream[0])) {
            s.sweep(now, idleNanos); // rare: once per sweep with streams in flight
        }
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
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        ArrayList<Http2UpstreamStream> d = dirty;
        for (int i = 0; i < d.size(); i++) {
            d.get(i).flushClient();
        }
        d.clear();
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (!streams.isEmpty()) {
            boolean writable = ctx.channel().isWritable();
            for (Http2UpstreamStream s : streams.values().toArray(new Http2UpstreamStream[0])) {
                s.onWritabilityChanged(writable); // rare: the socket's buffer filled or drained
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        super.channelInactive(ctx); // closes every stream: their calls fail or retry
        pool.connectionClosed(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (cause instanceof IOException || !(cause instanceof Http2Exception)) {
            ctx.close();
            return;
        }
        super.exceptionCaught(ctx, cause);
    }

    private final class Listener extends Http2FrameAdapter {
        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) throws Http2Exception {
            if (!ready) {
                ready = true;
                // The preface is out by now, so a WINDOW_UPDATE may follow: widen the connection window.
                connection().local().flowController().incrementWindowSize(connection().connectionStream(),
                        CONNECTION_WINDOW - connection().local().flowController().windowSize(connection().connectionStream()));
                flushAll();
                pool.connectionReady(Http2UpstreamHandler.this);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
            Http2UpstreamStream s = streams.get(streamId);
            if (s != null) {
                s.onHeaders(headers, endOfStream);
                markDirty(s);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            Http2UpstreamStream s = streams.get(streamId);
            if (s == null) {
                return data.readableBytes() + padding;
            }
            markDirty(s);
            return s.onData(data, padding, endOfStream);
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            Http2UpstreamStream s = streams.get(streamId);
            if (s != null) {
                s.onReset(errorCode); // Netty closes the stream next: onClosed reports it
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

    /** Netty's builder with our settings; frame listener and handler are made together. */
    private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Http2UpstreamHandler, Builder> {
        private final Http2UpstreamPool pool;

        Builder(Http2UpstreamPool pool) {
            this.pool = pool;
            server(false);
            initialSettings(Http2Settings.defaultSettings()
                    .pushEnabled(false)
                    .initialWindowSize(STREAM_WINDOW)
                    .maxHeaderListSize(64 * 1024));
            validateHeaders(true);
            gracefulShutdownTimeoutMillis(pool.gracefulShutdownMillis());
        }

        @Override
        protected Http2UpstreamHandler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                                             Http2Settings settings) {
            Http2UpstreamHandler handler = new Http2UpstreamHandler(decoder, encoder, settings, pool);
            frameListener(handler.new Listener());
            return handler;
        }

        @Override
        protected Http2UpstreamHandler build() {
            return super.build();
        }
    }
}
