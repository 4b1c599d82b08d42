package io.paduraksa.spikes.h1alloc;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;

/**
 * Behind {@code HttpRequestDecoder} alone (no encoder): releases every decoded message and answers each
 * {@link HttpRequest} with the fixed response as raw bytes. With {@code HttpServerCodec} in front this is
 * the {@code codec-raw} variant, which shows the codec's pipelining limit.
 */
final class DecoderHandler extends Responder {

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpRequest) {
                writeRaw(ctx);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }
}
