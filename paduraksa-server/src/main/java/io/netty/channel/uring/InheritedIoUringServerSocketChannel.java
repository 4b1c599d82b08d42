package io.netty.channel.uring;

import io.netty.channel.Channel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.ServerSocketChannelConfig;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * An io_uring listening channel over a socket that is already bound and listening: one systemd passed
 * (socket activation) or an older process handed over. Netty 4.2.18's {@link IoUringServerSocketChannel}
 * always makes a new socket (its epoll sibling has a constructor that takes a descriptor), so this class
 * lives in Netty's package to reach the package-private constructor of {@link AbstractIoUringServerChannel}
 * with the inherited descriptor, already active. A Netty upgrade that changes those internals fails the
 * build here, not at run time; {@code SocketActivationTest} serves requests through it.
 *
 * <p>Accepted connections are the same {@link IoUringSocketChannel}s Netty's own listener creates, with
 * the peer's address read the same way. Runs at start only; nothing here is on the request path.
 */
public final class InheritedIoUringServerSocketChannel extends AbstractIoUringServerChannel implements ServerSocketChannel {
    private final IoUringServerSocketChannelConfig config;

    /** @param fd a listening TCP socket (IPv4 or IPv6); the channel owns and closes it */
    public InheritedIoUringServerSocketChannel(int fd) {
        super(new LinuxSocket(fd), true);
        this.config = new IoUringServerSocketChannelConfig(this);
    }

    @Override
    public ServerSocketChannelConfig config() {
        return config;
    }

    @Override
    Channel newChildChannel(int fd, ByteBuffer acceptedAddress) {
        LinuxSocket accepted = new LinuxSocket(fd);
        if (acceptedAddress == null) {
            return new IoUringSocketChannel(this, accepted);
        }
        IoUringIoHandler handler = (IoUringIoHandler) registration().attachment();
        InetSocketAddress remote = accepted.isIpv6()
                ? SockaddrIn.getIPv6(acceptedAddress, handler.inet6AddressArray(), handler.inet4AddressArray())
                : SockaddrIn.getIPv4(acceptedAddress, handler.inet4AddressArray());
        return new IoUringSocketChannel(this, accepted, remote);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    /** Already bound and listening: binding again is refused. */
    @Override
    public void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("an inherited listening socket is bound already");
    }
}
