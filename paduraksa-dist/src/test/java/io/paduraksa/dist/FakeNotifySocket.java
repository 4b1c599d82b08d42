package io.paduraksa.dist;

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

/** systemd's side of NOTIFY_SOCKET: a Unix datagram socket on a path, one message per datagram. */
final class FakeNotifySocket implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    private final Channel channel;
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final Path path;

    FakeNotifySocket(Path path) {
        this.path = path;
        this.channel = new Bootstrap().group(group).channel(EpollDomainDatagramChannel.class)
                .handler(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket p) {
                        messages.add(p.content().toString(StandardCharsets.UTF_8));
                    }
                })
                .bind(new DomainSocketAddress(path.toString())).syncUninterruptibly().channel();
    }

    /** The next message, waiting up to {@code seconds}. */
    String next(int seconds) throws InterruptedException {
        String m = messages.poll(seconds, TimeUnit.SECONDS);
        if (m == null) {
            throw new AssertionError("no notify message within " + seconds + " s");
        }
        return m;
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
