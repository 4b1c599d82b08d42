package io.paduraksa.server.connection;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolException;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PROXY protocol v1 and v2 on a listener that enables it (spec: haproxy.org proxy-protocol.txt), decoded
 * by Netty's {@link HAProxyMessageDecoder}. Settles the connection's client address, tells the pipeline
 * with a {@link ClientAddressEvent} (which {@link ClientInfoHandler} consumes), then removes itself.
 *
 * <ul>
 *   <li>Direct peer in {@code trustedSenders}: the header is mandatory. A {@code PROXY} command's source
 *       address becomes the client address; {@code LOCAL} (health checks) and {@code UNKNOWN} or Unix
 *       families keep the peer address. No header, a malformed one, or none within the timeout: close.</li>
 *   <li>Any other peer is served as a direct client with its own address, but if its first bytes are a
 *       PROXY signature ({@code PROXY} or the v2 binary prefix) it is trying to forge one: close.</li>
 * </ul>
 * To refuse untrusted peers outright, put an {@link AcceptFilterHandler} with the same set in front.
 *
 * <p>Place it right after the accept filter, before {@link ClientInfoHandler} and TLS, when the
 * pipeline is built (it acts on {@code channelActive}). Bytes that arrive in the same read as the
 * header are passed on after the event, in order (the decoder hands its leftover on when removed).
 * Runs once per connection on its event loop; allocates the decoder, the header message and a timer.
 */
public final class ProxyProtocolHandler extends ChannelInboundHandlerAdapter implements Runnable {
    /** How long a trusted sender gets to send the header. */
    public static final long DEFAULT_HEADER_TIMEOUT_MILLIS = 5_000;
    /**
     * Bound on a v2 header's TLV bytes; the decoder buffers at most this plus 232 bytes. Load balancers
     * send a few dozen bytes of TLVs (AWS NLB: an endpoint id), so 4 KiB is generous.
     */
    static final int MAX_TLV_BYTES = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(ProxyProtocolHandler.class);

    private static final int WAITING = 0;
    private static final int AWAITING_HEADER = 1;
    private static final int CHECKING_DIRECT_PEER = 2;
    private static final int DONE = 3;
    private static final int CLOSED = 4;

    private final AddressMatcher trustedSenders;
    private final long headerTimeoutMillis;
    private final long[] peer = new long[2];
    private final SignatureMatcher signature = new SignatureMatcher();
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timeout;
    private ByteBuf firstBytes;
    private int state = WAITING;

    /** With the default five-second header timeout. */
    public ProxyProtocolHandler(AddressMatcher trustedSenders) {
        this(trustedSenders, DEFAULT_HEADER_TIMEOUT_MILLIS);
    }

