package io.paduraksa.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.server.DrainEvent;
import io.paduraksa.server.GateContext;
import io.paduraksa.server.GateMeter;
import io.paduraksa.server.connection.ClientInfoHandler;

/**
 * HTTP/2 (h2c prior knowledge, or h2 after ALPN) with the gate in front: Netty's
 * {@link Http2ConnectionHandler} with a frame listener, no child channel per stream (measured
 * cheaper, DESIGN.md). When a stream's headers arrive the gate runs on a recycled
 * {@link Http2Exchange}; answers are written from precomputed parts, drops reset the stream,
 * FORWARD goes to the forwarder. Body frames of answered streams are consumed and credited.
 */
public final class Http2GateHandler extends Http2ConnectionHandler {
    private final GateContext context;
    private final Http2Connection.PropertyKey decided;
    private ClientInfo client;
    private ChannelHandlerContext ctx;

    Http2GateHandler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
                     GateContext context) {
        super(decoder, encoder, settings);
        this.context = context;
        this.decided = connection().newKey();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        this.ctx = ctx;
        client = ctx.channel().attr(ClientInfoHandler.CLIENT_INFO).get();
    }

    /**
     * An idle connection (no frames for the idle timeout) or a stopping server closes gracefully:
     * GOAWAY, streams in flight finish (up to the graceful-shutdown timeout), then close.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent || evt instanceof DrainEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
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
            // Answered requests need no body: credit it back so the connection window stays open.
            return data.readableBytes() + padding;
        }
    }

    private void onRequestHeaders(ChannelHandlerContext ctx, int streamId, Http2Headers headers, boolean endOfStream) {
        Http2Stream stream = connection().stream(streamId);
        if (stream == null || stream.getProperty(decided) != null) {
            return; // trailers of a request already decided, or a stream already gone
        }
        stream.setProperty(decided, Boolean.TRUE);
        if (client == null) {
            client = ctx.channel().attr(ClientInfoHandler.CLIENT_INFO).get();
        }
        CharSequence method = headers.method();
        boolean head = method != null && HttpMethod.HEAD.asciiName().contentEquals(method);
        Http2Exchange exchange = Http2Exchange.take(this, streamId, head);
        if (method == null || headers.path() == null || HttpMethod.CONNECT.asciiName().contentEquals(method)) {
            // CONNECT tunnels are refused; a request without :method or :path is malformed (RFC 9113 8.3.1).
            answer(exchange, context.gate().store().current().statusAnswer(method == null || headers.path() == null ? 400 : 501));
            finishAnswered(ctx, streamId, endOfStream);
            return;
        }
        exchange.view.reset(client, headers);
        GateMeter meter = context.meter();
        long before = meter == null ? 0 : meter.before();
        GateOutcome outcome = context.gate().run(exchange.view, exchange.state);
        if (meter != null) {
            meter.after(before);
        }
        switch (outcome) {
            case RESPOND, CHALLENGE -> {
                answer(exchange, exchange.state.response());
                finishAnswered(ctx, streamId, endOfStream);
            }
            case FORWARD -> context.forwarder().forward(exchange.state, exchange);
            case DROP -> {
                exchange.recycle();
                resetStream(ctx, streamId, Http2Error.CANCEL.code(), ctx.voidPromise());
            }
            default -> {
                // No policy of this build needs I/O; an unexpected NEEDS_ASYNC is our error, not the client's.
                answer(exchange, exchange.state.snapshot().statusAnswer(500));
                finishAnswered(ctx, streamId, endOfStream);
            }
        }
    }

    /** After a complete answer to a request whose body is still coming: ask the client to stop (RFC 9113 8.1). */
    private void finishAnswered(ChannelHandlerContext ctx, int streamId, boolean endOfStream) {
        if (!endOfStream) {
            resetStream(ctx, streamId, Http2Error.NO_ERROR.code(), ctx.voidPromise());
        }
    }

    /** Writes a precomputed answer on the exchange's stream and ends the exchange. */
    void answer(Http2Exchange exchange, PrecomputedResponse response) {
        ChannelHandlerContext ctx = this.ctx;
        int streamId = exchange.streamId;
        boolean noBody = exchange.head || response.contentLength() == 0;
        Http2Headers headers = new DefaultHttp2Headers(false, response.headerNames().length + 2);
        headers.status(response.statusText());
        AsciiString[] names = response.headerNames();
        AsciiString[] values = response.headerValues();
        for (int i = 0; i < names.length; i++) {
            headers.add(names[i], values[i]);
        }
        headers.add(HttpHeaderNames.DATE, context.date().ascii());
        encoder().writeHeaders(ctx, streamId, headers, 0, noBody, ctx.voidPromise());
        if (!noBody) {
            ByteBuf body;
            if (response.isTemplate()) {
                body = ctx.alloc().ioBuffer(response.contentLength());
                response.writeBody(body, exchange.state.requestId());
            } else {
                body = response.retainedBody();
            }
            encoder().writeData(ctx, streamId, body, 0, true, ctx.voidPromise());
        }
        exchange.recycle();
    }

    /** Builds the handler with our limits and protections. */
    public static Http2GateHandler create(GateContext context, Http2Limits limits) {
        return new Builder(context, limits).build();
    }

    /** Netty's builder with our settings; frame listener and handler are made together. */
    static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Http2GateHandler, Builder> {
        private final GateContext context;

        Builder(GateContext context, Http2Limits limits) {
            this.context = context;
            server(true);
            initialSettings(Http2Settings.defaultSettings()
                    .maxConcurrentStreams(limits.maxConcurrentStreams())
                    .maxHeaderListSize(limits.maxHeaderListSize()));
            validateHeaders(true);
            validateRequiredPseudoHeaders(true);
            // CVE-2023-44487 (rapid reset) and CONTINUATION floods: Netty counts and closes with GOAWAY.
            decoderEnforceMaxRstFramesPerWindow(limits.maxResetsPerWindow(), limits.resetWindowSeconds());
            decoderEnforceMaxSmallContinuationFrames(limits.maxSmallContinuationFrames());
            decoderEnforceMaxConsecutiveEmptyDataFrames(2);
            encoderEnforceMaxQueuedControlFrames(10_000);
            gracefulShutdownTimeoutMillis(limits.gracefulShutdownMillis());
        }

        @Override
        protected Http2GateHandler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
            Http2GateHandler handler = new Http2GateHandler(decoder, encoder, settings, context);
            frameListener(handler.new Listener());
            return handler;
        }

        @Override
        protected Http2GateHandler build() {
            return super.build();
        }
    }
}
