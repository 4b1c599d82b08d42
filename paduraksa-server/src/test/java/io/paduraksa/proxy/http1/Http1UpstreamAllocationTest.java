package io.paduraksa.proxy.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.net.IpParser;
import io.paduraksa.proxy.Endpoint;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.proxy.TestEndpoints;
import io.paduraksa.proxy.UpstreamCall;
import io.paduraksa.proxy.UpstreamStream;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.snapshot.UpstreamCluster;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/1.1 upstream side in steady state over a real loopback connection: the pool handing out
 * and taking back keep-alive connections, and {@link Http1UpstreamHandler} writing a request head
 * and handing the decoded response to its call. The pool and its connections live on a
 * {@link ManualIoEventLoop} driven by the measuring thread itself (the pool's loop, as on a server
 * event loop), so AllocationAssert sees everything they run, socket reads and writes included; the
 * origin answers on its own thread. Every call is checked to have done its work.
 */
@Tag("allocation")
class Http1UpstreamAllocationTest {
    private static final String RESPONSE = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nhello world\n";
    private static final int BODY = 12;
    private static final boolean EPOLL = Epoll.isAvailable();
    private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private State state;

    @AfterEach
    void close() {
        if (state != null) {
            state.close();
        }
    }

    @Test
    void acquiringAndReleasingPooledConnectionsAllocatesNothing() throws Exception {
        state = new State();
        AllocationAssert.Result r = AllocationAssert.assertZero("Http1UpstreamPool acquire/release", state,
                State::acquireAndRelease, AllocationAssert.DEFAULT_WARMUP, AllocationAssert.DEFAULT_ITERATIONS, State::stop);
        System.out.println(r);
        State s = state;
        assertThat(s.cycles).isPositive();
        assertThat(s.handedOut).as("three calls per cycle, every one on a reused connection").isEqualTo(3 * s.cycles);
        assertThat(s.queuedThenServed).as("the third call waits for the second's connection").isEqualTo(s.cycles);
        assertThat(s.openAtEnd).as("the pool's two connections, never more").isEqualTo(2);
        assertThat(s.failures).isZero();
        assertThat(s.origin.connections.get()).isEqualTo(2);
    }

    @Test
    void aRequestWrittenAndItsResponseHandedOnAllocateNothing() throws Exception {
        state = new State();
        // 300,000 requests of warm-up: after 20,000 or 100,000, one run in three allocated 120 to 7,008 B
        // (largest call 3,128 B, the size of Netty's new-chunk metadata, see AllocationAssert) in every
        // counted loop, with two pooled buffers per request (socket read, request head) against the
        // pools' caches; after 300,000, 11 runs of 11 passed, 10 with the first counted loop clean.
        AllocationAssert.Result r = AllocationAssert.assertZero("Http1UpstreamHandler request and response", state,
                State::request, 300_000, 5_000, State::stop);
        System.out.println(r + "; " + state.requests + " requests, " + state.origin.requests.get() + " at the origin");
        State s = state;
        Call c = s.calls[0];
        assertThat(s.requests).isPositive();
        assertThat(s.origin.requests.get()).isEqualTo(s.requests);
        assertThat(s.heads200).as("200 heads handed on").isEqualTo(s.requests);
        assertThat(s.bodyBytes).as("body bytes handed on").isEqualTo(s.requests * BODY);
        assertThat(s.ends).isEqualTo(s.requests);
        assertThat(s.failures).isZero();
        assertThat(s.origin.connections.get()).as("one keep-alive connection did it all (two opened at the start)").isEqualTo(2);
        assertThat(c.headBytes).as("the request head the origin got").isGreaterThan(200);
    }

    /** Counts what the pool and the stream report; allocation-free. */
    static final class Call implements UpstreamCall {
        UpstreamStream stream;
        boolean reused;
        boolean done;
        int status;
        long bodyBytes;
        int ends;
        int failures;
        long headBytes;

        void reset() {
            stream = null;
            reused = false;
            done = false;
            status = 0;
            bodyBytes = 0;
            ends = 0;
            failures = 0;
        }

        @Override
        public void connected(UpstreamStream s, boolean reusedConnection) {
            stream = s;
            reused = reusedConnection;
        }

