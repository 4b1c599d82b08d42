package io.paduraksa.proxy.http1;

import io.paduraksa.proxy.Activity;
import io.paduraksa.proxy.UpstreamCall;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.LoopFlushes;
import io.paduraksa.proxy.UpstreamStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.paduraksa.gate.RequestState;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.respond.AsciiNumbers;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * One pooled HTTP/1.1 upstream connection: feeds what {@link Http1ResponseDecoder} decodes to the
 * {@link UpstreamCall} that holds the connection, reports closes and writability, and keeps the
 * deadlines its pool's sweep checks (response headers, idle in the middle of a response, idle in
 * the pool). As the {@link UpstreamStream} of one call at a time it writes the request head and
 * body (chunked when the length is unknown). After a {@code 101} to a WebSocket handshake it is a
 * tunnel: raw bytes both ways until either side closes; it never returns to the pool then. Runs on
 * the event loop it was connected on; allocates nothing per request.
 */
final class Http1UpstreamHandler extends ChannelInboundHandlerAdapter implements UpstreamStream {
    private static final int CRLF_SHORT = ('\r' << 8) | '\n';
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n', '\r', '\n'};

    private final Http1UpstreamPool pool;
    private final Http1ResponseDecoder decoder;
    private ChannelHandlerContext ctx;
    private UpstreamCall call;
    private long headersDeadline;
    private final Activity activity = new Activity();
    private int requests;
    private boolean closed;
    private boolean chunkedUp;

    Http1UpstreamHandler(Http1UpstreamPool pool, Http1ResponseDecoder decoder) {
        this.pool = pool;
        this.decoder = decoder;
    }

    Channel channel() {
        return ctx.channel();
    }

    boolean isUsable() {
        return !closed && ctx != null && ctx.channel().isActive() && call == null;
    }

    int requests() {
        return requests;
    }

    /** Takes the connection for {@code call} at {@code now}; the response must start within {@code headersTimeoutNanos}. */
    @Override
    public void begin(UpstreamCall call, long now, long headersTimeoutNanos, boolean headRequest, boolean upgradeRequest) {
        this.call = call;
        requests++;
        activity.at(now);
        headersDeadline = now + headersTimeoutNanos;
        decoder.expectResponse(headRequest, upgradeRequest);
        readResponse(true);
    }

    @Override
    public void writeHead(RequestState state, ForwardExchange exchange, UpstreamCluster cluster, AsciiString endpointAuthority,
                          long bodyLength) {
        Channel ch = ctx.channel();
        ByteBuf out = ch.alloc().ioBuffer(UpstreamRequestHead.estimate(state));
        chunkedUp = bodyLength < 0;
        UpstreamRequestHead.write(out, state, exchange, cluster, endpointAuthority, bodyLength);
        // Flushed at the end of this loop turn even with a body to follow: a client that sent Expect:
        // 100-continue waits for the upstream's 100 before sending it.
        ch.write(out, ch.voidPromise());
        LoopFlushes.flushLater(ch);
    }

    @Override
    public boolean writeBody(ByteBuf chunk) {
        Channel ch = ctx.channel();
        int n = chunk.readableBytes();
        if (n == 0) {
            chunk.release();
            return ch.isWritable();
        }
        activity.touch();
        if (chunkedUp) {
            ByteBuf size = ch.alloc().ioBuffer(12);
            AsciiNumbers.writeHex(size, n);
            size.writeShort(CRLF_SHORT);
            ch.write(size, ch.voidPromise());
            ch.write(chunk, ch.voidPromise());
            ch.writeAndFlush(ch.alloc().ioBuffer(2).writeShort(CRLF_SHORT), ch.voidPromise());
        } else {
            ch.writeAndFlush(chunk, ch.voidPromise());
        }
        return ch.isWritable();
    }

    /**
     * The request body ended; in a tunnel the client ended its side (an HTTP/2 WebSocket's
     * END_STREAM, RFC 8441 4): the upstream gets a FIN after what was written, and may still answer
     * until it closes (which ends the tunnel).
     */
    @Override
    public void endBody() {
        if (decoder.isTunnel()) {
            Channel ch = ctx.channel();
            if (ch instanceof DuplexChannel duplex) {
                ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> duplex.shutdownOutput());
            } else {
                closeAfterFlush();
            }
            return;
        }
        if (chunkedUp) {
            Channel ch = ctx.channel();
            ch.writeAndFlush(ch.alloc().ioBuffer(LAST_CHUNK.length).writeBytes(LAST_CHUNK), ch.voidPromise());
        }
    }

    @Override
    public void abandon() {
        pool.release(this, true);
    }

    @Override
    public void closeAfterFlush() {
        closed = true;
        call = null;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    /** The call ended cleanly: back to the pool when the decoder saw a reusable ending. */
    @Override
    public void finish() {
        call = null;
        headersDeadline = 0;
        activity.touch();
        pool.release(this, decoder.isReusable() && !closed);
    }

    /** Back-pressure from the client: stop or resume reading the response. */
    @Override
    public void readResponse(boolean read) {
        Channel ch = ctx.channel();
        if (ch.config().isAutoRead() != read) {
            ch.config().setAutoRead(read);
        }
    }

    @Override
    public void close() {
        closed = true;
        call = null;
        ctx.close();
    }

    /** Called by the pool's sweep with the current time: fires the timeouts that are due. */
    void sweep(long now, long idleNanos, long poolIdleNanos) {
        UpstreamCall c = call;
        long idle = activity.idleAt(now);
        if (c == null) {
            if (idle >= poolIdleNanos) {
                close();
            }
            return;
        }
        if (headersDeadline != 0 && now - headersDeadline >= 0) {
            headersDeadline = 0;
            c.onHeadersTimeout();
        } else if (headersDeadline == 0 && idle >= idleNanos) {
            c.onIdleTimeout();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        activity.at(System.nanoTime());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        activity.touch();
        UpstreamCall c = call;
        if (c == null) {
            ReferenceCountUtil.release(msg);
            if (msg instanceof Http1Error || msg instanceof Http1ResponseHead) {
                close(); // bytes nobody asked for: never reuse this connection
            }
            return;
        }
        if (msg instanceof ByteBuf body) {
            c.onResponseBody(body);
        } else if (msg instanceof Http1ResponseHead head) {
            if (head.isInformational()) {
                c.onInterim(head);
            } else {
                headersDeadline = 0;
                c.onResponseHead(head);
            }
            head.release();
        } else if (msg == Http1ResponseEnd.INSTANCE) {
            c.onResponseEnd();
        } else if (msg instanceof Http1ResponseTrailers trailers) {
            c.onTrailers(trailers);
        } else if (msg instanceof Http1Error error) {
            call = null;
            close();
            if (error == Http1Error.CLOSED_BEFORE_RESPONSE) {
                c.onUpstreamClosed(); // not a byte came back: a stale keep-alive connection may be retried
            } else {
                c.onUpstreamError();
            }
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        UpstreamCall c = call;
        if (c != null) {
            c.flushClient();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        UpstreamCall c = call;
        if (c != null) {
            c.upstreamWritable(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        UpstreamCall c = call;
        call = null;
        pool.closed(this);
        if (c != null) {
            c.onUpstreamClosed();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and TLS failures: the close reports it to the call as an upstream failure.
        ctx.close();
    }
}