    /**
     * @param trustedSenders      peers allowed (and required) to send a PROXY header
     * @param headerTimeoutMillis how long to wait for the header or for an untrusted peer's first bytes
     */
    public ProxyProtocolHandler(AddressMatcher trustedSenders, long headerTimeoutMillis) {
        this.trustedSenders = trustedSenders;
        this.headerTimeoutMillis = headerTimeoutMillis;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        if (!ClientAddresses.toLongs(ctx.channel().remoteAddress(), peer)) {
            ctx.close(); // PROXY protocol is for IP peers; nothing sensible to trust here
            return;
        }
        timeout = ctx.executor().schedule(this, headerTimeoutMillis, TimeUnit.MILLISECONDS);
        if (trustedSenders.matches(peer[ClientAddresses.HIGH], peer[ClientAddresses.LOW])) {
            state = AWAITING_HEADER;
            ctx.pipeline().addBefore(ctx.name(), null, new CheckedDecoder());
        } else {
            state = CHECKING_DIRECT_PEER;
            ctx.fireUserEventTriggered(new ClientAddressEvent(peer[ClientAddresses.HIGH], peer[ClientAddresses.LOW], false));
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (state == AWAITING_HEADER && msg instanceof HAProxyMessage header) {
            try {
                onHeader(ctx, header);
            } finally {
                header.release();
            }
        } else if (state == CHECKING_DIRECT_PEER && msg instanceof ByteBuf bytes) {
            onDirectBytes(ctx, bytes);
        } else if (state == DONE) {
            ctx.fireChannelRead(msg);
        } else {
            ReferenceCountUtil.release(msg);
            if (state != CLOSED) {
                close(ctx, "unexpected message before the PROXY header");
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (state < DONE && !ctx.channel().config().isAutoRead()) {
            ctx.read(); // still deciding: ask for the rest even when the pipeline reads on demand
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (cause instanceof HAProxyProtocolException) {
            // Not a header (or a malformed one) from a trusted sender; the decoder has closed already.
            close(ctx, cause.getMessage());
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cleanUp();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cleanUp();
    }

    /** Header timeout: runs on the channel's event loop. */
    @Override
    public void run() {
        if (state < DONE && ctx.channel().isOpen()) {
            close(ctx, "no PROXY header within " + headerTimeoutMillis + " ms");
        }
    }

    private void onHeader(ChannelHandlerContext ctx, HAProxyMessage header) {
        long[] client = peer;
        boolean fromHeader = false;
        if (header.command() == HAProxyCommand.PROXY && carriesIpSource(header.proxiedProtocol())) {
            byte[] source = NetUtil.createByteArrayFromIpAddressString(header.sourceAddress());
            if (source == null) {
                close(ctx, "PROXY header with an unreadable source address");
                return;
            }
            client = new long[2];
            ClientAddresses.toLongs(source, client);
            fromHeader = true;
        }
        finish();
        ctx.fireUserEventTriggered(new ClientAddressEvent(client[ClientAddresses.HIGH], client[ClientAddresses.LOW], fromHeader));
        ctx.pipeline().remove(this);
    }

    private void onDirectBytes(ChannelHandlerContext ctx, ByteBuf bytes) {
        int verdict = signature.offer(bytes);
        ByteBuf seen = bytes;
        if (firstBytes != null) {
            firstBytes.writeBytes(bytes);
            bytes.release();
            seen = firstBytes;
        }
        if (verdict == SignatureMatcher.SIGNATURE_FOUND) {
            seen.release();
            firstBytes = null;
            close(ctx, "PROXY header from a peer that is not a trusted sender");
        } else if (verdict == SignatureMatcher.NEED_MORE) {
            if (firstBytes == null) {
                firstBytes = ctx.alloc().buffer(SignatureMatcher.LONGEST * 2);
                firstBytes.writeBytes(bytes);
                bytes.release();
            }
        } else {
            firstBytes = null;
            finish();
            ctx.pipeline().remove(this); // a removed context still forwards to its old successor
            ctx.fireChannelRead(seen);
        }
    }

    private static boolean carriesIpSource(HAProxyProxiedProtocol protocol) {
        return protocol == HAProxyProxiedProtocol.TCP4 || protocol == HAProxyProxiedProtocol.TCP6
                || protocol == HAProxyProxiedProtocol.UDP4 || protocol == HAProxyProxiedProtocol.UDP6;
    }

    private void finish() {
        state = DONE;
        cancelTimeout();
    }

    private void close(ChannelHandlerContext ctx, String why) {
        state = CLOSED; // whatever still arrives (a decoder's leftovers) is dropped, never passed on
        cleanUp();
        if (LOG.isDebugEnabled()) {
            LOG.debug("closing {}: {}", ctx.channel(), why);
        }
        ctx.close();
    }

    private void cleanUp() {
        cancelTimeout();
        if (firstBytes != null) {
            firstBytes.release();
            firstBytes = null;
        }
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    /**
     * Netty's decoder, but one that gives up at the first byte that cannot start a PROXY signature
     * instead of waiting for a line end (v1 allows 108 bytes) or the timeout: a trusted sender that
     * skips the header is turned away at once.
     */
    private static final class CheckedDecoder extends HAProxyMessageDecoder {
        private final SignatureMatcher signature = new SignatureMatcher();
        private boolean signatureSeen;

        CheckedDecoder() {
            super(MAX_TLV_BYTES);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (!signatureSeen && msg instanceof ByteBuf bytes) {
                int verdict = signature.offer(bytes);
                if (verdict == SignatureMatcher.NOT_A_SIGNATURE) {
                    bytes.release();
                    ctx.close();
                    ctx.fireExceptionCaught(new HAProxyProtocolException("the connection does not start with a PROXY header"));
                    return;
                }
                signatureSeen = verdict == SignatureMatcher.SIGNATURE_FOUND;
            }
            super.channelRead(ctx, msg);
        }
    }
}