        @Override
        public void onResponseHead(ResponseHead head) {
            status = head.status();
        }

        @Override
        public void onResponseBody(ByteBuf chunk) {
            bodyBytes += chunk.readableBytes();
            chunk.release();
        }

        @Override
        public void onResponseEnd() {
            ends++;
            done = true;
        }

        @Override
        public void flushClient() {
        }

        @Override
        public void upstreamWritable(boolean writable) {
        }

        @Override
        public void onTrailers(ResponseTrailers trailers) {
            trailers.release();
            fail();
        }

        @Override
        public void onInterim(ResponseHead head) {
            fail();
        }

        @Override
        public void connectFailed() {
            fail();
        }

        @Override
        public void queueTimedOut() {
            fail();
        }

        @Override
        public void onUpstreamError() {
            fail();
        }

        @Override
        public void onUpstreamClosed() {
            fail();
        }

        @Override
        public void onUpstreamRefused() {
            fail();
        }

        @Override
        public void onHeadersTimeout() {
            fail();
        }

        @Override
        public void onIdleTimeout() {
            fail();
        }

        @Override
        public void onUpgradeUnsupported() {
            fail();
        }

        private void fail() {
            failures++;
            done = true;
        }

        @Override
        public String toString() {
            return "Call{stream=" + stream + ", status=" + status + ", failures=" + failures + '}';
        }
    }

    static final class State {
        final FixedOrigin origin = new FixedOrigin();
        final Snapshot snapshot = CompiledFixtures.compile("upstream.yaml", """
                clusters:
                  app:
                    destinations: [{url: "http://127.0.0.1:%d"}]
                    pool: {max_connections: 2, idle_timeout: 1h}
                    timeouts: {idle: 1h, response_headers: 1h}
                hosts:
                  - names: [shop.test]
                    routes:
                      - {path: /, forward: app}
                """.formatted(origin.port()));
        final UpstreamCluster cluster = snapshot.clusters().get("app");
        final Gate gate = new Gate(new SnapshotStore(snapshot));
        final StaticRequestView view;
        final RequestState request = new RequestState();
        final UpstreamRequestHeadAllocationTest.Exchange exchange = new UpstreamRequestHeadAllocationTest.Exchange();
        final AsciiString authority = cluster.destinations().get(0).authority();
        final Endpoint endpoint;
        final Call[] calls = {new Call(), new Call(), new Call()};
        ManualIoEventLoop loop;
        Http1UpstreamPool pool;
        long cycles;
        long handedOut;
        long queuedThenServed;
        long requests;
        long heads200;
        long bodyBytes;
        long ends;
        long failures;
        int openAtEnd;

        State() throws Exception {
            long[] ip = new long[2];
            IpParser.parse("198.51.100.20", 0, 13, ip);
            view = new StaticRequestView().client(new ClientInfo(ip[0], ip[1], false, ClientInfo.NO_COUNTRY))
                    .method("GET").authority("shop.test").target("/api/v1/items?page=2");
            Class<? extends SocketChannel> channel = EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
            endpoint = TestEndpoints.first(cluster, channel);
        }

        /**
         * On the measuring thread, the first time: the loop it drives, the pool on it, and the pool's
         * two connections, opened and given back.
         */
        void start() {
            if (loop != null) {
                return;
            }
            IoHandlerFactory io = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            loop = new ManualIoEventLoop(Thread.currentThread(), io);
            pool = new Http1UpstreamPool(endpoint, loop);
            Call a = calls[0];
            Call b = calls[1];
            a.reset();
            b.reset();
            pool.acquire(a);
            pool.acquire(b);
            long start = System.nanoTime();
            while ((a.stream == null || b.stream == null) && a.failures + b.failures == 0) {
                loop.run(WAIT_NANOS);
                if (System.nanoTime() - start > GIVE_UP_NANOS) {
                    throw new AssertionError("could not connect to the origin: " + a + ", " + b);
                }
            }
            if (a.stream == null || b.stream == null) {
                throw new AssertionError("could not connect to the origin: " + a + ", " + b);
            }
            a.stream.abandon();
            b.stream.abandon();
        }

