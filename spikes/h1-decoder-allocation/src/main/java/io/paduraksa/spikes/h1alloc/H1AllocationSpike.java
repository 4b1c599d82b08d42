package io.paduraksa.spikes.h1alloc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.Version;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One run of the spike: a Netty server on 127.0.0.1 (ephemeral port, one event-loop thread) with one
 * pipeline variant, and an in-process blocking client that sends {@code warmup + measured} requests on
 * one keep-alive connection. Prints one {@code RESULT} line with bytes allocated per request on the
 * event-loop thread, then exits.
 *
 * <p>Usage: {@code <raw|decoder|codec|codec-raw> <minimal|browser> [epoll|nio|io_uring] [warmup] [measured]}.
 * The allocator is chosen with {@code -Dio.netty.allocator.type=pooled|adaptive}.
 */
public final class H1AllocationSpike {

    private H1AllocationSpike() {
    }

    /** Per-connection handlers, captured for the snapshot task (one connection per run). */
    private record Conn(AllocationProbe probe, Responder responder) {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: <raw|decoder|codec|codec-raw> <minimal|browser> [epoll|nio|io_uring]"
                    + " [warmup] [measured]");
            System.exit(2);
        }
        String variant = args[0];
        String trafficName = args[1];
        String transport = args.length > 2 ? args[2] : "epoll";
        long warmup = args.length > 3 ? Long.parseLong(args[3]) : 20_000;
        long measured = args.length > 4 ? Long.parseLong(args[4]) : 100_000;
        byte[][] heads = switch (trafficName) {
            case "minimal" -> Traffic.minimal();
            case "browser" -> Traffic.browser();
            default -> throw new IllegalArgumentException("traffic: " + trafficName);
        };

        IoHandlerFactory ioFactory;
        Class<? extends ServerChannel> serverChannel;
        switch (transport) {
            case "epoll" -> {
                Epoll.ensureAvailability();
                ioFactory = EpollIoHandler.newFactory();
                serverChannel = EpollServerSocketChannel.class;
            }
            case "io_uring" -> {
                IoUring.ensureAvailability();
                ioFactory = IoUringIoHandler.newFactory();
                serverChannel = IoUringServerSocketChannel.class;
            }
            case "nio" -> {
                ioFactory = NioIoHandler.newFactory();
                serverChannel = NioServerSocketChannel.class;
            }
            default -> throw new IllegalArgumentException("transport: " + transport);
        }

        AtomicReference<Conn> conn = new AtomicReference<>();
        MultiThreadIoEventLoopGroup group =
                new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("spike-loop"), ioFactory);
        try {
            Channel server = new ServerBootstrap()
                    .group(group)
                    .channel(serverChannel)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            AllocationProbe probe = new AllocationProbe();
                            ChannelPipeline p = ch.pipeline();
                            p.addLast("probe", probe);
                            Responder responder;
                            switch (variant) {
                                case "raw" -> responder = new RawHandler();
                                case "decoder" -> {
                                    p.addLast("decoder", new HttpRequestDecoder());
                                    responder = new DecoderHandler(null);
                                }
                                case "codec" -> {
                                    p.addLast("codec", new HttpServerCodec());
                                    responder = new CodecHandler();
                                }
                                case "codec-raw" -> {
                                    p.addLast("codec", new HttpServerCodec());
                                    responder = new DecoderHandler("probe");
                                }
                                default -> throw new IllegalArgumentException("variant: " + variant);
                            }
                            p.addLast("responder", responder);
                            conn.set(new Conn(probe, responder));
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            EventLoop loop = group.next();

            // Two back-to-back counter reads on the loop: the probe's own cost, expected 0.
            long probeCost = loop.submit(() -> {
                long a = AllocationProbe.THREADS.getCurrentThreadAllocatedBytes();
                long b = AllocationProbe.THREADS.getCurrentThreadAllocatedBytes();
                return b - a;
            }).get();

            String header = String.format(Locale.ROOT,
                    "variant=%s traffic=%s transport=%s allocator=%s unsafe=%s java=%s netty=%s",
                    variant, trafficName, transport, ByteBufAllocator.DEFAULT.getClass().getSimpleName(),
                    PlatformDependent.hasUnsafe(), Runtime.version(),
                    Version.identify().get("netty-codec-http").artifactVersion());

            try (LoadClient client = new LoadClient(port)) {
                try {
                    client.run(heads, 0, warmup);
                    long[] start = snapshot(loop, conn);
                    long t0 = System.nanoTime();
                    client.run(heads, warmup, measured);
                    long t1 = System.nanoTime();
                    long[] end = snapshot(loop, conn);
                    long requests = end[2] - start[2];
                    System.out.printf(Locale.ROOT,
                            "RESULT %s requests=%d pipeline_B_per_req=%.1f thread_B_per_req=%.1f"
                                    + " req_per_s=%.0f probe_cost_B=%d%n",
                            header, requests,
                            (double) (end[1] - start[1]) / requests,
                            (double) (end[0] - start[0]) / requests,
                            requests / ((t1 - t0) / 1e9), probeCost);
                } catch (IOException e) {
                    System.out.printf(Locale.ROOT, "FAILED %s responses_before_error=%d error=%s%n",
                            header, client.responses, e);
                }
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Runs on the loop after the client got its last response, so the loop has finished that read:
     * {whole-thread allocated bytes, probe's pipeline bytes, responses written}.
     */
    private static long[] snapshot(EventLoop loop, AtomicReference<Conn> conn) throws Exception {
        return loop.submit(() -> {
            long thread = AllocationProbe.THREADS.getCurrentThreadAllocatedBytes();
            Conn c = conn.get();
            long pipeline = c.probe().pipelineBytes;
            long responses = c.responder().responses;
            return new long[] {thread, pipeline, responses};
        }).get();
    }
}
