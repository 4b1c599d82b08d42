package io.paduraksa.spikes.h1alloc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * Baseline, no decoder: finds each end of head ({@code \r\n\r\n}) in the raw inbound bytes (a state
 * machine that survives split reads) and answers each with the fixed response.
 */
final class RawHandler extends Responder {

    /** How many bytes of CR LF CR LF have matched so far. */
    private int matched;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            int m = matched;
            for (int i = in.readerIndex(), end = in.writerIndex(); i < end; i++) {
                byte b = in.getByte(i);
                if (b == '\r') {
                    m = (m == 2) ? 3 : 1;
                } else if (b == '\n' && (m == 1 || m == 3)) {
                    m++;
                    if (m == 4) {
                        writeRaw(ctx);
                        m = 0;
                    }
                } else {
                    m = 0;
                }
            }
            matched = m;
        } finally {
            in.release();
        }
    }
}
