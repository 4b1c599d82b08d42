package io.paduraksa.proxy.health;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The address of one destination, with host names re-resolved periodically off the event loops
 * (the JDK resolver blocks) so that the forwarder's {@link #current()} is one volatile read.
 *
 * <p>IP literals ({@code 192.0.2.7}, {@code 2001:db8::1}, with or without brackets) are parsed
 * once and never go to DNS. Host names are resolved in the constructor (which runs at config load,
 * off the event loops) and then every {@code every} on {@code scheduler}; zero means once. A failed
 * re-resolution keeps the last good address and logs one warning per failure streak (and one INFO
 * line when it resolves again). When even the first resolution fails, {@link #current()} is an
 * unresolved address ({@link #isResolved()} false; a connect to it fails) and resolution is tried
 * again every {@code every}, or every {@value #UNRESOLVED_RETRY_SECONDS} s when {@code every} is zero,
 * until it succeeds.
 *
 * <p>The JDK caches lookups itself ({@code networkaddress.cache.ttl}, 30 s by default without a
 * security manager), so re-resolving more often than that returns the cached answer. Of several
 * addresses the first is used, as {@link InetAddress#getByName} orders them.
 */
public final class ResolvedAddress implements AutoCloseable {
    static final long UNRESOLVED_RETRY_SECONDS = 5;
    private static final Logger LOG = LoggerFactory.getLogger(ResolvedAddress.class);

    /** How a host name becomes an address; the JDK's {@code InetAddress::getByName} outside tests. */
    @FunctionalInterface
    interface Resolver {
        InetAddress resolve(String host) throws UnknownHostException;
    }

    private final String host;
    private final int port;
    private final Resolver resolver;
    private final ScheduledFuture<?> refresh;
    private volatile InetSocketAddress current;
    private volatile boolean resolved;
    /** Only the scheduler's thread (and the constructor before it) writes this. */
    private boolean failing;

    public ResolvedAddress(String host, int port, Duration every, ScheduledExecutorService scheduler) {
        this(host, port, every, scheduler, InetAddress::getByName);
    }

    ResolvedAddress(String host, int port, Duration every, ScheduledExecutorService scheduler, Resolver resolver) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port must be 1-65535 (got " + port + ")");
        }
        if (every.isNegative()) {
            throw new IllegalArgumentException("re-resolution interval must not be negative (got " + every + ")");
        }
        String bare = host.length() > 1 && host.charAt(0) == '[' && host.charAt(host.length() - 1) == ']'
                ? host.substring(1, host.length() - 1) : host;
        this.host = bare;
        this.port = port;
        this.resolver = resolver;
        InetAddress literal = NetUtil.createInetAddressFromIpAddressString(bare);
        if (literal != null) {
            set(new InetSocketAddress(literal, port));
            this.refresh = null;
            return;
        }
        this.current = InetSocketAddress.createUnresolved(bare, port);
        refreshNow();
        long periodNanos = every.isZero() ? (resolved ? 0 : TimeUnit.SECONDS.toNanos(UNRESOLVED_RETRY_SECONDS)) : every.toNanos();
        this.refresh = periodNanos == 0 || scheduler == null ? null
                : scheduler.scheduleWithFixedDelay(every.isZero() ? this::retryUntilResolved : this::refreshNow,
                        periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /** The last good address (or an unresolved one if there never was one). Per connect, on an event loop: one volatile read, 0 B. */
    public InetSocketAddress current() {
        return current;
    }

    /** True once a resolution succeeded (always for IP literals). */
    public boolean isResolved() {
        return resolved;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Stops re-resolving; {@link #current()} keeps answering the last address. */
    @Override
    public void close() {
        if (refresh != null) {
            refresh.cancel(false);
        }
    }

    private void retryUntilResolved() {
        if (!resolved) {
            refreshNow();
        } else if (refresh != null) {
            refresh.cancel(false);
        }
    }

    /** One resolution; package-private so tests can drive it without waiting for the scheduler. */
    void refreshNow() {
        InetAddress address;
        try {
            address = resolver.resolve(host);
        } catch (UnknownHostException | RuntimeException e) {
            failed(e);
            return;
        }
        if (failing) {
            failing = false;
            LOG.info("destination host {} resolves again: {}", host, address.getHostAddress());
        } else if (resolved && !address.equals(current.getAddress())) {
            LOG.info("destination host {} now resolves to {} (was {})", host, address.getHostAddress(),
                    current.getAddress().getHostAddress());
        }
        set(new InetSocketAddress(address, port));
    }

    private void failed(Exception e) {
        if (!failing) {
            failing = true;
            LOG.warn("cannot resolve destination host {}: {}; keeping {}", host, e.toString(),
                    resolved ? current.getAddress().getHostAddress() : "no address (connects fail until it resolves)");
        }
    }

    private void set(InetSocketAddress address) {
        current = address;
        resolved = true;
    }

    @Override
    public String toString() {
        return "ResolvedAddress[" + host + ":" + port + " -> " + current + "]";
    }
}
