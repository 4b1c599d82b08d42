package io.paduraksa.server.connection;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.server.transport.Transport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A real server on 127.0.0.1, port 0, whose pipeline a test builds, ending in a {@link Recorder} that
 * counts reads, records each connection's {@link ClientInfo} at its first read and echoes the bytes.
 */
final class LoopbackServer implements AutoCloseable {
    static final Transport TRANSPORT = Transport.choose("auto");

    final AtomicInteger reads = new AtomicInteger();
    final BlockingQueue<ClientInfo> clients = new LinkedBlockingQueue<>();
    final BlockingQueue<Channel> closed = new LinkedBlockingQueue<>();
    /** Simple class names of the handlers in the pipeline at each connection's first read. */
    final BlockingQueue<List<String>> pipelines = new LinkedBlockingQueue<>();
    private final Channel server;

    private LoopbackServer(EventLoopGroup group, Consumer<ChannelPipeline> pipeline) throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(TRANSPORT.serverChannelClass())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.closeFuture().addListener(f -> closed.add(ch));
                        pipeline.accept(ch.pipeline());
                        ch.pipeline().addLast(new Recorder());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    static LoopbackServer start(EventLoopGroup group, Consumer<ChannelPipeline> pipeline) throws InterruptedException {
        return new LoopbackServer(group, pipeline);
    }

    Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
        socket.setSoTimeout(5_000);
        socket.setTcpNoDelay(true);
        return socket;
    }

    /** Reads exactly {@code n} bytes of echo. */
    static String readEcho(Socket socket, int n) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        while (got.size() < n) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            got.write(b);
        }
        return got.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** True when the server closed the connection: end of stream or a reset (unread bytes were dropped). */
    static boolean closedByServer(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketException reset) {
            return true;
        }
    }

    Channel awaitClosed() throws InterruptedException {
        return closed.poll(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
    }

    final class Recorder extends ChannelInboundHandlerAdapter {
        private boolean seen;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            reads.incrementAndGet();
            if (!seen) {
                seen = true;
                ClientInfo info = ClientInfoHandler.clientInfo(ctx.channel());
                if (info != null) {
                    clients.add(info);
                }
                List<String> handlers = new ArrayList<>();
                ctx.pipeline().forEach(e -> handlers.add(e.getValue().getClass().getSimpleName()));
                pipelines.add(handlers);
            }
            ctx.writeAndFlush(((ByteBuf) msg));
        }
    }
}
