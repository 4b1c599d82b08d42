package io.paduraksa.spikes.h1alloc;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;

/**
 * Behind {@code HttpRequestDecoder} alone (no encoder): releases every decoded message and answers each
 * {@link HttpRequest} with the fixed response as raw bytes.
 *
 * <p>With {@code HttpServerCodec} in front ({@code codec-raw}) raw bytes cannot go through the codec's
 * encoder (it throws on a non-empty ByteBuf before any HttpResponse), so they are written from the
 * context of the handler in front of the codec ({@code bypassTo}), around the encoder. That shows the
 * codec's pipelining limit: the decoder counts requests, only the encoder counts responses.
 */
final class DecoderHandler extends Responder {

    private final String bypassTo;
    private ChannelHandlerContext out;

    /** @param bypassTo name of the handler whose context writes the answer, or null to write from here */
    DecoderHandler(String bypassTo) {
        this.bypassTo = bypassTo;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        out = bypassTo == null ? ctx : ctx.pipeline().context(bypassTo);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpRequest) {
                writeRaw(out);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }
}
