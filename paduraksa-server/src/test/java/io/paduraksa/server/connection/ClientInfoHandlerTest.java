package io.paduraksa.server.connection;

import io.paduraksa.net.IpParser;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.gate.ClientInfo;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ClientInfoHandlerTest {
    private static final long LOOPBACK_LOW = 0x0000_FFFF_7F00_0001L; // ::ffff:127.0.0.1
    private static final SocketAddress TRUSTED_PEER = new InetSocketAddress("192.0.2.1", 40000);
    private static EventLoopGroup group;

    @BeforeAll
    static void startLoop() {
        group = LoopbackServer.TRANSPORT.newEventLoopGroup(1);
    }

    @AfterAll
    static void stopLoop() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void withoutProxyProtocolThePeerIsTheClientAndIsJudgedAgainstTrustedProxies() throws Exception {
        AddressMatcher loopbackTrusted = (high, low) -> high == 0 && low == LOOPBACK_LOW;
        try (LoopbackServer server = LoopbackServer.start(group, p -> p.addLast(new ClientInfoHandler(loopbackTrusted, CountryLookup.NONE, false)));
             Socket socket = server.connect()) {
            socket.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));

            assertThat(LoopbackServer.readEcho(socket, 5)).isEqualTo("hello");
            ClientInfo info = server.clients.poll(5, TimeUnit.SECONDS);
            assertThat(info.ipHigh()).isZero();
            assertThat(info.ipLow()).isEqualTo(LOOPBACK_LOW);
            assertThat(info.isTrustedProxy()).isTrue();
            assertThat(server.pipelines.take()).containsExactly("Recorder");
        }
    }

    @Test
    void readsThatArriveBeforeTheAddressAreHeldAndPassedOnAfterTheAttributeIsSet() {
        ReadLog log = new ReadLog();
        EmbeddedChannel channel = new PeerChannel(new ProxyProtocolHandler(AddressMatcher.ALL),
                new ClientInfoHandler(AddressMatcher.NONE, CountryLookup.NONE, false), log);
        ChannelHandlerContext proxyContext = channel.pipeline().context(ProxyProtocolHandler.class);

        // Straight into ClientInfoHandler, as if an earlier handler had let bytes through early.
        proxyContext.fireChannelRead(Unpooled.copiedBuffer("GET", StandardCharsets.US_ASCII));
        proxyContext.fireChannelRead(Unpooled.copiedBuffer(" /", StandardCharsets.US_ASCII));
        proxyContext.fireChannelReadComplete();
        assertThat(log.reads).isEmpty();

        proxyContext.fireUserEventTriggered(new ClientAddressEvent(0x20010db800000000L, 9, true));

        assertThat(log.reads).containsExactly("GET with 2001:db8::9", " / with 2001:db8::9");
        assertThat(log.readCompletes).isEqualTo(1);
        assertThat(log.events).isEmpty(); // the event is consumed
        assertThat(channel.pipeline().get(ClientInfoHandler.class)).isNull();
        channel.finishAndReleaseAll();
    }

    @Test
    void heldReadsAreReleasedWhenTheConnectionClosesFirst() {
        ReadLog log = new ReadLog();
        EmbeddedChannel channel = new PeerChannel(new ProxyProtocolHandler(AddressMatcher.ALL),
                new ClientInfoHandler(AddressMatcher.NONE, CountryLookup.NONE, false), log);
        ByteBuf early = Unpooled.copiedBuffer("GET", StandardCharsets.US_ASCII);
        channel.pipeline().context(ProxyProtocolHandler.class).fireChannelRead(early);

        channel.close();

        assertThat(early.refCnt()).isZero();
        assertThat(log.reads).isEmpty();
    }

    /** An embedded channel with an IP peer (EmbeddedChannel's own peer address is not one). */
    private static final class PeerChannel extends EmbeddedChannel {
        PeerChannel(io.netty.channel.ChannelHandler... handlers) {
            super(handlers);
        }

        @Override
        protected SocketAddress remoteAddress0() {
            return TRUSTED_PEER;
        }
    }

    private static final class ReadLog extends ChannelInboundHandlerAdapter {
        final List<String> reads = new ArrayList<>();
        final List<Object> events = new ArrayList<>();
        int readCompletes;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            ClientInfo info = ClientInfoHandler.clientInfo(ctx.channel());
            reads.add(buf.toString(StandardCharsets.US_ASCII) + " with "
                    + (info == null ? "none" : IpParser.format(info.ipHigh(), info.ipLow())));
            buf.release();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            readCompletes++;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            events.add(evt);
        }
    }
}
