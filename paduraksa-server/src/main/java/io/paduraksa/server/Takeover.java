package io.paduraksa.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import io.paduraksa.server.transport.InheritedSockets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hand-over of the listening sockets from a running server to a new process without systemd
 * ({@code run --takeover}), like HAProxy's {@code -x}: the running server, started with
 * {@code --takeover-socket PATH}, listens on that Unix socket; a process that connects gets every
 * listening descriptor ({@code SCM_RIGHTS}, Netty epoll's {@link FileDescriptor} messages) and then
 * the connection closes. The new process serves on them, then sends the old one SIGTERM (its pid from
 * {@code SO_PEERCRED}), and the old one drains as on any stop. Only the owner may connect (mode 0600).
 *
 * <p>Runs at start and at hand-over; nothing here is on the request path.
 */
final class Takeover {
    private static final Logger LOG = LoggerFactory.getLogger(Takeover.class);

    /** What a hand-over gave: the descriptors and the pid of the process that sent them. */
    record Received(InheritedSockets sockets, long fromPid) {
    }

    private Takeover() {
    }

    /**
     * Listens on {@code path} (a stale file there is replaced) and hands the descriptors of
     * {@code listening} to each process that connects. The Unix socket runs on an epoll loop of its own, so
     * that the listeners may run on any native transport; the loop ends when the returned channel, closed
     * at stop, closes.
     */
    static Channel serve(Path path, Supplier<List<Channel>> listening) throws IOException {
        Files.deleteIfExists(path);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        ChannelFuture f = new ServerBootstrap().group(group).channel(EpollServerDomainSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        List<Channel> channels = listening.get();
                        for (Channel ch : channels) {
                            ctx.write(new FileDescriptor(((UnixChannel) ch).fd().intValue()));
                        }
                        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                        LOG.info("hand-over: sent {} listening sockets to a new process on {}", channels.size(), path);
                    }
                })
                .bind(new DomainSocketAddress(path.toFile())).awaitUninterruptibly();
        if (!f.isSuccess()) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException("cannot listen for hand-overs on " + path + ": " + f.cause(), f.cause());
        }
        f.channel().closeFuture().addListener(closed -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS));
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        LOG.info("hand-over: a new process started with run --takeover --takeover-socket {} takes the listening sockets", path);
        return f.channel();
    }

    /** Connects to the running server's hand-over socket and receives its listening descriptors. */
    static Received receive(Path path) throws IOException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            List<InheritedSockets.Socket> sockets = new ArrayList<>();
            AtomicLong peer = new AtomicLong(-1);
            ChannelFuture f = new Bootstrap().group(group).channel(EpollDomainSocketChannel.class)
                    .option(EpollChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) throws Exception {
                            // Before the first read: the sender closes once the descriptors are out.
                            peer.set(((EpollDomainSocketChannel) ctx.channel()).peerCredentials().pid());
                            super.channelActive(ctx);
                        }

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            if (msg instanceof FileDescriptor fd) {
                                synchronized (sockets) {
                                    sockets.add(new InheritedSockets.Socket(fd.intValue(), null));
                                }
                            }
                        }
                    })
                    .connect(new DomainSocketAddress(path.toFile())).awaitUninterruptibly();
            if (!f.isSuccess()) {
                throw new IOException("cannot connect to the running server's hand-over socket " + path + ": "
                        + f.cause(), f.cause());
            }
            if (!f.channel().closeFuture().awaitUninterruptibly(10, TimeUnit.SECONDS)) {
                f.channel().close();
                throw new IOException("the running server (pid " + peer.get() + ") did not finish the hand-over in 10 s");
            }
            long pid = peer.get();
            if (pid <= 0) {
                throw new IOException("the hand-over socket " + path + " did not say which process sent the sockets");
            }
            synchronized (sockets) {
                LOG.info("hand-over: received {} listening sockets from pid {}", sockets.size(), pid);
                return new Received(InheritedSockets.of(sockets), pid);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Waits (up to 10 s) until the old process has closed its hand-over socket, whose file Netty
     * removes on close, or has exited: only then may this process listen on the same path.
     */
    static void awaitRelease(Path path, long oldPid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.exists(path) && ProcessHandle.of(oldPid).map(ProcessHandle::isAlive).orElse(false)
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
    }

    /** Tells the old process to drain and exit: SIGTERM, as {@code systemctl stop} does. */
    static void retire(long pid) {
        boolean sent = ProcessHandle.of(pid).map(ProcessHandle::destroy).orElse(false);
        LOG.info("hand-over: {} pid {} to drain and exit", sent ? "asked" : "could not ask", pid);
    }
}
