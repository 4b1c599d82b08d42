package io.paduraksa.proxy.health;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import io.paduraksa.proxy.balance.DestinationState;
import io.paduraksa.snapshot.UpstreamCluster;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active HTTP health checks of one cluster's destinations: {@code GET path} on a fresh connection
 * every {@code interval}, each probe bounded by {@code timeout} from connect to response head, in
 * the cluster's protocol: HTTP/1.1 with {@code Connection: close}, or HTTP/2 (h2c by prior
 * knowledge, h2 over TLS where ALPN must choose h2, as the forwarder requires) with one stream
 * whose {@code :authority} is the destination's. The address is read from the destination's
 * {@link ResolvedAddress} per probe, so probes follow re-resolved host names as the pools do.
 * A destination turns unhealthy after {@code unhealthyThreshold} failed probes in a row (connect
 * error, timeout, a status other than 2xx/3xx, connection closed before a response, ALPN not
 * choosing h2, an unresolved host name) and healthy again after {@code healthyThreshold} good
 * ones; one failed probe alone does not flap it. Destinations start healthy, so traffic flows before the first probe.
 * Each change is logged once at INFO with cluster, destination and reason, and written to the
 * destination's {@link DestinationState#markActiveHealthy}.
 *
 * <p>Off the request path. Each target is pinned to one event loop of {@code group}; its counters,
 * timers and probe connection live there, so no locks are needed. The next probe is scheduled
 * {@code interval} after the previous one ended (fixed delay: a slow destination never has two
 * probes at once), and the first one after a random fraction of {@code interval}, so that the
 * destinations of a large cluster are not all probed in the same instant.
 *
 * <p>Reload: the checker of the replaced configuration is {@link #close closed} and the new one
 * takes over each unchanged destination's counters and verdict and the time its next probe was
 * due ({@link #carryFrom}), so a reload neither forgets a dead destination nor probes more often.
 */
public final class ActiveHealthChecker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ActiveHealthChecker.class);
    private static final String USER_AGENT = "paduraksa-health-check";

    /**
     * One destination to probe.
     *
     * @param state      where the verdict goes
     * @param address    the destination's address, read per probe
     * @param hostHeader the Host header or {@code :authority} to send (the destination URL's authority)
     * @param sslContext client TLS context, or null for cleartext; for {@code H2} it must offer h2 by ALPN
     * @param sni        server name to send in TLS, or null for none
     * @param protocol   what the destination speaks: {@code HTTP1}, or {@code H2C} / {@code H2} for HTTP/2
     *                   (cleartext by prior knowledge when {@code sslContext} is null)
     */
    public record Target(DestinationState state, ResolvedAddress address, String hostHeader, SslContext sslContext, String sni,
                         UpstreamCluster.Protocol protocol) {
        boolean http2() {
            return protocol != UpstreamCluster.Protocol.HTTP1;
        }
    }

    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> channelClass;
    private final String clusterName;
    private final String path;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final int healthyThreshold;
    private final int unhealthyThreshold;
    private final TargetCheck[] checks;
    private volatile boolean closed;

    public ActiveHealthChecker(EventLoopGroup group, Class<? extends SocketChannel> channelClass, String clusterName,
            Target[] targets, String path, Duration interval, Duration timeout, int healthyThreshold, int unhealthyThreshold) {
        if (interval.isNegative() || interval.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("interval and timeout must be positive (got " + interval + ", " + timeout + ")");
        }
        if (healthyThreshold < 1 || unhealthyThreshold < 1) {
            throw new IllegalArgumentException("thresholds must be at least 1 (got healthy " + healthyThreshold
                    + ", unhealthy " + unhealthyThreshold + ")");
        }
        if (path.isEmpty() || path.charAt(0) != '/') {
            throw new IllegalArgumentException("health check path must start with '/' (got '" + path + "')");
        }
        this.group = group;
        this.channelClass = channelClass;
        this.clusterName = clusterName;
        this.path = path;
        this.intervalNanos = interval.toNanos();
        this.timeoutNanos = timeout.toNanos();
        this.healthyThreshold = healthyThreshold;
        this.unhealthyThreshold = unhealthyThreshold;
        this.checks = new TargetCheck[targets.length];
        for (int i = 0; i < targets.length; i++) {
            checks[i] = new TargetCheck(targets[i]);
        }
    }

    /**
     * Before {@link #start}: target {@code target} continues where {@code old}'s target
     * {@code oldTarget} stopped (call after {@code old.close()}, so its counts no longer change):
     * the same verdict and counts in a row, and the first probe when {@code old}'s next one was due
     * (at once when a probe was running).
     */
    public void carryFrom(int target, ActiveHealthChecker old, int oldTarget) {
        TargetCheck from = old.checks[oldTarget];
        TargetCheck to = checks[target];
        to.healthy = from.healthy;
        to.successes = from.successes;
        to.failures = from.failures;
        to.dueNanos = from.dueNanos;
        to.carried = true;
    }

    /** Schedules the first probe of every target: when a carried one was due, else after a random part of the interval. */
    public void start() {
        long now = System.nanoTime();
        for (TargetCheck check : checks) {
            check.schedule(check.carried ? Math.max(0, Math.min(intervalNanos, check.dueNanos - now))
                    : ThreadLocalRandom.current().nextLong(intervalNanos));
        }
    }


    /** Cancels the timers and closes probe connections in progress; no verdict is written afterwards. */
    @Override
    public void close() {
        closed = true;
        for (TargetCheck check : checks) {
            check.stop();
        }
    }

    /** Probe state of one target; everything but {@link #stop} runs on {@link #loop}. */
    private final class TargetCheck {
        private final Target target;
        private final EventLoop loop;
        private final String name;
        // Written on the loop; volatile because a reload reads them from another thread (carryFrom).
        private volatile boolean healthy = true;
        private volatile int successes;
        private volatile int failures;
        /** When the next probe is due (System.nanoTime), or when the running one began. */
        private volatile long dueNanos;
        /** Set before start() by carryFrom. */
        private boolean carried;
        private volatile ScheduledFuture<?> next;
        private volatile Channel channel;

        TargetCheck(Target target) {
            this.target = target;
            this.loop = group.next();
            this.name = target.hostHeader() + " (index " + target.state().index() + ")";
        }

        void schedule(long delayNanos) {
            if (!closed) {
                dueNanos = System.nanoTime() + delayNanos;
                next = loop.schedule(this::probe, delayNanos, TimeUnit.NANOSECONDS);
            }
        }

        void stop() {
            ScheduledFuture<?> n = next;
            if (n != null) {
                n.cancel(false);
            }
            Channel c = channel;
            if (c != null) {
                c.close();
            }
        }

        private void probe() {
            if (closed) {
                return;
            }
            ResolvedAddress resolved = target.address();
            if (!resolved.isResolved()) {
                // An unresolved address would make the bootstrap resolve on this event loop: fail the probe instead.
                result(false, "host " + resolved.host() + " is not resolved");
                return;
            }
            InetSocketAddress address = resolved.current();
            Probe probe = new Probe(this, address);
            Bootstrap b = new Bootstrap()
                    .group(loop)
                    .channel(channelClass)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)))
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            Target t = target;
                            if (t.sslContext() != null) {
                                String sni = t.sni() != null ? t.sni() : address.getHostString();
                                ch.pipeline().addLast(t.sslContext().newHandler(ch.alloc(), sni, address.getPort()));
                            }
                            if (t.http2()) {
                                ch.pipeline().addLast(new Http2Probe(t.sslContext() != null, t.hostHeader(), path, USER_AGENT), probe);
                            } else {
                                ch.pipeline().addLast(new HttpClientCodec(), probe);
                            }
                        }
                    });
            // The timer is armed first: on the loop's own thread connect can fail or succeed inline.
            probe.armTimer();
            ChannelFuture connect = b.connect(address);
            channel = connect.channel();
            connect.addListener(probe);
        }

        void result(boolean ok, String reason) {
            channel = null;
            if (closed) {
                return;
            }
            if (ok) {
                failures = 0;
                successes++;
                if (!healthy && successes >= healthyThreshold) {
                    change(true, successes + " good checks in a row (" + reason + ")");
                }
            } else {
                successes = 0;
                failures++;
                if (healthy && failures >= unhealthyThreshold) {
                    change(false, failures + " failed checks in a row, last: " + reason);
                } else if (healthy && LOG.isDebugEnabled()) {
                    LOG.debug("cluster '{}' destination {}: health check failed ({} of {}): {}", clusterName, name, failures,
                            unhealthyThreshold, reason);
                }
            }
            schedule(intervalNanos);
        }

        private void change(boolean nowHealthy, String reason) {
            healthy = nowHealthy;
            target.state().markActiveHealthy(nowHealthy);
            LOG.info("cluster '{}' destination {} at {} is now {}: {}", clusterName, name, target.address().current(),
                    nowHealthy ? "healthy" : "unhealthy", reason);
        }
    }

    /**
     * One probe: connect, send the request, read the response head, close. Ends exactly once.
     * Reads {@link HttpObject}s behind an {@link HttpClientCodec}, or the final status that
     * {@link Http2Probe} (our own HTTP/2 codec, stream 1) reports.
     */
    private final class Probe extends SimpleChannelInboundHandler<Object> implements ChannelFutureListener {
        private final TargetCheck check;
        private final InetSocketAddress address;
        private ScheduledFuture<?> timer;
        private Channel channel;
        private boolean done;

        Probe(TargetCheck check, InetSocketAddress address) {
            this.check = check;
            this.address = address;
        }

        void armTimer() {
            timer = check.loop.schedule(this::timedOut, timeoutNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
        }

        /** Connect finished. */
        @Override
        public void operationComplete(ChannelFuture future) {
            channel = future.channel();
            if (!future.isSuccess()) {
                finish(false, "connect to " + address + " failed: " + future.cause());
            } else if (closed) {
                finish(false, "checker closed");
            }
        }

        /** HTTP/1.1 sends here; HTTP/2 sends from {@link Http2Probe}. */
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (!check.target.http2()) {
                sendHttp1(ctx);
            }
            ctx.fireChannelActive();
        }

        private void sendHttp1(ChannelHandlerContext ctx) {
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            request.headers()
                    .set(HttpHeaderNames.HOST, check.target.hostHeader())
                    .set(HttpHeaderNames.USER_AGENT, USER_AGENT)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
                    .set(HttpHeaderNames.CONTENT_LENGTH, HttpHeaderValues.ZERO);
            ctx.writeAndFlush(request).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpResponse response) {
                status(response.status().code());
            } else if (msg instanceof Http2Probe.Status s) {
                status(s.code()); // final: Http2Probe skips interim 1xx heads (RFC 9113 8.1)
            }
        }

        private void status(int status) {
            finish(status >= 200 && status < 400, "status " + status);
        }

        /** Over TLS to an h2 destination ALPN must have chosen h2, as the forwarder's pool requires. */
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent handshake) {
                if (!handshake.isSuccess()) {
                    finish(false, "TLS handshake failed: " + handshake.cause());
                } else if (check.target.http2()) {
                    String chosen = ctx.pipeline().get(SslHandler.class).applicationProtocol();
                    if (!ApplicationProtocolNames.HTTP_2.equals(chosen)) {
                        finish(false, "ALPN chose " + (chosen == null ? "nothing" : chosen) + ", not h2");
                    }
                }
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            finish(false, "connection closed before a response");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            finish(false, cause.toString());
        }

        private void timedOut() {
            finish(false, "no response within " + Duration.ofNanos(timeoutNanos).toMillis() + " ms");
        }

        private void finish(boolean ok, String reason) {
            if (done) {
                return;
            }
            done = true;
            timer.cancel(false);
            if (channel != null) {
                channel.close();
            }
            check.result(ok, reason);
        }
    }
}
