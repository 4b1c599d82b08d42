package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.netty.channel.local.LocalChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Upstream writes made during one turn of an event loop are flushed after that turn, each channel's
 * once, instead of one flush per write while the turn runs (what lets an idle upstream wake once for
 * several requests). Off the loop a flush is immediate.
 */
class LoopFlushesTest {
    private final DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void writesOfOneTurnAreFlushedTogetherAfterIt() throws Exception {
        List<String> events = new ArrayList<>();
        LocalChannel a = channel("a", events);
        LocalChannel b = channel("b", events);
        EventLoop loop = group.next();
        loop.submit(() -> {
            a.write(Unpooled.wrappedBuffer(new byte[] {1}), a.voidPromise());
            LoopFlushes.flushLater(a);
            b.write(Unpooled.wrappedBuffer(new byte[] {2}), b.voidPromise());
            LoopFlushes.flushLater(b);
            a.write(Unpooled.wrappedBuffer(new byte[] {3}), a.voidPromise());
            LoopFlushes.flushLater(a);
            events.add("end of turn");
        }).get();
        loop.submit(() -> { }).get(); // the flush task was queued by the turn, before this one
        assertThat(events).containsExactly("a write", "b write", "a write", "end of turn", "a flush", "b flush", "a flush");
    }

    @Test
    void flushActionsOfOneTurnRunAfterItInOrderWithChannels() throws Exception {
        List<String> events = new ArrayList<>();
        LocalChannel a = channel("a", events);
        EventLoop loop = a.eventLoop();
        loop.submit(() -> {
            LoopFlushes.flushLater(a, () -> events.add("h2 flush"));
            LoopFlushes.flushLater(a);
            events.add("end of turn");
        }).get();
        loop.submit(() -> { }).get();
        assertThat(events).containsExactly("end of turn", "h2 flush", "a flush");
        LoopFlushes.flushLater(a, () -> events.add("from outside")); // off the loop: at once
        assertThat(events).last().isEqualTo("from outside");
    }

    @Test
    void aFlushThatThrowsLeavesTheOthersOfItsTurnFlushed() throws Exception {
        List<String> events = new ArrayList<>();
        LocalChannel a = channel("a", events);
        a.eventLoop().submit(() -> {
            LoopFlushes.flushLater(a, () -> {
                throw new IllegalStateException("broken connection");
            });
            LoopFlushes.flushLater(a, () -> events.add("second"));
            LoopFlushes.flushLater(a);
        }).get();
        a.eventLoop().submit(() -> { }).get();
        assertThat(events).containsExactly("second", "a flush");
    }

    @Test
    void offTheLoopTheFlushIsImmediate() throws Exception {
        List<String> events = new ArrayList<>();
        LocalChannel a = channel("a", events);
        a.eventLoop().submit(() -> a.write(Unpooled.wrappedBuffer(new byte[] {1}), a.voidPromise())).get();
        LoopFlushes.flushLater(a); // from the test thread: Channel.flush hands it to the loop at once
        a.eventLoop().submit(() -> events.add("next task")).get();
        assertThat(events).containsExactly("a write", "a flush", "next task");
    }

    /** A channel on the group's loop whose pipeline records writes and flushes and goes no further. */
    private LocalChannel channel(String name, List<String> events) throws Exception {
        LocalChannel ch = new LocalChannel();
        ch.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                events.add(name + " write");
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
                events.add(name + " flush");
            }
        });
        group.register(ch).sync();
        return ch;
    }
}
