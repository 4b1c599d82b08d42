package io.paduraksa.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TransportTest {

    @ParameterizedTest
    @ValueSource(strings = {"io_uring", "epoll", "nio"})
    void echoServerAndClientWorkOnEachAvailableTransport(String name) throws Exception {
        Transport transport = Transport.all().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
        io.paduraksa.testing.Tools.requireNative(name, transport.unavailabilityCause());
        assertThat(Transport.choose(name)).isSameAs(transport);

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            Channel server = new ServerBootstrap().group(group).channel(transport.serverChannelClass())
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.writeAndFlush(msg);
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            CompletableFuture<String> echoed = new CompletableFuture<>();
            Channel client = new Bootstrap().group(group).channel(transport.socketChannelClass())
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                                private final StringBuilder got = new StringBuilder();

                                @Override
                                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                                    got.append(msg.toString(StandardCharsets.US_ASCII));
                                    if (got.length() >= 5) {
                                        echoed.complete(got.toString());
                                    }
                                }
                            });
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII)).sync();

            assertThat(echoed.get(5, TimeUnit.SECONDS)).isEqualTo("hello");
            assertThat(((InetSocketAddress) server.localAddress()).getPort()).isPositive();
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void autoPrefersIoUringThenEpollThenNio() {
        Transport expected = Transport.IO_URING.isAvailable() ? Transport.IO_URING
                : Transport.EPOLL.isAvailable() ? Transport.EPOLL : Transport.NIO;
        assertThat(Transport.choose("auto")).isSameAs(expected);
        assertThat(Transport.choose(null)).isSameAs(expected);
        assertThat(Transport.choose(" NIO ")).isSameAs(Transport.NIO);
    }

    @Test
    void unknownNameIsRejectedWithTheChoices() {
        assertThatThrownBy(() -> Transport.choose("kqueue"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown transport 'kqueue' (expected one of: auto, io_uring, epoll, nio)");
    }

    @Test
    void availabilityReportNamesEveryTransport() {
        assertThat(Transport.availabilityReport())
                .startsWith("io_uring: ").contains("; epoll: ").endsWith("nio: available");
    }

    @Test
    void nioIsAlwaysAvailable() {
        assertThat(Transport.NIO.isAvailable()).isTrue();
        assertThat(Transport.NIO.unavailabilityCause()).isNull();
        assertThat(Transport.NIO.name()).isEqualTo("nio");
    }

    /** A descriptor that is no socket (a pipe) is refused by each native transport when adopted as a listener. */
    @ParameterizedTest
    @ValueSource(strings = {"io_uring", "epoll"})
    void aDescriptorThatIsNoSocketIsRefused(String name) throws Exception {
        Transport transport = Transport.all().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
        io.paduraksa.testing.Tools.requireNative(name, transport.unavailabilityCause());
        io.netty.channel.unix.FileDescriptor[] pipe = io.netty.channel.unix.FileDescriptor.pipe();
        try {
            assertThatThrownBy(() -> transport.adoptListening(pipe[0].intValue())).isInstanceOf(RuntimeException.class);
        } finally {
            pipe[1].close();
        }
    }

    /**
     * An adopted listening socket keeps its address and accepts once registered, on each native transport; the
     * io_uring one refuses a second bind with its own message (it is bound already).
     */
    @ParameterizedTest
    @ValueSource(strings = {"io_uring", "epoll"})
    void anAdoptedListeningSocketAcceptsAndIsNotBoundAgain(String name) throws Exception {
        Transport transport = Transport.all().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
        io.paduraksa.testing.Tools.requireNative(name, transport.unavailabilityCause());
        io.netty.channel.unix.Socket listening = io.netty.channel.unix.Socket.newSocketStream();
        listening.bind(new InetSocketAddress("127.0.0.1", 0));
        listening.listen(16);
        InetSocketAddress address = (InetSocketAddress) listening.localAddress();
        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            io.netty.channel.ServerChannel server = transport.adoptListening(listening.intValue());
            assertThat(server.isActive()).isTrue();
            assertThat(((InetSocketAddress) server.localAddress()).getPort()).isEqualTo(address.getPort());
            CompletableFuture<String> accepted = new CompletableFuture<>();
            server.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object child) {
                    accepted.complete(((Channel) child).remoteAddress().toString());
                    ((Channel) child).close();
                }
            });
            group.register(server).sync();
            try (java.net.Socket client = new java.net.Socket(address.getAddress(), address.getPort())) {
                assertThat(accepted.get(5, TimeUnit.SECONDS)).contains("127.0.0.1:" + client.getLocalPort());
            }
            if (name.equals("io_uring")) {
                assertThat(server.bind(new InetSocketAddress("127.0.0.1", 0)).await().cause())
                        .hasMessage("an inherited listening socket is bound already");
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
