package io.paduraksa.server.connection;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.paduraksa.gate.ClientInfo;
import java.util.ArrayDeque;

/**
 * Makes the connection's {@link ClientInfo} once, stores it in {@link #CLIENT_INFO}, then removes
 * itself. The address is the {@link ClientAddressEvent}'s when a {@link ProxyProtocolHandler} is in the
 * pipeline, else the direct peer's; {@code trustedProxy} says whether that address is in
 * {@code client_ip.trusted_proxies} (only then may a request's client-IP header be believed). For
 * any other peer the country is looked up once here ({@link CountryLookup}); a trusted proxy's
 * requests carry their visitor's country in a header instead, so it is not looked up.
 *
 * <p>Reads that reach it before the address is known are held and passed on, in order, right after
 * the attribute is set, so every later handler can rely on the attribute being there. Place it after
 * {@link ProxyProtocolHandler} and before TLS and the protocol handlers, when the pipeline is built.
 * Runs once per connection on its event loop; allocates the {@link ClientInfo} (and a queue only if
 * reads arrive early, which the PROXY handler's ordering prevents).
 */
public final class ClientInfoHandler extends ChannelInboundHandlerAdapter {
    /** The connection's client, set before any request byte reaches the protocol handlers. */
    public static final AttributeKey<ClientInfo> CLIENT_INFO = AttributeKey.valueOf(ClientInfoHandler.class, "CLIENT_INFO");

    private final AddressMatcher trustedProxies;
    private final CountryLookup countries;
    private final boolean tls;
    private ArrayDeque<Object> early;
    private boolean earlyReadComplete;

    /**
     * @param trustedProxies {@code client_ip.trusted_proxies}
     * @param countries where a non-proxy peer's country is looked up
     * @param tls       whether the listener has TLS (recorded in the {@link ClientInfo})
     */
    public ClientInfoHandler(AddressMatcher trustedProxies, CountryLookup countries, boolean tls) {
        this.trustedProxies = trustedProxies;
        this.countries = countries;
        this.tls = tls;
    }

    /** The connection's client, or null before {@link ClientInfoHandler} has run. */
    public static ClientInfo clientInfo(Channel channel) {
        return channel.attr(CLIENT_INFO).get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (ctx.pipeline().get(ProxyProtocolHandler.class) != null) {
            ctx.fireChannelActive(); // the address comes with the PROXY handler's event
            return;
        }
        long[] ip = new long[2];
        if (!ClientAddresses.toLongs(ctx.channel().remoteAddress(), ip)) {
            ctx.close(); // not an IP peer: nothing for the gate to judge by
            return;
        }
        publish(ctx, ip[ClientAddresses.HIGH], ip[ClientAddresses.LOW]);
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof ClientAddressEvent address) {
            publish(ctx, address.high(), address.low()); // consumed: nobody after us needs it
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (early == null) {
            early = new ArrayDeque<>(2);
        }
        early.add(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        earlyReadComplete = true;
        if (!ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseEarly();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseEarly();
        ctx.fireChannelInactive();
    }

    /**
     * The client of a connection from {@code high}/{@code low}: whether it is a trusted proxy, and
     * its country unless it is one. Shared with the QUIC side ({@code server.http3}), whose peer
     * address is known when the connection is made. Once per connection.
     */
    public static ClientInfo clientInfo(long high, long low, AddressMatcher trustedProxies, CountryLookup countries, boolean tls) {
        boolean trusted = trustedProxies.matches(high, low);
        int country = trusted ? ClientInfo.NO_COUNTRY : countries.country(high, low);
        return new ClientInfo(high, low, trusted, country, tls);
    }

    private void publish(ChannelHandlerContext ctx, long high, long low) {
        ClientInfo info = clientInfo(high, low, trustedProxies, countries, tls);
        if (!ctx.channel().attr(CLIENT_INFO).compareAndSet(null, info)) {
            throw alreadySet(ctx);
        }
        ArrayDeque<Object> held = early;
        early = null; // taken before remove(), whose handlerRemoved would release them
        ctx.pipeline().remove(this);
        if (held != null) {
            // A removed context still forwards to its old successor (ByteToMessageDecoder relies on it).
            for (Object msg = held.poll(); msg != null; msg = held.poll()) {
                ctx.fireChannelRead(msg);
            }
        }
        if (earlyReadComplete) {
            ctx.fireChannelReadComplete();
        }
    }

    private void releaseEarly() {
        if (early != null) {
            for (Object msg = early.poll(); msg != null; msg = early.poll()) {
                ReferenceCountUtil.release(msg);
            }
            early = null;
        }
    }

    private static IllegalStateException alreadySet(ChannelHandlerContext ctx) {
        return new IllegalStateException("ClientInfo is made once per connection, and " + ctx.channel() + " has one");
    }
}
