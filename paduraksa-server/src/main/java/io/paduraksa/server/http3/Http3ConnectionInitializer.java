package io.paduraksa.server.http3;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http3.DefaultHttp3SettingsFrame;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.http3.Http3SettingIdentifier;
import io.netty.handler.codec.http3.Http3SettingsFrame;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.server.connection.AddressMatcher;
import io.paduraksa.server.connection.ClientAddresses;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.server.connection.CountryLookup;
import io.paduraksa.server.cycle.ListenerServices;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds each QUIC connection's pipeline for one HTTP/3 listener: the connection limit, the
 * client (the QUIC peer's address: no PROXY protocol on UDP; a trusted proxy's client-IP header is
 * believed as on TCP), Netty's {@link Http3ServerConnectionHandler} with our SETTINGS (the field
 * section limit; QPACK's dynamic table off, so no stream waits for the encoder stream and no table
 * memory is held per connection) and the {@link Http3DrainHandler}; each request stream gets an
 * {@link Http3Exchange}. Once per connection.
 */
final class Http3ConnectionInitializer extends ChannelInitializer<QuicChannel> {
    private final ListenerServices services;
    private final Http3Limits limits;
    private final AddressMatcher trustedProxies;
    private final CountryLookup countries;
    private final ChannelGroup connections;
    private final AtomicInteger open = new AtomicInteger();

    Http3ConnectionInitializer(ListenerServices services, Http3Limits limits, AddressMatcher trustedProxies,
                               CountryLookup countries, ChannelGroup connections) {
        this.services = services;
        this.limits = limits;
        this.trustedProxies = trustedProxies;
        this.countries = countries;
        this.connections = connections;
    }

    int openConnections() {
        return open.get();
    }

    @Override
    protected void initChannel(QuicChannel ch) {
        long[] ip = new long[2];
        if (open.incrementAndGet() > limits.maxConnections() || !ClientAddresses.toLongs(ch.remoteSocketAddress(), ip)) {
            open.decrementAndGet();
            ch.close(true, (int) Http3ErrorCode.H3_EXCESSIVE_LOAD.code(), io.netty.buffer.Unpooled.EMPTY_BUFFER);
            return;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        connections.add(ch);
        ClientInfo client = ClientInfoHandler.clientInfo(ip[ClientAddresses.HIGH], ip[ClientAddresses.LOW], trustedProxies, countries, true);
        ch.attr(ClientInfoHandler.CLIENT_INFO).set(client);
        Http3DrainHandler drain = new Http3DrainHandler(services, limits, client);
        Http3SettingsFrame settings = new DefaultHttp3SettingsFrame();
        settings.put(Http3SettingIdentifier.HTTP3_SETTINGS_MAX_FIELD_SECTION_SIZE.id(), limits.maxFieldSectionSize());
        ch.pipeline().addLast(new Http3ServerConnectionHandler(new StreamInitializer(drain), null, null, settings, true), drain);
    }

    /** Puts a new request stream's {@link Http3Exchange} after Netty's frame codec. */
    private static final class StreamInitializer extends ChannelInitializer<QuicStreamChannel> {
        private final Http3DrainHandler connection;

        StreamInitializer(Http3DrainHandler connection) {
            this.connection = connection;
        }

        @Override
        protected void initChannel(QuicStreamChannel ch) {
            ch.pipeline().addLast(new Http3Exchange(connection));
        }
    }
}
