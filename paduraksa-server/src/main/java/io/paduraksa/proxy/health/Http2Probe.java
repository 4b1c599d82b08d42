package io.paduraksa.proxy.health;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.paduraksa.http2.HpackEncoder;
import io.paduraksa.http2.HpackFieldSink;
import io.paduraksa.http2.HpackStaticTable;
import io.paduraksa.http2.Http2Connection;
import io.paduraksa.http2.Http2Violation;
import java.util.List;

/**
 * The HTTP/2 side of an active health check, on our own codec ({@link Http2Connection}, client
 * role): once the channel is active, the preface, our SETTINGS and one request on stream 1
 * ({@code GET}, the path, {@code :authority}, {@code user-agent}, END_STREAM); the final response
 * head's status goes up the pipeline as a {@link Status} (interim 1xx heads are skipped, RFC 9113
 * 8.1), DATA is credited back and dropped. A stream closed before a head closes the channel (the
 * probe fails as for a closed connection). Over TLS the SslHandler before it holds the writes until
 * the handshake is done. One per probe connection; allocates freely (a check every few seconds).
 */
final class Http2Probe extends ByteToMessageDecoder implements Http2Connection.Handler, HpackFieldSink {
    /** The final status of the probe's response. */
    record Status(int code) {
    }

    private final boolean https;
    private final String authority;
    private final String path;
    private final String userAgent;
    private final Http2Connection connection;
    private ChannelHandlerContext ctx;
    private int status = -1;
    private boolean reported;

    Http2Probe(boolean https, String authority, String path, String userAgent) {
        this.https = https;
        this.authority = authority;
        this.path = path;
        this.userAgent = userAgent;
        this.connection = new Http2Connection(new Http2Connection.Config(false, 1, 16 * 1024, false, 200, 30, 16, 2,
                10_000, 1_000), this);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        connection.start(ctx);
        int slot = connection.openStream();
        ByteBuf b = Unpooled.buffer(128);
        try {
            HpackEncoder.indexed(b, HpackStaticTable.METHOD_GET);
            HpackEncoder.indexed(b, https ? HpackStaticTable.SCHEME_HTTPS : HpackStaticTable.SCHEME_HTTP);
            HpackEncoder.integer(b, 0, 4, HpackStaticTable.AUTHORITY);
            HpackEncoder.text(b, authority);
            HpackEncoder.integer(b, 0, 4, HpackStaticTable.PATH_ROOT);
            HpackEncoder.text(b, path);
            HpackEncoder.literal(b, "user-agent", userAgent);
            connection.writeHeaders(slot, b, 0, b.readableBytes(), true);
        } finally {
            b.release();
        }
        connection.flush();
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        connection.read(in);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        connection.flush();
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connection.channelClosed();
        super.channelInactive(ctx);
    }

    @Override
    public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
            int staticIndex) {
        if (nameLength > 0 && name.getByte(nameIndex) == ':' && valueLength == 3) {
            int code = 0;
            for (int i = 0; i < 3; i++) {
                int c = value.getByte(valueIndex + i);
                code = c >= '0' && c <= '9' && code >= 0 ? code * 10 + (c - '0') : -1;
            }
            status = code;
        }
    }

    @Override
    public HpackFieldSink fields(int slot, boolean trailers) {
        status = -1;
        return this;
    }

    @Override
    public void onHeaders(int slot, int streamId, boolean endStream, Http2Violation violation) {
        if (status >= 100 && status < 200 && !endStream) {
            connection.interim(slot);
            return;
        }
        reported = true;
        ctx.fireChannelRead(new Status(status));
    }

    @Override
    public void onTrailers(int slot) {
    }

    @Override
    public void onData(int slot, ByteBuf buf, int index, int length, boolean endStream) {
        connection.consumed(slot, length);
    }

    @Override
    public void onWritable(int slot) {
    }

    @Override
    public void onWindowUpdate(int slot) {
    }

    @Override
    public void onStreamClosed(int slot, int streamId, long errorCode) {
        if (!reported) {
            ctx.close(); // reset, or ended without a head
        }
    }
}
