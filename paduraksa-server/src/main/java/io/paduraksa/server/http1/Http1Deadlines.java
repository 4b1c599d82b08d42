package io.paduraksa.server.http1;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Time limits of an HTTP/1.1 connection, checked by one periodic timer per connection (no
 * task per request): a request head must arrive completely within {@code headerTimeout} of its
 * first byte (slowloris: the connection gets 408 and closes), an idle keep-alive connection closes
 * after {@code idleTimeout}, and a request body must keep up at least {@code minBodyBytesPerSecond}
 * averaged from its head once a grace has passed, until the body is complete (slow POST: the
 * connection closes). Sits before the decoder so it sees
 * raw reads; the gate handler reports request progress to it.
 *
 * <p>Send timeout ({@code limits.send_timeout}, nginx's {@code send_timeout}, HAProxy's
 * {@code timeout client}): when response bytes wait in the connection's outbound buffer and none of
 * them left it for {@code sendTimeout} (a client that stopped reading), the connection closes, and
 * with it the forwarded request's upstream side. Progress is counted, not guessed: the bytes written
 * through this handler minus those still pending is what left, and every change of it restarts the
 * clock. Same timer, one counter add per write, nothing allocated.
 */
public final class Http1Deadlines extends ChannelDuplexHandler implements Runnable {
    /** Default grace before the body-rate rule applies, so a short pause at the start is no offence. */
    public static final long DEFAULT_BODY_GRACE_MILLIS = 5_000;
    /** Default send timeout, as nginx's {@code send_timeout}. */
    public static final long DEFAULT_SEND_TIMEOUT_MILLIS = 60_000;

    private enum Phase { IDLE, HEAD, REQUEST, BODY }

    private final long headerTimeoutNanos;
    private final long idleTimeoutNanos;
    private final long minBodyBytesPerSecond;
    private final long bodyGraceNanos;
    private final long checkNanos;
    private final long sendTimeoutNanos;
    /** Bytes written through this handler; minus the outbound buffer's pending bytes, what left. */
    private long written;
    private long lastSent;
    private long lastSendProgress;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;
    private Phase phase = Phase.IDLE;
    private long phaseStart;
    private long bodyBytes;
    private boolean bodyPaused;
    private Expired listener;

    /** What the gate handler does when a limit is passed. */
    public interface Expired {
        /** The head did not complete in time: answer 408 and close. */
        void headerTimeout(ChannelHandlerContext ctx);
    }

    public Http1Deadlines(long headerTimeoutMillis, long idleTimeoutMillis, long minBodyBytesPerSecond) {
        this(headerTimeoutMillis, idleTimeoutMillis, minBodyBytesPerSecond, DEFAULT_BODY_GRACE_MILLIS);
    }

    /** As above, with the time a body may take before its average rate is checked. */
    public Http1Deadlines(long headerTimeoutMillis, long idleTimeoutMillis, long minBodyBytesPerSecond, long bodyGraceMillis) {
        this(headerTimeoutMillis, idleTimeoutMillis, minBodyBytesPerSecond, bodyGraceMillis, DEFAULT_SEND_TIMEOUT_MILLIS);
    }

