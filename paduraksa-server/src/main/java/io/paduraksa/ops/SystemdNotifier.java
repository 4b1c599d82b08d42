package io.paduraksa.ops;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells systemd about start-up, reloads, stop and liveness through the datagram socket named by
 * {@code NOTIFY_SOCKET} (sd_notify(3) protocol: newline-separated {@code KEY=value} lines, one
 * datagram per message). The JDK has no Unix datagram sockets, so this uses Netty's
 * {@link EpollDomainDatagramChannel} on its own one-thread event loop: callers (start-up, the SIGHUP
 * thread, the stop thread) only enqueue a write and never wait for it, and nothing runs on the
 * server's event loops except the watchdog's one no-op probe task per loop per interval.
 *
 * <p>Without {@code NOTIFY_SOCKET} (not started by systemd, or {@code Type=simple}) {@link #none()}
 * is used: every method returns at once and nothing is logged. Not on the request path.
 */
public final class SystemdNotifier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SystemdNotifier.class);
    private static final SystemdNotifier NONE = new SystemdNotifier(null, null, null, 0);
    /** STATUS is one line of free text; systemctl status shows it, so keep it short. */
    private static final int MAX_STATUS = 200;

    private final EventLoopGroup loop;
    private final Channel channel;
    private final DomainSocketAddress socket;
    private final long watchdogMicros;
    private final AtomicBoolean failureLogged = new AtomicBoolean();
    private volatile ScheduledFuture<?> watchdog;

    private SystemdNotifier(EventLoopGroup loop, Channel channel, DomainSocketAddress socket, long watchdogMicros) {
        this.loop = loop;
        this.channel = channel;
        this.socket = socket;
        this.watchdogMicros = watchdogMicros;
    }

    /** The notifier that does nothing (no systemd). */
    public static SystemdNotifier none() {
        return NONE;
    }

    /**
     * A notifier for the socket in {@code env} ({@code NOTIFY_SOCKET}: a path, or {@code @name} for
     * the abstract namespace), with the watchdog interval from {@code WATCHDOG_USEC} when
     * {@code WATCHDOG_PID} is unset or equals {@code pid} (systemd sets it for the main process only).
     * {@link #none()} when there is no socket or epoll is unavailable (logged once).
     */
    public static SystemdNotifier fromEnvironment(Map<String, String> env, long pid) {
        String path = env.get("NOTIFY_SOCKET");
        if (path == null || path.isEmpty()) {
            return NONE;
        }
        if (!Epoll.isAvailable()) {
            LOG.warn("NOTIFY_SOCKET is set but the epoll transport is unavailable, so systemd is not notified: {}",
                    Epoll.unavailabilityCause().toString());
            return NONE;
        }
        long watchdog = watchdogMicros(env, pid);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, r -> {
            Thread t = new Thread(r, "paduraksa-systemd");
            t.setDaemon(true);
            return t;
        }, EpollIoHandler.newFactory());
        try {
            // Unbound and unconnected, like sd_notify: every message is a sendto() to the path, so a
            // socket that systemd re-created (daemon-reexec) is still reached.
            Channel ch = new Bootstrap().group(group).channel(EpollDomainDatagramChannel.class)
                    .option(ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION, true)
                    .handler(new ChannelInboundHandlerAdapter())
                    .register().syncUninterruptibly().channel();
            LOG.info("systemd notify socket {}{}", path, watchdog > 0 ? "; watchdog ping every " + watchdog / 2_000 + " ms" : "");
            return new SystemdNotifier(group, ch, address(path), watchdog);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            LOG.warn("cannot open a datagram socket for NOTIFY_SOCKET {}, systemd is not notified: {}", path, e.toString());
            return NONE;
        }
    }

    /**
     * The socket address for a NOTIFY_SOCKET value. A leading '@' names the Linux abstract namespace,
     * whose addresses start with a NUL byte (unix(7)); Netty's native code passes the exact path length
     * to bind/sendto ({@code _UNIX_ADDR_LENGTH} in netty_unix_socket.c), so a NUL-led path works.
     */
    static DomainSocketAddress address(String notifySocket) {
        return new DomainSocketAddress(notifySocket.charAt(0) == '@' ? '\0' + notifySocket.substring(1) : notifySocket);
    }

    /** WATCHDOG_USEC when it applies to this process, else 0. */
    static long watchdogMicros(Map<String, String> env, long pid) {
        String usec = env.get("WATCHDOG_USEC");
        if (usec == null) {
            return 0;
        }
        String forPid = env.get("WATCHDOG_PID");
        try {
            if (forPid != null && Long.parseLong(forPid.trim()) != pid) {
                return 0;
            }
            long micros = Long.parseLong(usec.trim());
            return micros > 0 ? micros : 0;
        } catch (NumberFormatException e) {
            LOG.warn("ignoring the systemd watchdog: WATCHDOG_USEC={} WATCHDOG_PID={} are not numbers", usec, forPid);
            return 0;
        }
    }

    /** Whether messages go anywhere (NOTIFY_SOCKET was set and the socket opened). */
    public boolean isActive() {
        return channel != null;
    }

    /** The watchdog interval systemd asked for, in microseconds, or 0 without a watchdog. */
    public long watchdogMicros() {
        return watchdogMicros;
    }

    /** Start-up or a reload is complete: {@code READY=1} with a one-line status. */
    public void ready(String status) {
        if (channel != null) {
            send("READY=1\nSTATUS=" + oneLine(status));
        }
    }

    /**
     * A reload begins: {@code RELOADING=1} with {@code MONOTONIC_USEC}, CLOCK_MONOTONIC in microseconds,
     * which systemd 253+ compares with its own reload request. {@link System#nanoTime()} is that clock on
     * Linux HotSpot: {@code os::javaTimeNanos()} in src/hotspot/os/posix/os_posix.cpp returns
     * {@code clock_gettime(CLOCK_MONOTONIC)} in nanoseconds, without an offset.
     */
    public void reloading() {
        if (channel != null) {
            send("RELOADING=1\nMONOTONIC_USEC=" + System.nanoTime() / 1_000);
        }
    }

    /** The drain begins: {@code STOPPING=1}; the watchdog stops pinging (the stop has its own timeout). */
    public void stopping() {
        if (channel != null) {
            stopWatchdog();
            send("STOPPING=1\nSTATUS=draining connections");
        }
    }

    /**
     * Pings {@code WATCHDOG=1} every half watchdog interval while every executor of {@code loops}
     * runs its tasks: each tick posts one no-op probe to each loop and the next tick pings only when all
     * probes ran. A stuck event loop therefore stops the pings, and systemd restarts the service.
     */
    public void startWatchdog(Iterable<EventExecutor> loops) {
        if (channel == null || watchdogMicros <= 0) {
            return;
        }
        LoopProbe probe = new LoopProbe(this, loops);
        long every = Math.max(1, watchdogMicros / 2);
        watchdog = channel.eventLoop().scheduleAtFixedRate(probe, 0, every, TimeUnit.MICROSECONDS);
    }

    private void stopWatchdog() {
        ScheduledFuture<?> w = watchdog;
        if (w != null) {
            w.cancel(false);
        }
    }

    /** Sends one message; the future completes when the datagram is written (or failed). */
    Future<Void> send(String message) {
        ChannelFuture f = channel.writeAndFlush(new DomainDatagramPacket(Unpooled.copiedBuffer(message, StandardCharsets.UTF_8), socket));
        f.addListener((ChannelFutureListener) this::logFailure);
        return f;
    }

    private void logFailure(Future<? super Void> f) {
        if (!f.isSuccess() && failureLogged.compareAndSet(false, true)) {
            LOG.warn("cannot send to the systemd notify socket {} (further failures are not logged): {}",
                    socket.path().replace('\0', '@'), f.cause().toString());
        }
    }

    static String oneLine(String status) {
        String s = status.replace('\n', ' ').replace('\r', ' ');
        return s.length() <= MAX_STATUS ? s : s.substring(0, MAX_STATUS - 3) + "...";
    }

    /** Stops the watchdog, waits briefly for queued messages to go out, closes the socket. */
    @Override
    public void close() {
        if (channel == null) {
            return;
        }
        stopWatchdog();
        // A write enqueued before this close is flushed before the close runs: same event loop, in order.
        channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    /** One watchdog tick: ping if every loop answered the previous probe, then probe again. */
    private static final class LoopProbe implements Runnable {
        private final SystemdNotifier notifier;
        private final Iterable<EventExecutor> loops;
        private final AtomicInteger pending = new AtomicInteger();
        private final Runnable answer = pending::decrementAndGet;
        private boolean stuckLogged;

        LoopProbe(SystemdNotifier notifier, Iterable<EventExecutor> loops) {
            this.notifier = notifier;
            this.loops = loops;
        }

        @Override
        public void run() {
            if (pending.get() > 0) {
                if (!stuckLogged) {
                    stuckLogged = true;
                    LOG.error("{} event loop(s) did not run a task within {} ms: not pinging the systemd watchdog",
                            pending.get(), notifier.watchdogMicros / 2_000);
                }
                return;
            }
            stuckLogged = false;
            notifier.send("WATCHDOG=1");
            for (EventExecutor e : loops) {
                pending.incrementAndGet();
                try {
                    e.execute(answer);
                } catch (RejectedExecutionException shuttingDown) {
                    pending.decrementAndGet();
                }
            }
        }
    }
}
