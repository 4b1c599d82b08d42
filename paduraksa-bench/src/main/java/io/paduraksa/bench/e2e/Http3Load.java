package io.paduraksa.bench.e2e;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/3 load generator for {@code paduraksa-bench/e2e/h3.py} (h2load here is built without
 * QUIC): {@code conns} QUIC connections to 127.0.0.1, each keeping {@code streams} requests in
 * flight (a new stream as soon as one ends, as {@code h2load -m} does), for a fixed time; then one
 * JSON line with the requests that ended, how many had another status than expected, and errors.
 * It measures the server, not itself: the harness counts the server's CPU and allocated bytes.
 * The load runs {@code WARMUP} seconds first (this JVM's JIT too), then prints {@code H3LOAD-WARM}
 * and waits for a line on stdin: the harness reads the server's counters, answers, and the
 * measured window starts on the same connections without a pause in the load.
 *
 * <pre>
 * java -cp paduraksa-bench/target/benchmarks.jar io.paduraksa.bench.e2e.Http3Load \
 *     PORT AUTHORITY PATH EXPECTED_STATUS CONNS STREAMS WARMUP SECONDS
 * </pre>
 * The certificate is not checked (loopback, a certificate the harness just made).
 */
public final class Http3Load {
    private final String authority;
    private final String path;
    private final int expected;
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong badStatus = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    /** Stream opens refused by the client's QUIC stack (no stream credit from the server yet), each retried 1 ms later. */
    private final AtomicLong waits = new AtomicLong();
    private volatile boolean running = true;

    private Http3Load(String authority, String path, int expected) {
        this.authority = authority;
        this.path = path;
        this.expected = expected;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: Http3Load PORT AUTHORITY PATH EXPECTED_STATUS CONNS STREAMS WARMUP SECONDS");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int conns = Integer.parseInt(args[4]);
        int streams = Integer.parseInt(args[5]);
        double warmup = Double.parseDouble(args[6]);
        double seconds = Double.parseDouble(args[7]);
        Http3Load load = new Http3Load(args[1], args[2], Integer.parseInt(args[3]));
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            QuicChannel[] quic = new QuicChannel[conns];
            Channel[] udp = new Channel[conns];
            for (int i = 0; i < conns; i++) {
                udp[i] = load.bind(group, port, args[1]);
                quic[i] = QuicChannel.newBootstrap(udp[i]).handler(new Http3ClientConnectionHandler())
                        .remoteAddress(new InetSocketAddress("127.0.0.1", port)).connect().get(10, TimeUnit.SECONDS);
            }
            for (QuicChannel q : quic) {
                q.eventLoop().execute(() -> {
                    for (int s = 0; s < streams; s++) {
                        load.next(q);
                    }
                });
            }
            Thread.sleep((long) (warmup * 1000));
            System.out.println("H3LOAD-WARM " + load.done.get() + " requests");
            System.out.flush();
            new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.US_ASCII)).readLine();
            load.done.set(0);
            load.badStatus.set(0);
            load.errors.set(0);
            load.waits.set(0);
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            load.running = false;
            double elapsed = (System.nanoTime() - start) / 1e9;
            long n = load.done.get();
            Thread.sleep(200); // streams in flight end; they are not counted
            for (int i = 0; i < conns; i++) {
                quic[i].close().awaitUninterruptibly(2, TimeUnit.SECONDS);
                udp[i].close().awaitUninterruptibly(2, TimeUnit.SECONDS);
            }
            System.out.println(String.format(Locale.ROOT,
                    "H3LOAD {\"requests\": %d, \"load_seconds\": %.3f, \"bad_status\": %d, \"errors\": %d, \"stream_waits\": %d}",
                    n, elapsed, load.badStatus.get(), load.errors.get(), load.waits.get()));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private Channel bind(EventLoopGroup group, int port, String serverName) throws InterruptedException {
        QuicSslContext ssl = QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .applicationProtocols(Http3.supportedApplicationProtocols()).build();
        ChannelHandler codec = Http3.newQuicClientCodecBuilder()
                .sslContext(ssl)
                .sslEngineProvider(q -> ssl.newEngine(q.alloc(), serverName, port))
                .maxAckDelay(Long.getLong("h3load.maxAckDelayMs", 25), TimeUnit.MILLISECONDS)
                .maxIdleTimeout(30, TimeUnit.SECONDS)
                .initialMaxData(64 * 1024 * 1024)
                .initialMaxStreamDataBidirectionalLocal(1024 * 1024)
                .initialMaxStreamDataBidirectionalRemote(1024 * 1024)
                .initialMaxStreamsUnidirectional(3)
                .initialMaxStreamDataUnidirectional(64 * 1024)
                .build();
        return new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(codec)
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** Opens one request stream; when the server's stream credit is not back yet, tries again in 1 ms. */
    private void next(QuicChannel quic) {
        if (!running || !quic.isActive()) {
            return;
        }
        Http3.newRequestStream(quic, new Exchange(quic)).addListener(f -> {
            if (f.isSuccess()) {
                Http3Headers h = new DefaultHttp3Headers().method("GET").scheme("https").authority(authority).path(path);
                h.add("user-agent", "paduraksa-h3load");
                ((QuicStreamChannel) f.getNow()).writeAndFlush(new DefaultHttp3HeadersFrame(h))
                        .addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
            } else {
                waits.incrementAndGet();
                EventLoop loop = quic.eventLoop();
                loop.schedule(() -> next(quic), 1, TimeUnit.MILLISECONDS);
            }
        });
    }

    /** One request: counts its status and end, then starts the next on the same connection. */
    private final class Exchange extends Http3RequestStreamInboundHandler {
        private final QuicChannel quic;
        private int status;
        private boolean ended;

        Exchange(QuicChannel quic) {
            this.quic = quic;
        }

        @Override
        protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
            CharSequence s = frame.headers().status();
            if (s != null && status == 0) {
                status = Integer.parseInt(s.toString());
            }
        }

        @Override
        protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
            frame.release();
        }

        @Override
        protected void channelInputClosed(ChannelHandlerContext ctx) {
            end(status == expected);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (!ended) {
                errors.incrementAndGet();
                end(false);
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        private void end(boolean ok) {
            if (ended) {
                return;
            }
            ended = true;
            if (running) {
                done.incrementAndGet();
                if (!ok) {
                    badStatus.incrementAndGet();
                }
            }
            next(quic);
        }
    }
}
