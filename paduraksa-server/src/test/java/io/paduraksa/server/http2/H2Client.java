package io.paduraksa.server.http2;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.ByteArrayOutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP/2 client for integration tests: Netty's {@link Http2ConnectionHandler} (client side)
 * with a frame listener, over a real socket to 127.0.0.1. h2c with prior knowledge
 * ({@link #connect(int)}) or h2 over TLS with ALPN and SNI ({@link #connectTls}). Requests go out on
 * the client's event loop; each stream's answer, its RST_STREAM code and the connection's GOAWAY
 * are delivered as futures. Header values are kept as the decoder gave them.
 */
public final class H2Client implements AutoCloseable {
    /** One event-loop thread for every client in the test JVM (daemon, so a failed test never hangs the JVM). */
    static final EventLoopGroup LOOP = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("h2-test-client", true),
            NioIoHandler.newFactory());

    private final Channel channel;
    private final Http2ConnectionHandler handler;
    private final Listener listener;
    private final String alpn;

    /** What the server answered on one stream; {@code reset} is the RST_STREAM code, or -1 when none came before the end. */
    public record Response(int streamId, Http2Headers headers, String body, long reset) {
        public int status() {
            CharSequence s = headers == null ? null : headers.status();
            return s == null ? -1 : Integer.parseInt(s.toString());
        }

        public String header(String name) {
            CharSequence v = headers == null ? null : headers.get(AsciiString.of(name));
            return v == null ? null : v.toString();
        }
    }

    public record GoAway(int lastStreamId, long errorCode, String debug) {
    }

    /** One stream's state, filled on the client's event loop. */
    public static final class Stream {
        final int id;
        Http2Headers headers;
        /** The trailing HEADERS, when the answer had them. */
        public volatile Http2Headers trailers;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        /** Completes at END_STREAM from the server or at RST_STREAM, whichever comes first. */
        public final CompletableFuture<Response> done = new CompletableFuture<>();
        /** Completes with the code of a RST_STREAM from the server (also after a complete answer). */
        public final CompletableFuture<Long> reset = new CompletableFuture<>();

        Stream(int id) {
            this.id = id;
        }

        /** Body bytes received so far. */
        public int bytesReceived() {
            synchronized (body) {
                return body.size();
            }
        }

        Response response(long resetCode) {
            return new Response(id, headers, body.toString(StandardCharsets.UTF_8), resetCode);
        }
    }

    private H2Client(Channel channel, Http2ConnectionHandler handler, Listener listener, String alpn) {
        this.channel = channel;
        this.handler = handler;
        this.listener = listener;
        this.alpn = alpn;
    }

    /** h2c with prior knowledge (RFC 9113 3.3). */
    public static H2Client connect(int port) throws Exception {
        return connect(port, null, null, Http2Settings.defaultSettings());
    }

    /** h2 over TLS, offering only h2 in ALPN, trusting the test CA, with {@code sni} as the server name. */
    public static H2Client connectTls(int port, String sni) throws Exception {
        return connect(port, testClientContext("h2"), sni, Http2Settings.defaultSettings());
    }

    /** A client TLS context that trusts the test CA and offers {@code alpn} (none when empty). */
    public static SslContext testClientContext(String... alpn) throws Exception {
        SslContextBuilder b = SslContextBuilder.forClient().trustManager(testFile("ca.pem").toFile());
        if (alpn.length > 0) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
        }
        return b.build();
    }

    /** A file of the test TLS material ({@code src/test/resources/tls/}). */
    public static Path testFile(String name) {
        try {
            return Path.of(H2Client.class.getResource("/tls/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static H2Client connect(int port, SslContext tls, String sni, Http2Settings settings) throws Exception {
        Holder holder = new Holder();
        Channel ch = new Bootstrap().group(LOOP).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), sni, port));
                        }
                        Listener listener = new Listener();
                        Http2ConnectionHandler h = new Http2ConnectionHandlerBuilder().server(false)
                                .initialSettings(settings).frameListener(listener).build();
                        holder.listener = listener;
                        holder.handler = h;
                        ch.pipeline().addLast(h);
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        String alpn = null;
        if (tls != null) {
            SslHandler ssl = ch.pipeline().get(SslHandler.class);
            ssl.handshakeFuture().sync();
            alpn = ssl.applicationProtocol();
        }
        holder.listener.remoteSettings.get(5, TimeUnit.SECONDS);
        return new H2Client(ch, holder.handler, holder.listener, alpn);
    }

    private static final class Holder {
        Listener listener;
        Http2ConnectionHandler handler;
    }

    /** The protocol ALPN chose (null for h2c). */
    public String alpn() {
        return alpn;
    }

    public Channel channel() {
        return channel;
    }

    /** The server's SETTINGS (the first frame it sends). */
    public Http2Settings remoteSettings() {
        return listener.remoteSettings.join();
    }

    /** GOAWAY from the server, when one comes. */
    public CompletableFuture<GoAway> goAway() {
        return listener.goAway;
    }

    /** Request headers with the four pseudo-headers (scheme http). */
    public static Http2Headers headers(String method, String authority, String path) {
        Http2Headers h = new DefaultHttp2Headers().method(method).scheme("http").path(path);
        if (authority != null) {
            h.authority(authority);
        }
        return h;
    }

    /** Sends a request without a body and waits for its answer (or reset). */
    public Response get(String method, String authority, String path) throws Exception {
        return send(headers(method, authority, path), null, true).done.get(5, TimeUnit.SECONDS);
    }

    /**
     * Sends {@code count} requests, cycling through {@code requests}, {@code inFlight} streams at a
     * time, and fails unless every answer has {@code status}.
     */
    public void sendAll(Http2Headers[] requests, int status, int count, int inFlight) throws Exception {
        List<Stream> streams = new ArrayList<>(inFlight);
        for (int sent = 0; sent < count; sent += inFlight) {
            streams.clear();
            for (int i = 0; i < inFlight; i++) {
                streams.add(send(requests[(sent + i) % requests.length], null, true));
            }
            for (Stream s : streams) {
                Response r = s.done.get(5, TimeUnit.SECONDS);
                if (r.status() != status) {
                    throw new AssertionError("stream " + r.streamId() + ": " + r);
                }
            }
        }
    }

    /**
     * Opens a stream with {@code headers}, then optionally a DATA frame with {@code body}; the stream
     * ends with the last frame sent when {@code endStream}. Returns at once.
     */
    public Stream send(Http2Headers headers, String body, boolean endStream) {
        CompletableFuture<Stream> opened = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            ChannelHandlerContext ctx = channel.pipeline().context(handler);
            int id = handler.connection().local().incrementAndGetNextStreamId();
            Stream s = new Stream(id);
            listener.streams.put(id, s);
            handler.encoder().writeHeaders(ctx, id, headers, 0, endStream && body == null, ctx.newPromise());
            if (body != null) {
                ByteBuf data = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
                handler.encoder().writeData(ctx, id, data, 0, endStream, ctx.newPromise());
            }
            handler.flush(ctx); // also writes DATA the flow controller holds; ctx.flush() alone would not
            opened.complete(s);
        });
        return opened.join();
    }

    /** One more DATA frame on an open stream. */
    public void sendData(Stream stream, String body, boolean endStream) {
        channel.eventLoop().execute(() -> {
            ChannelHandlerContext ctx = channel.pipeline().context(handler);
            handler.encoder().writeData(ctx, stream.id, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), 0, endStream,
                    ctx.newPromise());
            handler.flush(ctx);
        });
    }

    /** Whether the connection is still open, waiting up to {@code millis} for it to close. */
    /** Resets {@code stream} with CANCEL, as a browser does when the user navigates away. */
    public void cancel(Stream stream) {
        channel.eventLoop().execute(() -> {
            ChannelHandlerContext ctx = channel.pipeline().context(handler);
            handler.resetStream(ctx, stream.id, io.netty.handler.codec.http2.Http2Error.CANCEL.code(), ctx.newPromise());
            handler.flush(ctx);
        });
    }

    public boolean isOpenAfter(long millis) {
        return !channel.closeFuture().awaitUninterruptibly(millis);
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    private static final class Listener extends Http2FrameAdapter {
        final Map<Integer, Stream> streams = new ConcurrentHashMap<>();
        final CompletableFuture<GoAway> goAway = new CompletableFuture<>();
        final CompletableFuture<Http2Settings> remoteSettings = new CompletableFuture<>();

        private Stream stream(int id) {
            return streams.get(id);
        }

        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
            remoteSettings.complete(settings);
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
            Stream s = stream(streamId);
            if (s == null) {
                return;
            }
            if (s.headers == null) {
                s.headers = headers;
            } else {
                s.trailers = headers;
            }
            if (endOfStream) {
                s.done.complete(s.response(-1));
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            int n = data.readableBytes();
            Stream s = stream(streamId);
            if (s != null) {
                byte[] bytes = new byte[n];
                data.readBytes(bytes);
                synchronized (s.body) {
                    s.body.writeBytes(bytes);
                }
                if (endOfStream) {
                    s.done.complete(s.response(-1));
                }
            }
            return n + padding;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            Stream s = stream(streamId);
            if (s != null) {
                s.reset.complete(errorCode);
                s.done.complete(s.response(errorCode));
            }
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            goAway.complete(new GoAway(lastStreamId, errorCode, debugData.toString(StandardCharsets.UTF_8)));
        }
    }
}
