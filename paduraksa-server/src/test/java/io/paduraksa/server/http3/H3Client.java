package io.paduraksa.server.http3;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.paduraksa.server.http2.H2Client;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Netty's own HTTP/3 client for tests: one QUIC connection to 127.0.0.1, trusting the test CA,
 * SNI {@code serverName}. {@link #send} opens a request stream and returns the response as it
 * arrives; {@link Response#done} completes when the server's FIN (or a reset, or the stream's
 * close) ends it, so a test can count every stream's end and see the state of those that never ended.
 */
final class H3Client implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel udp;
    private final QuicChannel quic;

    /** Whether {@link #close} shuts the group down (a group given by the caller is the caller's). */
    private boolean ownsGroup;

    private H3Client(EventLoopGroup group, Channel udp, QuicChannel quic) {
        this.group = group;
        this.udp = udp;
        this.quic = quic;
    }

    static H3Client connect(int port, String serverName) throws Exception {
        H3Client c = connect(port, serverName, clientGroup(1));
        c.ownsGroup = true;
        return c;
    }

    /** The client's loops, named apart from the server's (allocation tests count the server's by name). */
    static EventLoopGroup clientGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new io.netty.util.concurrent.DefaultThreadFactory("h3-test-client"),
                NioIoHandler.newFactory());
    }

    static H3Client connect(int port, String serverName, EventLoopGroup group) throws Exception {
        QuicSslContext ssl = QuicSslContextBuilder.forClient().trustManager(H2Client.testFile("ca.pem").toFile())
                .applicationProtocols(Http3.supportedApplicationProtocols()).build();
        ChannelHandler codec = Http3.newQuicClientCodecBuilder()
                .sslContext(ssl)
                .sslEngineProvider(q -> ssl.newEngine(q.alloc(), serverName, port))
                .maxIdleTimeout(30, TimeUnit.SECONDS)
                .initialMaxData(64 * 1024 * 1024)
                .initialMaxStreamDataBidirectionalLocal(4 * 1024 * 1024)
                .initialMaxStreamDataBidirectionalRemote(4 * 1024 * 1024)
                .initialMaxStreamsUnidirectional(3)
                .initialMaxStreamDataUnidirectional(64 * 1024)
                .build();
        Channel udp = new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(codec)
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        QuicChannel quic = QuicChannel.newBootstrap(udp)
                .handler(new Http3ClientConnectionHandler())
                .remoteAddress(new InetSocketAddress("127.0.0.1", port))
                .connect().get(10, TimeUnit.SECONDS);
        return new H3Client(group, udp, quic);
    }

    QuicChannel channel() {
        return quic;
    }

    /** GET/HEAD/... without a body. */
    Response send(String method, String authority, String path) throws Exception {
        return send(headers(method, authority, path), null);
    }

    static Http3Headers headers(String method, String authority, String path) {
        Http3Headers h = new DefaultHttp3Headers();
        h.method(method).path(path).scheme("https");
        if (authority != null) {
            h.authority(authority);
        }
        return h;
    }

    /**
     * Opens a stream, writes {@code headers}, then {@code body} (when not null) as one DATA frame,
     * then FIN after the last frame (an empty body still sends an empty DATA frame before the FIN).
     */
    Response send(Http3Headers headers, byte[] body) throws Exception {
        Response r = new Response();
        QuicStreamChannel stream = newStream(r);
        r.streamId = stream.streamId();
        if (body == null) {
            stream.writeAndFlush(new DefaultHttp3HeadersFrame(headers)).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
        } else {
            stream.write(new DefaultHttp3HeadersFrame(headers));
            stream.writeAndFlush(new DefaultHttp3DataFrame(Unpooled.wrappedBuffer(body))).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
        }
        return r;
    }

    /**
     * A bodyless request whose FIN travels in the same QUIC stream frame as its HEADERS, as browsers
     * send a GET ({@link #send} writes the FIN after the HEADERS, and Netty's client sends it in a packet
     * of its own). The HEADERS frame is encoded here (QPACK literal field lines with literal names,
     * no dynamic table, RFC 9204 4.5.6) and written below Netty's HTTP/3 codec.
     */
    Response sendWithFin(String method, String authority, String path) throws Exception {
        Response r = new Response();
        QuicStreamChannel stream = newStream(r);
        r.streamId = stream.streamId();
        r.stream = stream;
        java.io.ByteArrayOutputStream block = new java.io.ByteArrayOutputStream();
        block.write(0); // required insert count 0
        block.write(0); // base 0
        for (String[] f : new String[][] {{":method", method}, {":scheme", "https"}, {":authority", authority}, {":path", path}}) {
            byte[] name = f[0].getBytes(StandardCharsets.US_ASCII);
            byte[] value = f[1].getBytes(StandardCharsets.US_ASCII);
            prefixed(block, 0x20, 3, name.length); // 001N H: literal name, not Huffman-coded
            block.write(name, 0, name.length);
            prefixed(block, 0x00, 7, value.length);
            block.write(value, 0, value.length);
        }
        byte[] fields = block.toByteArray();
        io.netty.buffer.ByteBuf frame = Unpooled.buffer(fields.length + 4);
        frame.writeByte(0x01); // HEADERS
        if (fields.length < 64) {
            frame.writeByte(fields.length);
        } else {
            frame.writeShort(0x4000 | fields.length);
        }
        frame.writeBytes(fields);
        stream.eventLoop().submit(() -> stream.pipeline().firstContext()
                .writeAndFlush(new io.netty.handler.codec.quic.DefaultQuicStreamFrame(Unpooled.directBuffer().writeBytes(frame), true))).get(5, TimeUnit.SECONDS);
        return r;
    }

    /** An RFC 9204 4.1.1 prefixed integer: {@code prefixBits} low bits of the first byte, then 7 bits a byte. */
    private static void prefixed(java.io.ByteArrayOutputStream out, int flags, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(flags | value);
            return;
        }
        out.write(flags | max);
        value -= max;
        while (value >= 128) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    /**
     * A new request stream. Netty's client fails at once (STREAM_LIMIT) when the server's
     * MAX_STREAMS credit for the streams just finished has not arrived yet (seen for up to 50 ms
     * under load); a browser waits for the credit, and so does this, for at most 5 s.
     */
    private QuicStreamChannel newStream(Response r) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                return Http3.newRequestStream(quic, r).get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof QuicException q) || !String.valueOf(q.getMessage()).contains("STREAM_LIMIT") || attempt >= 250) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    /** Opens a stream and writes only {@code headers}, no FIN: the caller writes the rest on {@link Response#stream}. */
    Response open(Http3Headers headers) throws Exception {
        Response r = new Response();
        QuicStreamChannel stream = newStream(r);
        r.streamId = stream.streamId();
        r.stream = stream;
        stream.writeAndFlush(new DefaultHttp3HeadersFrame(headers));
        return r;
    }

    @Override
    public void close() {
        quic.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        udp.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        if (ownsGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    /** One response; its fields are written on the client's event loop, read after {@link #done}. */
    static final class Response extends Http3RequestStreamInboundHandler {
        final CompletableFuture<Response> done = new CompletableFuture<>();
        volatile long streamId;
        volatile QuicStreamChannel stream;
        volatile int status = -1;
        final Map<String, String> headers = new LinkedHashMap<>();
        final Map<String, String> trailers = new LinkedHashMap<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        volatile long bodyBytes;
        volatile boolean keepBody = true;
        /** How it ended: "fin", "reset: ...", "closed". */
        volatile String end = "open";
        volatile boolean headersSeen;

        @Override
        protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
            if (!headersSeen) {
                headersSeen = true;
                CharSequence s = frame.headers().status();
                status = s == null ? -1 : Integer.parseInt(s.toString());
                synchronized (headers) {
                    for (Map.Entry<CharSequence, CharSequence> e : frame.headers()) {
                        headers.merge(e.getKey().toString(), e.getValue().toString(), (a, b) -> a + ", " + b);
                    }
                }
            } else {
                for (Map.Entry<CharSequence, CharSequence> e : frame.headers()) {
                    trailers.put(e.getKey().toString(), e.getValue().toString());
                }
            }
        }

        @Override
        protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
            ByteBuf c = frame.content();
            bodyBytes += c.readableBytes();
            if (keepBody) {
                synchronized (body) {
                    byte[] b = new byte[c.readableBytes()];
                    c.readBytes(b);
                    body.writeBytes(b);
                }
            }
            frame.release();
        }

        @Override
        protected void channelInputClosed(ChannelHandlerContext ctx) {
            end = "fin";
            done.complete(this);
        }

        @Override
        protected void handleQuicException(ChannelHandlerContext ctx, QuicException e) {
            end = "reset: " + e.getMessage();
            done.complete(this);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            end = "error: " + cause;
            done.complete(this);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!done.isDone()) {
                end = "closed";
                done.complete(this);
            }
            ctx.fireChannelInactive();
        }

        Response await() throws Exception {
            try {
                return done.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("no end within 10 s: " + this, e); // which stream, and how far it got
            }
        }

        String body() {
            synchronized (body) {
                return body.toString(StandardCharsets.UTF_8);
            }
        }

        String header(String name) {
            synchronized (headers) {
                return headers.get(name);
            }
        }

        @Override
        public String toString() {
            return "stream " + streamId + " status " + status + " headers " + headersSeen + " body " + bodyBytes + " end " + end;
        }
    }
}
