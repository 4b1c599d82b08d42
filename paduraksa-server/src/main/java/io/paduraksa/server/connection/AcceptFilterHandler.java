package io.paduraksa.server.connection;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;

/**
 * Origin lock-down: closes a new connection whose direct peer is not in the allowed set, before a single
 * byte is read, then removes itself. Put it first in the child pipeline.
 *
 * <p>Decides in {@code channelRegistered}, which Netty fires before {@code channelActive} (and reading
 * starts only with {@code channelActive}), so a refused peer's bytes are never read; the technique is
 * Netty's {@code AbstractRemoteAddressFilter}. A peer without an IP address (a Unix socket) is refused.
 *
 * <p>Runs once per connection on its event loop and allocates one 16-byte address copy and a
 * two-long array. Sharable: one instance per listener and matcher.
 */
@Sharable
public final class AcceptFilterHandler extends ChannelInboundHandlerAdapter {
    private final AddressMatcher allowed;
    private final LongAdder refused = new LongAdder();

    /** @param allowed the peers that may connect (e.g. Cloudflare's ranges) */
    public AcceptFilterHandler(AddressMatcher allowed) {
        this.allowed = allowed;
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        decide(ctx);
        ctx.fireChannelRegistered();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        // Only reached when channelRegistered had no remote address yet (Netty's filter does the same).
        if (!decide(ctx)) {
            throw noRemoteAddress(ctx);
        }
        ctx.fireChannelActive();
    }

    /** Connections closed because their peer was not allowed, since this handler was made (for metrics). */
    public long refusedCount() {
        return refused.sum();
    }

    private boolean decide(ChannelHandlerContext ctx) {
        SocketAddress remote = ctx.channel().remoteAddress();
        if (remote == null) {
            return false;
        }
        ctx.pipeline().remove(this);
        long[] ip = new long[2];
        if (!ClientAddresses.toLongs(remote, ip) || !allowed.matches(ip[ClientAddresses.HIGH], ip[ClientAddresses.LOW])) {
            refused.increment();
            ctx.close();
        }
        return true;
    }

    private static IllegalStateException noRemoteAddress(ChannelHandlerContext ctx) {
        return new IllegalStateException("cannot decide on a connection without a remote address: " + ctx.channel());
    }
}
