package io.paduraksa.server.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.InheritedIoUringServerSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.List;
import java.util.Locale;

/**
 * The socket transport, chosen once at start: io_uring, else epoll, else NIO (measured order, see
 * {@code BY_PREFERENCE}; all three serve connections on the build kernel). One value gives the event loop group, the server channel class for listeners and the client
 * channel class for the forwarder, so that both sides of a proxied request share one transport.
 *
 * <p>Runs at start (and in tests); nothing here is on the request path.
 */
public final class Transport {
    /** Linux io_uring ({@code netty-transport-native-io_uring}); needs a 5.9+ kernel that allows it. */
    public static final Transport IO_URING = new Transport("io_uring",
            IoUringServerSocketChannel.class, IoUringSocketChannel.class, IoUringDatagramChannel.class);
    /** Linux epoll ({@code netty-transport-native-epoll}). */
    public static final Transport EPOLL = new Transport("epoll",
            EpollServerSocketChannel.class, EpollSocketChannel.class, EpollDatagramChannel.class);
    /** The JDK's selector; always available, the slowest and the one that allocates per request. */
    public static final Transport NIO = new Transport("nio",
            NioServerSocketChannel.class, NioSocketChannel.class, NioDatagramChannel.class);

    /**
     * The order {@code auto} tries. Measured on the proxied path (paduraksa-bench/e2e/ab.py, the same build
     * on each transport, two pairs alternating, 2026-12-06, docs/benchmarks-e2e.md): io_uring took 0.78-0.86x
     * epoll's CPU per proxied HTTP/1.1 request, 0.83-0.89x per proxied h2c request, 0.84-0.89x per
     * gate-answered minimal HTTP/1.1 request and was level on gate-answered h2c (an earlier choice of epoll
     * rested on a gate-answered run on a machine under load). Netty 4.2.18's io_uring transport allocates
     * an {@code IoUringIoOps} per submission; epoll allocates nothing per request.
     */
    private static final List<Transport> BY_PREFERENCE = List.of(IO_URING, EPOLL, NIO);

    private final String name;
    private final Class<? extends ServerSocketChannel> serverChannelClass;
    private final Class<? extends SocketChannel> socketChannelClass;
    private final Class<? extends DatagramChannel> datagramChannelClass;

    private Transport(String name, Class<? extends ServerSocketChannel> serverChannelClass,
                      Class<? extends SocketChannel> socketChannelClass, Class<? extends DatagramChannel> datagramChannelClass) {
        this.name = name;
        this.serverChannelClass = serverChannelClass;
        this.socketChannelClass = socketChannelClass;
        this.datagramChannelClass = datagramChannelClass;
    }

    /**
     * The transport to run on. {@code auto} (or {@code null}) takes the first available of io_uring,
     * epoll, NIO; a named transport must be available.
     *
     * @param forced {@code auto}, {@code io_uring}, {@code epoll} or {@code nio} (case-insensitive)
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException when the named transport cannot run here; its cause is Netty's reason
     */
    public static Transport choose(String forced) {
        String wanted = forced == null ? "auto" : forced.trim().toLowerCase(Locale.ROOT);
        if (wanted.equals("auto")) {
            return firstAvailable();
        }
        Transport transport = byName(wanted);
        Throwable cause = transport.unavailabilityCause();
        if (cause != null) {
            throw new IllegalStateException("transport '" + wanted + "' is not available here: " + cause, cause);
        }
        return transport;
    }

    /** All transports in preference order (io_uring, epoll, NIO). */
    public static List<Transport> all() {
        return BY_PREFERENCE;
    }

    /**
     * One line for the start-up log: each transport and whether it can run, with Netty's reason when not,
     * e.g. {@code io_uring: unavailable (...); epoll: available; nio: available}.
     */
    public static String availabilityReport() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < BY_PREFERENCE.size(); i++) {
            Transport t = BY_PREFERENCE.get(i);
            if (i > 0) {
                sb.append("; ");
            }
            Throwable cause = t.unavailabilityCause();
            sb.append(t.name).append(cause == null ? ": available" : ": unavailable (" + cause + ')');
        }
        return sb.toString();
    }

    /** {@code io_uring}, {@code epoll} or {@code nio}: the name the configuration and the log use. */
    public String name() {
        return name;
    }

    public boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Why this transport cannot run here (Netty's native-library or kernel error), or null when it can. */
    public Throwable unavailabilityCause() {
        if (this == IO_URING) {
            return IoUring.unavailabilityCause();
        }
        if (this == EPOLL) {
            return Epoll.unavailabilityCause();
        }
        return null;
    }

    /** A new event loop group of this transport with {@code threads} loops (0: Netty's default, 2 x cores). */
    public EventLoopGroup newEventLoopGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, ioHandlerFactory());
    }

    /** The factory Netty 4.2 builds an event loop's I/O handler from. */
    public IoHandlerFactory ioHandlerFactory() {
        requireAvailable();
        if (this == IO_URING) {
            return IoUringIoHandler.newFactory();
        }
        if (this == EPOLL) {
            return EpollIoHandler.newFactory();
        }
        return NioIoHandler.newFactory();
    }

    /**
     * A listener over {@code fd}, a socket already bound and listening (socket activation, a hand-over),
     * not yet registered; the channel owns the descriptor.
     *
     * @throws IllegalStateException on NIO, which cannot wrap a descriptor
     * @throws RuntimeException      (Netty's) when {@code fd} is not a TCP socket
     */
    public ServerChannel adoptListening(int fd) {
        requireAvailable();
        if (this == IO_URING) {
            return new InheritedIoUringServerSocketChannel(fd);
        }
        if (this == EPOLL) {
            return new EpollServerSocketChannel(fd);
        }
        throw new IllegalStateException("the nio transport cannot take an inherited listening socket");
    }

    /** For {@code ServerBootstrap.channel(...)}: listeners. */
    public Class<? extends ServerSocketChannel> serverChannelClass() {
        return serverChannelClass;
    }

    /** For {@code Bootstrap.channel(...)}: upstream connections made by the forwarder. */
    public Class<? extends SocketChannel> socketChannelClass() {
        return socketChannelClass;
    }

    /** The UDP channel class for HTTP/3 listeners (QUIC runs over it). */
    public Class<? extends DatagramChannel> datagramChannelClass() {
        return datagramChannelClass;
    }

    @Override
    public String toString() {
        return name;
    }

    private void requireAvailable() {
        Throwable cause = unavailabilityCause();
        if (cause != null) {
            throw new IllegalStateException("transport '" + name + "' is not available here: " + cause, cause);
        }
    }

    private static Transport firstAvailable() {
        for (int i = 0; i < BY_PREFERENCE.size(); i++) {
            Transport t = BY_PREFERENCE.get(i);
            if (t.isAvailable()) {
                return t;
            }
        }
        return NIO; // unreachable: NIO is always available
    }

    private static Transport byName(String name) {
        for (int i = 0; i < BY_PREFERENCE.size(); i++) {
            Transport t = BY_PREFERENCE.get(i);
            if (t.name.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException(
                "unknown transport '" + name + "' (expected one of: auto, io_uring, epoll, nio)");
    }
}