        /**
         * Two calls take the two idle connections, a third waits for one; the second gives its
         * connection back unused (so the third gets it), then the first and the third give theirs back.
         */
        static void acquireAndRelease(State s) {
            s.start();
            Call a = s.calls[0];
            Call b = s.calls[1];
            Call c = s.calls[2];
            a.reset();
            b.reset();
            c.reset();
            s.pool.acquire(a);
            s.pool.acquire(b);
            s.pool.acquire(c);
            if (c.stream != null || a.stream == null || b.stream == null) {
                s.failures++;
                return;
            }
            b.stream.abandon();
            if (c.stream == b.stream) {
                s.queuedThenServed++;
            }
            a.stream.abandon();
            if (c.stream != null) {
                c.stream.abandon();
            }
            s.handedOut += (a.reused ? 1 : 0) + (b.reused ? 1 : 0) + (c.reused ? 1 : 0);
            s.failures += a.failures + b.failures + c.failures;
            s.cycles++;
            s.loop.runNow(); // the pool's sweep, when due
            s.openAtEnd = s.pool.openConnections();
        }

        /** The gate forwards; the pool hands out a connection; head written; the response read and handed on; back to the pool. */
        static void request(State s) {
            s.start();
            if (s.gate.run(s.view, s.request) != GateOutcome.FORWARD) {
                throw new AssertionError("not forwarded");
            }
            Call c = s.calls[0];
            c.reset();
            s.pool.acquire(c);
            UpstreamStream u = c.stream;
            if (u == null || !c.reused) {
                throw new AssertionError("no idle connection: " + c);
            }
            u.begin(c, System.nanoTime(), TimeUnit.HOURS.toNanos(1), false, false);
            u.writeHead(s.request, s.exchange, s.cluster, s.authority, 0);
            long start = System.nanoTime();
            while (!c.done) {
                s.loop.run(WAIT_NANOS);
                if (System.nanoTime() - start > GIVE_UP_NANOS) {
                    throw new AssertionError("no response: " + c);
                }
            }
            u.finish();
            s.requests++;
            s.heads200 += c.status == 200 ? 1 : 0;
            s.bodyBytes += c.bodyBytes;
            s.ends += c.ends;
            s.failures += c.failures;
            c.headBytes = s.origin.lastHeadBytes;
        }

        /** After the measurement, on the measuring thread: the pool and the loop closed. */
        static void stop(State s) {
            if (s.loop == null) {
                return;
            }
            s.pool.close();
            s.loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            long start = System.nanoTime();
            while (!s.loop.isTerminated() && System.nanoTime() - start < GIVE_UP_NANOS) {
                s.loop.run(WAIT_NANOS);
            }
        }

        void close() {
            exchange.head.release();
            snapshot.release();
            origin.close();
        }
    }

    /** An origin on its own thread that answers every request head with {@link #RESPONSE} (requests carry no body). */
    static final class FixedOrigin implements AutoCloseable {
        private static final byte[] END = {'\r', '\n', '\r', '\n'};
        private static final byte[] ANSWER = RESPONSE.getBytes(ISO_8859_1);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        final AtomicLong requests = new AtomicLong();
        final AtomicLong connections = new AtomicLong();
        volatile long lastHeadBytes;
        final Channel server;

        FixedOrigin() {
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            connections.incrementAndGet();
                            ch.pipeline().addLast(new Answering());
                        }
                    })
                    .bind("127.0.0.1", 0).syncUninterruptibly().channel();
        }

        int port() {
            return ((InetSocketAddress) server.localAddress()).getPort();
        }

        @Override
        public void close() {
            server.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }

        private final class Answering extends ChannelInboundHandlerAdapter {
            private int matched;
            private long headBytes;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf in = (ByteBuf) msg;
                int heads = 0;
                for (int i = in.readerIndex(); i < in.writerIndex(); i++) {
                    byte b = in.getByte(i);
                    headBytes++;
                    matched = b == END[matched] ? matched + 1 : b == '\r' ? 1 : 0;
                    if (matched == END.length) {
                        heads++;
                        matched = 0;
                        lastHeadBytes = headBytes;
                        headBytes = 0;
                    }
                }
                in.release();
                for (int i = 0; i < heads; i++) {
                    ctx.write(Unpooled.wrappedBuffer(ANSWER));
                }
                requests.addAndGet(heads);
                ctx.flush();
            }
        }
    }
}
