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
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.paduraksa.proxy.balance.DestinationState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active HTTP health checks of one cluster's destinations: {@code GET path} on a fresh connection
 * ({@code Connection: close}) every {@code interval}, each probe bounded by {@code timeout} from
 * connect to response head. A destination turns unhealthy after {@code unhealthyThreshold} failed
 * probes in a row (connect error, timeout, a status other than 2xx/3xx, connection closed before
 * a response) and healthy again after {@code healthyThreshold} good ones; one failed probe
 * alone does not flap it. Destinations start healthy, so traffic flows before the first probe.
 * Each change is logged once at INFO with cluster, destination and reason, and written to the
 * destination's {@link DestinationState#markActiveHealthy}.
 *
 * <p>Off the request path. Each target is pinned to one event loop of {@code group}; its counters,
 * timers and probe connection live there, so no locks are needed. The next probe is scheduled
 * {@code interval} after the previous one ended (fixed delay: a slow destination never has two
 * probes at once), and the first one after a random fraction of {@code interval}, so that the
 * destinations of a large cluster are not all probed in the same instant.
 */
public final class ActiveHealthChecker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ActiveHealthChecker.class);
    private static final String USER_AGENT = "paduraksa-health-check";

    /**
     * One destination to probe.
     *
     * @param state      where the verdict goes
     * @param address    resolved address to connect to
     * @param hostHeader the Host header to send (the destination URL's authority)
     * @param sslContext client TLS context, or null for cleartext
     * @param sni        server name to send in TLS, or null for none
     */
    public record Target(DestinationState state, InetSocketAddress address, String hostHeader, SslContext sslContext, String sni) {
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

    /** Schedules the first probe of every target. */
    public void start() {
        for (TargetCheck check : checks) {
            check.schedule(ThreadLocalRandom.current().nextLong(intervalNanos));
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
        private boolean healthy = true;
        private int successes;
        private int failures;
        private volatile ScheduledFuture<?> next;
        private volatile Channel channel;

        TargetCheck(Target target) {
            this.target = target;
            this.loop = group.next();
            this.name = target.hostHeader() + " (" + target.address() + ", index " + target.state().index() + ")";
        }

        void schedule(long delayNanos) {
            if (!closed) {
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
            Probe probe = new Probe(this);
            Bootstrap b = new Bootstrap()
                    .group(loop)
                    .channel(channelClass)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)))
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            Target t = target;
                            if (t.sslContext() != null) {
                                String sni = t.sni() != null ? t.sni() : t.address().getHostString();
                                ch.pipeline().addLast(t.sslContext().newHandler(ch.alloc(), sni, t.address().getPort()));
                            }
                            ch.pipeline().addLast(new HttpClientCodec(), probe);
                        }
                    });
            // The timer is armed first: on the loop's own thread connect can fail or succeed inline.
            probe.armTimer();
            ChannelFuture connect = b.connect(target.address());
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
            LOG.info("cluster '{}' destination {} is now {}: {}", clusterName, name, nowHealthy ? "healthy" : "unhealthy", reason);
        }
    }

    /** One probe: connect, send the request, read the status line, close. Ends exactly once. */
    private final class Probe extends SimpleChannelInboundHandler<HttpObject> implements ChannelFutureListener {
        private final TargetCheck check;
        private ScheduledFuture<?> timer;
        private Channel channel;
        private boolean done;

        Probe(TargetCheck check) {
            this.check = check;
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
                finish(false, "connect failed: " + future.cause());
            } else if (closed) {
                finish(false, "checker closed");
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            request.headers()
                    .set(HttpHeaderNames.HOST, check.target.hostHeader())
                    .set(HttpHeaderNames.USER_AGENT, USER_AGENT)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
                    .set(HttpHeaderNames.CONTENT_LENGTH, HttpHeaderValues.ZERO);
            ctx.writeAndFlush(request).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            ctx.fireChannelActive();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof HttpResponse response) {
                int status = response.status().code();
                finish(status >= 200 && status < 400, "status " + status);
            }
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
