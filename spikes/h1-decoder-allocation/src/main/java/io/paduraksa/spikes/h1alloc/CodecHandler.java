package io.paduraksa.spikes.h1alloc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Behind {@code HttpServerCodec}: answers each request with a {@link DefaultFullHttpResponse} built per
 * request around a retained duplicate of one shared body from {@link PooledByteBufAllocator} (by name),
 * headers set from constants. This is what a plain Netty server does.
 */
final class CodecHandler extends Responder {

    private static final AsciiString TWO = AsciiString.cached("2");

    private static final ByteBuf BODY = PooledByteBufAllocator.DEFAULT.directBuffer(2)
            .writeBytes("ok".getBytes(StandardCharsets.US_ASCII));

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpRequest) {
                DefaultFullHttpResponse response = new DefaultFullHttpResponse(
                        HttpVersion.HTTP_1_1, HttpResponseStatus.OK, BODY.retainedDuplicate());
                response.headers()
                        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                        .set(HttpHeaderNames.CONTENT_LENGTH, TWO);
                ctx.write(response, ctx.voidPromise());
                responses++;
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }
}
