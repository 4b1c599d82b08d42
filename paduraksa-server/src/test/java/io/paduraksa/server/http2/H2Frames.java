package io.paduraksa.server.http2;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Settings;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A raw HTTP/2 frame client for protocol-abuse tests: writes whatever frames a test asks for with
 * Netty's {@link DefaultHttp2FrameWriter} (no client-side state machine, no header validation, so
 * malformed and abusive sequences go out as written) and records every frame the server sends with
 * {@link DefaultHttp2FrameReader}. It only answers the server's SETTINGS with an ACK and credits
 * DATA back so answers keep flowing; everything else is the test's to decide.
 */
public final class H2Frames implements AutoCloseable {
    /** One frame from the server; fields that do not apply to its type are 0, null or false. */
    public record Frame(byte type, int streamId, boolean endStream, long errorCode, Http2Headers headers, String data) {
        public boolean isRst() {
            return type == Http2FrameTypes.RST_STREAM;
        }

        public boolean isGoAway() {
            return type == Http2FrameTypes.GO_AWAY;
        }

        public int status() {
            return headers == null || headers.status() == null ? -1 : Integer.parseInt(headers.status().toString());
        }

        @Override
        public String toString() {
            return switch (type) {
                case Http2FrameTypes.HEADERS -> "HEADERS(" + streamId + ", " + headers + (endStream ? ", END_STREAM)" : ")");
                case Http2FrameTypes.DATA -> "DATA(" + streamId + ", " + data.length() + " bytes" + (endStream ? ", END_STREAM)" : ")");
                case Http2FrameTypes.RST_STREAM -> "RST_STREAM(" + streamId + ", " + errorCode + ")";
                case Http2FrameTypes.GO_AWAY -> "GOAWAY(last " + streamId + ", " + errorCode + ", " + data + ")";
                case Http2FrameTypes.SETTINGS -> "SETTINGS" + data;
                default -> "frame type " + type + " on " + streamId;
            };
        }
    }

    /** Marks the end of the connection in {@link #frames}. */
    public static final Frame CLOSED = new Frame((byte) -1, 0, false, 0, null, "closed");

    private final Channel channel;
    private final ChannelHandlerContext ctx;
    private final DefaultHttp2FrameWriter writer;
    private final BlockingQueue<Frame> frames;

    private H2Frames(Channel channel, ChannelHandlerContext ctx, DefaultHttp2FrameWriter writer, BlockingQueue<Frame> frames) {
        this.channel = channel;
        this.ctx = ctx;
        this.writer = writer;
        this.frames = frames;
    }