    /** As above, with the send timeout. */
    public Http1Deadlines(long headerTimeoutMillis, long idleTimeoutMillis, long minBodyBytesPerSecond, long bodyGraceMillis,
                          long sendTimeoutMillis) {
        this.bodyGraceNanos = TimeUnit.MILLISECONDS.toNanos(bodyGraceMillis);
        this.headerTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(headerTimeoutMillis);
        this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMillis);
        this.sendTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(sendTimeoutMillis);
        this.minBodyBytesPerSecond = minBodyBytesPerSecond;
        long shortest = Math.min(Math.min(headerTimeoutNanos, idleTimeoutNanos), sendTimeoutNanos);
        this.checkNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(50), Math.min(shortest / 4, TimeUnit.SECONDS.toNanos(1)));
    }

    void listener(Expired listener) {
        this.listener = listener;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (phase == Phase.IDLE) {
            enter(Phase.HEAD);
        }
        ctx.fireChannelRead(msg);
    }

    /** Counts what the connection writes, for the send timeout (0 B: one add). */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf b) {
            written += b.readableBytes();
        }
        ctx.write(msg, promise);
    }

    /** Bytes written through this handler so far (for tests). */
    long bytesWritten() {
        return written;
    }

    /**
     * Whether response bytes have waited for the client longer than the send timeout: bytes are
     * pending and none left since the last progress (the client's receive window stays full).
     */
    private boolean sendStalled(long now) {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        long pending = out == null ? 0 : out.totalPendingWriteBytes();
        long sent = written - pending;
        if (pending == 0 || sent != lastSent) {
            lastSent = sent;
            lastSendProgress = now;
            return false;
        }
        return now - lastSendProgress > sendTimeoutNanos;
    }

    /** A complete head arrived: the head clock stops; a body, if any, is now timed by its rate. */
    void headReceived(boolean hasBody) {
        enter(hasBody ? Phase.BODY : Phase.REQUEST);
        bodyBytes = 0;
    }

    /**
     * Reading the body stopped (true) or resumed (false) because the upstream could not take more:
     * the client is not slow, so the rate rule pauses, and restarts from zero on resume.
     */
    void bodyPaused(boolean paused) {
        if (paused && phase == Phase.BODY) {
            enter(Phase.REQUEST);
            bodyPaused = true;
        } else if (!paused && bodyPaused) {
            bodyPaused = false;
            enter(Phase.BODY);
            bodyBytes = 0;
        }
    }

    void bodyRead(int bytes) {
        bodyBytes += bytes;
    }

    /**
     * The whole body arrived while the request is still in flight (forwarded): the rate rule ends,
     * since the wait is now for the upstream, whose timeouts the forwarder applies.
     */
    void bodyDone() {
        bodyPaused = false;
        if (phase == Phase.BODY) {
            enter(Phase.REQUEST);
        }
    }

    /**
     * The request is done (answered and its body read): idle again until the next byte, or, when
     * bytes of a next request are already buffered, timed as a head from now.
     */
    void requestDone(boolean nextHeadStarted) {
        bodyPaused = false;
        enter(nextHeadStarted ? Phase.HEAD : Phase.IDLE);
    }

    private void enter(Phase next) {
        phase = next;
        phaseStart = System.nanoTime();
    }

    private void start() {
        if (timer == null) {
            enter(Phase.IDLE);
            // Periodic: Netty re-queues the same task after each run, 0 B; re-arming with schedule()
            // made a 64 B task per check per connection (Http1GateHandlerAllocationTest saw it).
            timer = ctx.executor().scheduleWithFixedDelay(this, checkNanos, checkNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void stop() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** The periodic check; cancelled when the connection closes or a limit is passed. */
    @Override
    public void run() {
        if (timer == null || !ctx.channel().isActive()) {
            stop();
            return;
        }
        long now = System.nanoTime();
        if (sendStalled(now)) {
            ctx.close(); // the client stopped reading: the forwarded request's upstream is released with the close
            return;
        }
        long elapsed = now - phaseStart;
        switch (phase) {
            case IDLE -> {
                if (elapsed > idleTimeoutNanos) {
                    stop();
                    ctx.close();
                    return;
                }
            }
            case HEAD -> {
                if (elapsed > headerTimeoutNanos) {
                    stop();
                    listener.headerTimeout(ctx);
                    return;
                }
            }
            case BODY -> {
                if (elapsed > bodyGraceNanos && bodyBytes * 1_000_000_000L / elapsed < minBodyBytesPerSecond) {
                    stop();
                    ctx.close();
                    return;
                }
            }
            default -> {
                // A request being answered or forwarded: the forwarder's own timeouts apply.
            }
        }
    }
}
