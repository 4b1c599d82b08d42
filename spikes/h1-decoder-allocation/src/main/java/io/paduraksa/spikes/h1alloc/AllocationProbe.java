package io.paduraksa.spikes.h1alloc;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.lang.management.ManagementFactory;

/**
 * First handler of the pipeline: brackets each {@code channelRead} and {@code channelReadComplete} (all
 * downstream work: decoding, the answering handler, the write, the flush) with the event-loop thread's
 * allocated-bytes counter. Everything the transport does outside the pipeline (read buffer allocation,
 * the selector or ring) is not in this number; {@link H1AllocationSpike} reports it separately as the
 * whole-thread delta.
 */
final class AllocationProbe extends ChannelInboundHandlerAdapter {

    static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Only touched on the event loop; read there by the snapshot task. */
    long pipelineBytes;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        ctx.fireChannelRead(msg);
        pipelineBytes += THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        ctx.fireChannelReadComplete();
        pipelineBytes += THREADS.getCurrentThreadAllocatedBytes() - before;
    }
}
