package io.paduraksa.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import io.paduraksa.http2.Http2Frames;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * On a cleartext listener that speaks both HTTP/1.1 and h2c: reads just enough of the first bytes
 * to tell the HTTP/2 connection preface (RFC 9113 3.4) from an HTTP/1.1 request line, installs the
 * matching protocol handlers and removes itself. Runs once per connection. The protocol handlers'
 * timeouts start only once they are installed, so a connection that sends nothing (or part of a
 * preface) is closed here after the idle timeout.
 */
final class ProtocolDetector extends ByteToMessageDecoder implements Runnable {
    private static final byte[] PREFACE = Http2Frames.CLIENT_PREFACE;

    private final ListenerInitializer listener;
    private final long idleTimeoutMillis;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timeout;

    ProtocolDetector(ListenerInitializer listener, long idleTimeoutMillis) {
        this.listener = listener;
        this.idleTimeoutMillis = idleTimeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        timeout = ctx.executor().schedule(this, idleTimeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    /** Nothing to tell the protocol by within the idle timeout: close. */
    @Override
    public void run() {
        if (timeout != null && !ctx.isRemoved()) {
            ctx.close();
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), PREFACE.length);
        for (int i = 0; i < n; i++) {
            if (in.getByte(in.readerIndex() + i) != PREFACE[i]) {
                listener.installHttp1(ctx.pipeline());
                ctx.pipeline().remove(this);
                return;
            }
        }
        if (n == PREFACE.length) {
            listener.installHttp2(ctx.pipeline());
            ctx.pipeline().remove(this);
        }
    }
}
