package io.paduraksa.ops;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What systemd listens on: a Unix datagram socket bound to a path or an abstract name, collecting each
 * datagram as one message. WATCHDOG=1 pings go to {@link #pings}, everything else to {@link #messages},
 * so that assertions on the order of READY/RELOADING/STOPPING are not disturbed by the watchdog.
 */
public final class FakeNotifySocket implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    private final Channel channel;
    private final String notifySocket;
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final BlockingQueue<String> pings = new LinkedBlockingQueue<>();

    private FakeNotifySocket(String bindPath, String notifySocket) {
        this.notifySocket = notifySocket;
        this.channel = new Bootstrap().group(group).channel(EpollDomainDatagramChannel.class)
                .handler(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket p) {
                        String m = p.content().toString(StandardCharsets.UTF_8);
                        (m.equals("WATCHDOG=1") ? pings : messages).add(m);
                    }
                })
                .bind(new DomainSocketAddress(bindPath)).syncUninterruptibly().channel();
    }

    /** Bound to a file-system path, as systemd's /run/systemd/notify. */
    public static FakeNotifySocket onPath(Path path) {
        return new FakeNotifySocket(path.toString(), path.toString());
    }

    /** Bound to an abstract name; NOTIFY_SOCKET spells it with a leading '@'. */
    public static FakeNotifySocket abstractName(String name) {
        return new FakeNotifySocket('\0' + name, '@' + name);
    }

    /** The value for NOTIFY_SOCKET. */
    public String notifySocket() {
        return notifySocket;
    }

    /** The next non-watchdog message, waiting up to 5 s. */
    public String next() throws InterruptedException {
        return take(messages);
    }

    /** The next WATCHDOG=1, waiting up to 5 s. */
    public String nextPing() throws InterruptedException {
        return take(pings);
    }

    private static String take(BlockingQueue<String> q) throws InterruptedException {
        String m = q.poll(5, TimeUnit.SECONDS);
        if (m == null) {
            throw new AssertionError("no notify message within 5 s");
        }
        return m;
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
