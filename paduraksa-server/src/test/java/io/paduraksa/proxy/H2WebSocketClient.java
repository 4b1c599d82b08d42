package io.paduraksa.proxy;

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
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.paduraksa.server.http2.H2Client;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A scripted WebSocket-over-HTTP/2 client (RFC 8441) for integration tests: Netty's client
 * {@link Http2ConnectionHandler} (so both flow-control windows work as a browser's do) over h2c
 * or h2 with TLS, an extended CONNECT per {@link #open}, and RFC 6455 frames written by hand
 * (masked, as a client must) into DATA frames and parsed from the DATA frames that come back
 * (unmasked from a server; masked ones, a raw echo of ours, are unmasked too).
 * Header blocks go out exactly as given (validation off), so malformed requests can be sent too.
 */
final class H2WebSocketClient implements AutoCloseable {
    private static final EventLoopGroup LOOP = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("h2-ws-test-client", true), NioIoHandler.newFactory());

    private final Channel channel;
    private final Http2ConnectionHandler handler;
    private final Listener listener;

    private H2WebSocketClient(Channel channel, Http2ConnectionHandler handler, Listener listener) {
        this.channel = channel;
        this.handler = handler;
        this.listener = listener;
    }

    /** h2c with prior knowledge. */
    static H2WebSocketClient connect(int port) throws Exception {
        return connect(port, null, null);
    }

    /** h2 over TLS (ALPN h2, the test CA trusted, {@code sni} as server name). */
    static H2WebSocketClient connectTls(int port, String sni) throws Exception {
        return connect(port, H2Client.testClientContext("h2"), sni);
    }

    private static H2WebSocketClient connect(int port, SslContext tls, String sni) throws Exception {
        Listener listener = new Listener();
        Http2ConnectionHandler[] h = new Http2ConnectionHandler[1];
        Channel ch = new Bootstrap().group(LOOP).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), sni, port));
                        }
                        h[0] = new Http2ConnectionHandlerBuilder().server(false).validateHeaders(false)
                                .initialSettings(Http2Settings.defaultSettings()).frameListener(listener).build();
                        ch.pipeline().addLast(h[0]);
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        if (tls != null) {
            SslHandler ssl = ch.pipeline().get(SslHandler.class);
            ssl.handshakeFuture().sync();
            if (!"h2".equals(ssl.applicationProtocol())) {
                throw new IllegalStateException("ALPN chose " + ssl.applicationProtocol());
            }
        }
        listener.settings.get(5, TimeUnit.SECONDS);
        return new H2WebSocketClient(ch, h[0], listener);
    }

    /** GOAWAY from the server (its last stream id), when one came. */
    CompletableFuture<Integer> goAway() {
        return listener.goAway;
    }

    /** The server's SETTINGS. */
    Http2Settings serverSettings() {
        return listener.settings.join();
    }

    /** An RFC 8441 request for {@code path} on {@code authority} ({@code scheme} http or https). */
    static Http2Headers extendedConnect(String scheme, String authority, String path) {
        Http2Headers h = new DefaultHttp2Headers(false).method("CONNECT").scheme(scheme).path(path).authority(authority);
        h.set(Http2Headers.PseudoHeaderName.PROTOCOL.value(), "websocket");
        h.set("sec-websocket-version", "13");
        return h;
    }

    /** Opens a stream with {@code headers} (no END_STREAM unless {@code endStream}); returns at once. */
    Tunnel open(Http2Headers headers, boolean endStream) {
        CompletableFuture<Tunnel> opened = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            ChannelHandlerContext ctx = channel.pipeline().context(handler);
            int id = handler.connection().local().incrementAndGetNextStreamId();
            Tunnel t = new Tunnel(id);
            listener.tunnels.put(id, t);
            handler.encoder().writeHeaders(ctx, id, headers, 0, endStream, ctx.newPromise());
            handler.flush(ctx);
            opened.complete(t);
        });
        return opened.join();
    }

    /** Opens a WebSocket on {@code path} and waits for its response head. */
    Tunnel open(String scheme, String authority, String path) throws Exception {
        Tunnel t = open(extendedConnect(scheme, authority, path), false);
        t.head.get(5, TimeUnit.SECONDS);
        return t;
    }

    boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    /** One stream: its response head, the WebSocket messages that came, how it ended. */
    final class Tunnel {
        final int id;
        final CompletableFuture<Http2Headers> head = new CompletableFuture<>();
        /** Completes at the server's END_STREAM (true) or RST_STREAM (false). */
        final CompletableFuture<Boolean> ended = new CompletableFuture<>();
        volatile long resetCode = -1;
        /** Whole messages: String (text), byte[] (binary), Integer (a close frame's code). */
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        /** DATA bytes not yet parsed into a frame (event loop only). */
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
        private final ByteArrayOutputStream fragments = new ByteArrayOutputStream();
        private int fragmentOpcode;
        /** DATA bytes received in all. */
        volatile long received;

        Tunnel(int id) {
            this.id = id;
        }

        int status() throws Exception {
            return Integer.parseInt(head.get(5, TimeUnit.SECONDS).status().toString());
        }

        void sendText(String text) {
            send(0x1, text.getBytes(StandardCharsets.UTF_8), false);
        }

        void sendBinary(byte[] data) {
            send(0x2, data, false);
        }

        /** A close frame with {@code code}; {@code endStream} ends our side of the stream with it. */
        void sendClose(int code, boolean endStream) {
            send(0x8, new byte[] {(byte) (code >> 8), (byte) code}, endStream);
        }

        /** Raw bytes as one DATA frame (for tests of what the tunnel carries). */
        void sendRaw(byte[] bytes, boolean endStream) {
            write(Unpooled.wrappedBuffer(bytes), endStream);
        }

        /** END_STREAM without data: our side of the tunnel is done (a TCP FIN's analogue). */
        void end() {
            write(Unpooled.EMPTY_BUFFER, true);
        }

        /** RST_STREAM CANCEL (a TCP reset's analogue). */
        void reset() {
            channel.eventLoop().execute(() -> {
                ChannelHandlerContext ctx = channel.pipeline().context(handler);
                handler.resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
                handler.flush(ctx);
            });
        }

        Object next() throws InterruptedException {
            Object m = messages.poll(10, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("no message within 10 s on stream " + id + " (received " + received + " bytes)");
            }
            return m;
        }

        boolean endedWithin(long seconds) throws Exception {
            try {
                ended.get(seconds, TimeUnit.SECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            }
        }

        private void send(int opcode, byte[] payload, boolean endStream) {
            ByteBuf frame = Unpooled.buffer(payload.length + 14);
            frame.writeByte(0x80 | opcode);
            if (payload.length < 126) {
                frame.writeByte(0x80 | payload.length);
            } else if (payload.length < 65536) {
                frame.writeByte(0x80 | 126).writeShort(payload.length);
            } else {
                frame.writeByte(0x80 | 127).writeLong(payload.length);
            }
            byte[] mask = new byte[4];
            ThreadLocalRandom.current().nextBytes(mask);
            frame.writeBytes(mask);
            for (int i = 0; i < payload.length; i++) {
                frame.writeByte(payload[i] ^ mask[i & 3]);
            }
            write(frame, endStream);
        }

        private void write(ByteBuf data, boolean endStream) {
            channel.eventLoop().execute(() -> {
                ChannelHandlerContext ctx = channel.pipeline().context(handler);
                handler.encoder().writeData(ctx, id, data, 0, endStream, ctx.newPromise());
                handler.flush(ctx); // also writes what the flow controller held back
            });
        }

        /** Parses every whole server frame (unmasked) in what arrived so far. */
        void onData(ByteBuf data) {
            byte[] b = new byte[data.readableBytes()];
            data.readBytes(b);
            received += b.length;
            pending.writeBytes(b);
            byte[] all = pending.toByteArray();
            int pos = 0;
            while (true) {
                if (all.length - pos < 2) {
                    break;
                }
                int b0 = all[pos] & 0xFF;
                int b1 = all[pos + 1] & 0x7F;
                int header = 2;
                long length = b1;
                if (b1 == 126) {
                    if (all.length - pos < 4) {
                        break;
                    }
                    length = ((all[pos + 2] & 0xFF) << 8) | (all[pos + 3] & 0xFF);
                    header = 4;
                } else if (b1 == 127) {
                    if (all.length - pos < 10) {
                        break;
                    }
                    length = 0;
                    for (int i = 0; i < 8; i++) {
                        length = (length << 8) | (all[pos + 2 + i] & 0xFF);
                    }
                    header = 10;
                }
                boolean masked = (all[pos + 1] & 0x80) != 0; // a client's frame echoed back as it was
                int maskAt = pos + header;
                if (masked) {
                    header += 4;
                }
                if (all.length - pos - header < length) {
                    break;
                }
                byte[] payload = Arrays.copyOfRange(all, pos + header, pos + header + (int) length);
                if (masked) {
                    for (int i = 0; i < payload.length; i++) {
                        payload[i] ^= all[maskAt + (i & 3)];
                    }
                }
                pos += header + (int) length;
                frame(b0, payload);
            }
            pending.reset();
            pending.write(all, pos, all.length - pos);
        }

        private void frame(int b0, byte[] payload) {
            int opcode = b0 & 0x0F;
            boolean fin = (b0 & 0x80) != 0;
            if (opcode == 0x8) {
                messages.add(payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005);
                return;
            }
            if (opcode != 0) {
                fragmentOpcode = opcode;
                fragments.reset();
            }
            fragments.writeBytes(payload);
            if (fin) {
                byte[] whole = fragments.toByteArray();
                messages.add(fragmentOpcode == 0x1 ? new String(whole, StandardCharsets.UTF_8) : whole);
                fragments.reset();
            }
        }
    }

    private static final class Listener extends Http2FrameAdapter {
        final Map<Integer, Tunnel> tunnels = new ConcurrentHashMap<>();
        final CompletableFuture<Http2Settings> settings = new CompletableFuture<>();
        final CompletableFuture<Integer> goAway = new CompletableFuture<>();

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            goAway.complete(lastStreamId);
        }

        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings s) {
            settings.complete(s);
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
            Tunnel t = tunnels.get(streamId);
            if (t == null) {
                return;
            }
            t.head.complete(headers);
            if (endOfStream) {
                t.ended.complete(true);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            int n = data.readableBytes() + padding;
            Tunnel t = tunnels.get(streamId);
            if (t != null) {
                t.onData(data);
                if (endOfStream) {
                    t.ended.complete(true);
                }
            }
            return n;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            Tunnel t = tunnels.get(streamId);
            if (t != null) {
                t.resetCode = errorCode;
                t.head.completeExceptionally(new IllegalStateException("RST_STREAM " + errorCode));
                t.ended.complete(false);
            }
        }
    }
}
