package io.paduraksa.spikes.h1alloc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.nio.charset.StandardCharsets;

/** Base of the answering handlers: counts responses written and flushes once per read batch. */
abstract class Responder extends ChannelInboundHandlerAdapter {

    static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\n"
            + "content-type: text/plain\r\n"
            + "content-length: 2\r\n"
            + "\r\n"
            + "ok").getBytes(StandardCharsets.US_ASCII);

    /** Responses written; only touched on the event loop. */
    long responses;

    /**
     * The fixed answer copied into a fresh buffer from the channel's allocator, written from {@code ctx}
     * towards the head of the pipeline (so only handlers before {@code ctx} see it).
     */
    final void writeRaw(ChannelHandlerContext ctx) {
        ByteBuf out = ctx.alloc().ioBuffer(RESPONSE.length);
        out.writeBytes(RESPONSE);
        ctx.write(out, ctx.voidPromise());
        responses++;
    }

    @Override
    public final void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }
}
