package io.paduraksa.server.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real upstream on 127.0.0.1 port 0 that records everything it receives, for smuggling tests: the
 * raw bytes of every connection (before any parsing) and every request head Netty's decoder finds
 * in them ({@code METHOD target}, or {@code INVALID ...} when the decoder fails). Each complete
 * request gets {@code 200} with the body {@code upstream}.
 */
public final class RecordingOrigin implements AutoCloseable {
    private static final byte[] ANSWER = "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nupstream".getBytes(StandardCharsets.US_ASCII);

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("recording-origin"),
            NioIoHandler.newFactory());
    private final Channel server;
    private final List<String> requests = new ArrayList<>();
    private final StringBuilder bytes = new StringBuilder();

    public RecordingOrigin() throws InterruptedException {
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new Raw(), new HttpRequestDecoder(), new Requests());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    public String url() {
        return "http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Every request head seen so far, in order ({@code METHOD target}). */
    public synchronized List<String> requests() {
        return List.copyOf(requests);
    }

    /** Every byte received so far on any connection (ISO-8859-1). */
    public synchronized String bytes() {
        return bytes.toString();
    }

    public synchronized void clear() {
        requests.clear();
        bytes.setLength(0);
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Raw extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            synchronized (RecordingOrigin.this) {
                bytes.append(buf.toString(StandardCharsets.ISO_8859_1));
            }
            ctx.fireChannelRead(msg);
        }
    }

    private final class Requests extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                HttpObject o = (HttpObject) msg;
                if (o.decoderResult().isFailure()) {
                    record("INVALID " + o.decoderResult().cause());
                    ctx.close();
                    return;
                }
                if (msg instanceof HttpRequest r) {
                    record(r.method() + " " + r.uri());
                }
                if (msg instanceof LastHttpContent) {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(ANSWER));
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private synchronized void record(String request) {
        requests.add(request);
    }
}
