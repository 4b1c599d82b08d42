package io.paduraksa.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.List;

/**
 * On a cleartext listener that speaks both HTTP/1.1 and h2c: reads just enough of the first bytes
 * to tell the HTTP/2 connection preface (RFC 9113 3.4) from an HTTP/1.1 request line, installs the
 * matching protocol handlers and removes itself. Runs once per connection.
 */
final class ProtocolDetector extends ByteToMessageDecoder {
    private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();

    private final ListenerInitializer listener;

    ProtocolDetector(ListenerInitializer listener) {
        this.listener = listener;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), PREFACE.readableBytes());
        for (int i = 0; i < n; i++) {
            if (in.getByte(in.readerIndex() + i) != PREFACE.getByte(i)) {
                listener.installHttp1(ctx.pipeline());
                ctx.pipeline().remove(this);
                return;
            }
        }
        if (n == PREFACE.readableBytes()) {
            listener.installHttp2(ctx.pipeline());
            ctx.pipeline().remove(this);
        }
    }
}
