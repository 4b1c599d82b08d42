package io.paduraksa.server.http3;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http3.DefaultHttp3GoAwayFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.server.cycle.DrainEvent;
import io.paduraksa.server.cycle.ListenerServices;
import java.nio.charset.StandardCharsets;

/**
 * The QUIC connection's own handler, after Netty's {@code Http3ServerConnectionHandler}: holds
 * what the connection's request streams share (the listener's services, the client, the limits),
 * counts the open request streams and carries out a stop (RFC 9114 5.2): a {@link DrainEvent}
 * sends GOAWAY naming the first request stream not taken (the highest seen + 4), streams opened
 * after it are rejected (H3_REQUEST_REJECTED, safe for the client to retry), and the connection
 * closes with H3_NO_ERROR once its last stream is done. The server's drain timeout closes what is
 * left. On the connection's event loop.
 */
final class Http3DrainHandler extends ChannelInboundHandlerAdapter {
    private static final byte[] GOING_AWAY = "server stopping".getBytes(StandardCharsets.US_ASCII);
    private final ListenerServices services;
    private final Http3Limits limits;
    private final ClientInfo client;
    private QuicChannel channel;
    /** The highest client-initiated bidirectional stream id seen, or -4 before the first. */
    private long highestStream = -4;
    /** The id our GOAWAY named (streams from it on are refused), or -1 before a stop. */
    private long goAwayId = -1;
    private int openStreams;

    Http3DrainHandler(ListenerServices services, Http3Limits limits, ClientInfo client) {
        this.services = services;
        this.limits = limits;
        this.client = client;
    }

    ListenerServices services() {
        return services;
    }

    Http3Limits limits() {
        return limits;
    }

    ClientInfo client() {
        return client;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = (QuicChannel) ctx.channel();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (services.stopping()) {
            ctx.executor().execute(() -> ctx.pipeline().fireUserEventTriggered(DrainEvent.INSTANCE));
        }
        ctx.fireChannelActive();
    }

    /** A new stream of the client's: a request stream raises the id a GOAWAY would name. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof QuicStreamChannel stream && stream.type() == QuicStreamType.BIDIRECTIONAL
                && stream.streamId() > highestStream) {
            highestStream = stream.streamId();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof DrainEvent) {
            drain();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** Whether a request stream with this id opened after our GOAWAY (it is not processed). */
    boolean refusesStream(long streamId) {
        return goAwayId >= 0 && streamId >= goAwayId;
    }

    void streamOpened() {
        openStreams++;
    }

    void streamClosed() {
        openStreams--;
        if (goAwayId >= 0 && openStreams <= 0) {
            close();
        }
    }

    private void drain() {
        if (goAwayId >= 0 || !channel.isActive()) {
            return;
        }
        goAwayId = highestStream + 4;
        QuicStreamChannel control = Http3.getLocalControlStream(channel);
        if (control != null) {
            control.writeAndFlush(new DefaultHttp3GoAwayFrame(goAwayId));
        }
        if (openStreams <= 0) {
            // Let the GOAWAY leave before the close (both go out with the next packets).
            channel.eventLoop().execute(this::close);
        }
    }

    private void close() {
        if (channel.isActive()) {
            channel.close(true, (int) Http3ErrorCode.H3_NO_ERROR.code(), io.netty.buffer.Unpooled.wrappedBuffer(GOING_AWAY));
        }
    }
}