    /** Connects, sends the preface and {@code settings}; the server's frames are then readable with {@link #next}. */
    public static H2Frames connect(int port, Http2Settings settings) throws Exception {
        BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
        DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter(
                new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, true));
        Reader reader = new Reader(frames, writer, settings);
        Channel ch = new Bootstrap().group(H2Client.LOOP).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("reader", reader);
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        ChannelHandlerContext ctx = ch.pipeline().context("reader");
        return new H2Frames(ch, ctx, writer, frames);
    }

    public static H2Frames connect(int port) throws Exception {
        return connect(port, new Http2Settings());
    }

    /** Request headers (validation off, so names and values go out exactly as given). */
    public static Http2Headers headers(String method, String authority, String path) {
        Http2Headers h = new DefaultHttp2Headers(false);
        if (method != null) {
            h.method(method);
        }
        h.scheme("http");
        if (path != null) {
            h.path(path);
        }
        if (authority != null) {
            h.authority(authority);
        }
        return h;
    }

    public H2Frames headers(int streamId, Http2Headers headers, boolean endStream) {
        return onLoop(() -> writer.writeHeaders(ctx, streamId, headers, 0, endStream, ctx.newPromise()));
    }

    public H2Frames data(int streamId, String body, boolean endStream) {
        return onLoop(() -> writer.writeData(ctx, streamId, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), 0, endStream,
                ctx.newPromise()));
    }

    public H2Frames rst(int streamId, long errorCode) {
        return onLoop(() -> writer.writeRstStream(ctx, streamId, errorCode, ctx.newPromise()));
    }

    /** Any frame, payload as given (e.g. CONTINUATION, which the writer has no method for). */
    public H2Frames frame(byte type, int streamId, Http2Flags flags, byte[] payload) {
        return onLoop(() -> writer.writeFrame(ctx, type, streamId, flags, Unpooled.wrappedBuffer(payload), ctx.newPromise()));
    }

    /** Sends what was written so far. */
    public H2Frames flush() {
        channel.flush();
        return this;
    }

    /** Runs a batch of writes on the channel's event loop (the writer is not thread-safe), then flushes. */
    public H2Frames batch(Runnable writes) {
        onLoop(() -> {
            writes.run();
            return null;
        });
        return flush();
    }

    private H2Frames onLoop(Callable<?> task) {
        if (channel.eventLoop().inEventLoop()) {
            try {
                task.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return this;
        }
        channel.eventLoop().submit(task).syncUninterruptibly();
        return this;
    }

    /** The next frame the server sent, skipping SETTINGS, PING and WINDOW_UPDATE; {@link #CLOSED} at the end; null after 5 s. */
    public Frame next() throws InterruptedException {
        while (true) {
            Frame f = frames.poll(5, TimeUnit.SECONDS);
            if (f == null || f == CLOSED) {
                if (f == CLOSED) {
                    frames.add(CLOSED); // stays the answer for later calls
                }
                return f;
            }
            if (f.type() != Http2FrameTypes.SETTINGS && f.type() != Http2FrameTypes.PING && f.type() != Http2FrameTypes.WINDOW_UPDATE) {
                return f;
            }
        }
    }

    /** The next frame already received, skipping SETTINGS, PING and WINDOW_UPDATE; null when none waits. */
    public Frame poll() {
        for (Frame f; (f = frames.poll()) != null; ) {
            if (f.type() != Http2FrameTypes.SETTINGS && f.type() != Http2FrameTypes.PING && f.type() != Http2FrameTypes.WINDOW_UPDATE) {
                return f;
            }
        }
        return null;
    }

    /** Frames until one on {@code streamId} (or on the connection: GOAWAY, or the close) ends the stream. */
    public List<Frame> untilStreamEnds(int streamId) throws InterruptedException {
        java.util.ArrayList<Frame> seen = new java.util.ArrayList<>();
        while (true) {
            Frame f = next();
            if (f == null) {
                throw new AssertionError("no end of stream " + streamId + " within 5 s; saw " + seen);
            }
            seen.add(f);
            if (f == CLOSED || f.isGoAway() || f.streamId() == streamId && (f.endStream() || f.isRst())) {
                return seen;
            }
        }
    }

    /** Frames until the server closes the connection; fails when it stays open for {@code seconds}. */
    public List<Frame> untilClosed(int seconds) throws InterruptedException {
        java.util.ArrayList<Frame> seen = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            Frame f = frames.poll(100, TimeUnit.MILLISECONDS);
            if (f == CLOSED) {
                return seen;
            }
            if (f != null) {
                seen.add(f);
            }
        }
        throw new AssertionError("connection still open after " + seconds + " s; saw " + seen);
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    /** Decodes the server's frames into the queue; ACKs SETTINGS and credits DATA. */
    private static final class Reader extends ByteToMessageDecoder {
        private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader(false);
        private final BlockingQueue<Frame> frames;
        private final DefaultHttp2FrameWriter writer;
        private final Http2FrameAdapter listener = new Http2FrameAdapter() {
            @Override
            public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
                int n = data.readableBytes() + padding;
                frames.add(new Frame(Http2FrameTypes.DATA, streamId, endOfStream, 0, null, data.toString(StandardCharsets.UTF_8)));
                if (n > 0) {
                    writer.writeWindowUpdate(ctx, 0, n, ctx.newPromise());
                    ctx.flush();
                }
                return n;
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
                frames.add(new Frame(Http2FrameTypes.HEADERS, streamId, endOfStream, 0, headers, null));
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                      short weight, boolean exclusive, int padding, boolean endOfStream) {
                onHeadersRead(ctx, streamId, headers, padding, endOfStream);
            }

            @Override
            public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
                frames.add(new Frame(Http2FrameTypes.RST_STREAM, streamId, false, errorCode, null, null));
            }

            @Override
            public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
                frames.add(new Frame(Http2FrameTypes.SETTINGS, 0, false, 0, null, settings.toString()));
                writer.writeSettingsAck(ctx, ctx.newPromise());
                ctx.flush();
            }

            @Override
            public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
                frames.add(new Frame(Http2FrameTypes.GO_AWAY, lastStreamId, false, errorCode, null, debugData.toString(StandardCharsets.UTF_8)));
            }
        };

        private final Http2Settings settings;

        Reader(BlockingQueue<Frame> frames, DefaultHttp2FrameWriter writer, Http2Settings settings) {
            this.frames = frames;
            this.writer = writer;
            this.settings = settings;
        }

        /** The preface goes out before anything is read, so the SETTINGS ACK can never come first. */
        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            ctx.write(Http2CodecUtil.connectionPrefaceBuf());
            writer.writeSettings(ctx, settings, ctx.newPromise());
            ctx.flush();
            super.channelActive(ctx);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
            reader.readFrame(ctx, in, listener);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            super.channelInactive(ctx);
            frames.add(CLOSED);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a reset by the server ends the connection; the test sees CLOSED
        }
    }
}
