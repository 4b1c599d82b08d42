package io.paduraksa.http1;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * A decoder whose consumer may hold a decoded message past its {@code channelRead} (a forwarded
 * request's head, an upstream response's head) and then asks for the bytes buffered meanwhile to be
 * decoded: {@link #resume()}. Our HTTP/1.1 request and response decoders parse the next message
 * only once the previous one is released, so without this a pipelined message that arrived in the
 * same read would wait for the next read, which may never come. Tracks whether decoding is running
 * so that a resume from inside a callback does not re-enter it.
 */
public abstract class ResumableDecoder extends ByteToMessageDecoder {
    private ChannelHandlerContext ctx;
    private boolean reading;

    /**
     * Decodes buffered bytes again after the consumer released what it held. Call on the event loop;
     * does nothing while the decoder is already running or when nothing is buffered.
     */
    public void resume() throws Exception {
        ChannelHandlerContext c = ctx;
        if (c != null && !reading && !c.isRemoved() && actualReadableBytes() > 0) {
            channelRead(c, Unpooled.EMPTY_BUFFER);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        reading = true;
        try {
            super.channelRead(ctx, msg);
        } finally {
            reading = false;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        reading = true; // decodeLast runs in here; resume() must not re-enter it
        try {
            super.channelInactive(ctx);
        } finally {
            reading = false;
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        reading = true; // an input shutdown decodes what is left
        try {
            super.userEventTriggered(ctx, evt);
        } finally {
            reading = false;
        }
    }
}
