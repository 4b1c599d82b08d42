package io.paduraksa.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Http2Connection} in both roles over an {@link EmbeddedChannel}: raw frames in, raw frames
 * out, the handler's calls recorded. The server role's RFC rules are tested against the running
 * server in {@code Http2ConformanceIT}; here what the IT cannot see: the client role (our own
 * streams, the response head, GOAWAY refusing streams above its last id), credit batching and the
 * credit of bytes a stream held when it was reset.
 */
class Http2ConnectionTest {
    static final Http2Connection.Config CLIENT = new Http2Connection.Config(false, 8, 8192, false, 200, 30, 16, 2,
            10_000, 1_000);
    static final Http2Connection.Config SERVER = new Http2Connection.Config(true, 8, 8192, false, 200, 30, 16, 2,
            10_000, 1_000);

    /** Records the handler's calls; consumes DATA at once unless {@link #hold}. */
    static final class Recorder implements Http2Connection.Handler {
        final List<String> events = new ArrayList<>();
        final CollectingSink sink = new CollectingSink();
        Http2Connection connection;
        boolean hold;
        /** Treat the next response head as interim (an upstream client's 1xx). */
        boolean interim;

        @Override
        public HpackFieldSink fields(int slot, boolean trailers) {
            return sink;
        }

        @Override
        public void onHeaders(int slot, int streamId, boolean endStream, Http2Violation violation) {
            events.add("headers " + streamId + (endStream ? " end" : "") + (violation == null ? "" : " " + violation));
            if (interim) {
                interim = false;
                connection.interim(slot);
            }
        }

        @Override
        public void onTrailers(int slot) {
            events.add("trailers " + connection.streamId(slot));
        }

        @Override
        public void onData(int slot, ByteBuf buf, int index, int length, boolean endStream) {
            events.add("data " + connection.streamId(slot) + " " + length + (endStream ? " end" : ""));
            if (!hold) {
                connection.consumed(slot, length);
            }
        }

        @Override
        public void onWritable(int slot) {
        }

        @Override
        public void onWindowUpdate(int slot) {
        }

        @Override
        public void onStreamClosed(int slot, int streamId, long errorCode) {
            events.add("closed " + streamId + " " + errorCode);
        }

        @Override
        public void onGoAway(int lastStreamId, long errorCode) {
            events.add("goaway " + lastStreamId);
        }
    }

    static final class Driver extends ByteToMessageDecoder {
        final Http2Connection connection;

        Driver(Http2Connection connection) {
            this.connection = connection;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
            super.handlerAdded(ctx);
            connection.start(ctx);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            connection.read(in);
            connection.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            connection.channelClosed();
            super.channelInactive(ctx);
        }
    }

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void closeChannels() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    record Frame(int type, int flags, int stream, ByteBuf payload) {
    }

    EmbeddedChannel channel(Recorder r, Http2Connection.Config config) {
        return channel(r, new Http2Connection(config, r));
    }

    EmbeddedChannel channel(Recorder r, Http2Connection connection) {
        r.connection = connection;
        EmbeddedChannel ch = new EmbeddedChannel(new Driver(r.connection));
        channels.add(ch);
        return ch;
    }

    /** Everything written so far, as frames (the client's preface skipped). */
    static List<Frame> written(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b = ch.readOutbound(); b != null; b = ch.readOutbound()) {
            all.writeBytes(b);
            b.release();
        }
        if (all.readableBytes() >= 24 && all.getByte(0) == 'P') {
            all.skipBytes(24);
        }
        try {
            return frames(all);
        } finally {
            all.release();
        }
    }

    static List<Frame> frames(ByteBuf all) {
        List<Frame> frames = new ArrayList<>();
        while (all.readableBytes() >= 9) {
            int length = all.readUnsignedMedium();
            int type = all.readUnsignedByte();
            int flags = all.readUnsignedByte();
            int stream = all.readInt() & 0x7FFFFFFF;
            byte[] payload = new byte[length];
            all.readBytes(payload);
            frames.add(new Frame(type, flags, stream, Unpooled.wrappedBuffer(payload)));
        }
        return frames;
    }

    static ByteBuf frame(int type, int flags, int stream, ByteBuf payload) {
        ByteBuf b = Unpooled.buffer();
        Http2FrameWriter.frameHeader(b, payload.readableBytes(), type, flags, stream);
        b.writeBytes(payload);
        payload.release();
        return b;
    }

    static void append(ByteBuf in, ByteBuf frame) {
        in.writeBytes(frame);
        frame.release();
    }

    static ByteBuf block(String... nameValues) {
        ByteBuf b = Unpooled.buffer();
        for (int i = 0; i < nameValues.length; i += 2) {
            HpackEncoder.literal(b, nameValues[i], nameValues[i + 1]);
        }
        return b;
    }

    static ByteBuf bytes(int n) {
        return Unpooled.wrappedBuffer(new byte[n]);
    }

    @Test
    void theClientRoleSendsThePrefaceAndSettingsWithPushOff() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, CLIENT);
        ByteBuf first = ch.readOutbound();
        assertThat(first.getByte(0)).isEqualTo((byte) 'P');
        byte[] out = new byte[first.readableBytes()];
        first.readBytes(out);
        first.release();
        ByteBuf copy = Unpooled.wrappedBuffer(out);
        assertThat(copy.readSlice(24).toString(java.nio.charset.StandardCharsets.ISO_8859_1))
                .isEqualTo("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        List<Frame> frames = frames(copy);
        assertThat(frames.get(0).type).isEqualTo(Http2Frames.SETTINGS);
        ByteBuf settings = frames.get(0).payload;
        boolean pushOff = false;
        while (settings.isReadable()) {
            int id = settings.readUnsignedShort();
            long value = settings.readUnsignedInt();
            pushOff |= id == Http2Frames.SETTINGS_ENABLE_PUSH && value == 0;
        }
        assertThat(pushOff).as("SETTINGS_ENABLE_PUSH 0").isTrue();
    }

    @Test
    void theClientRoleOpensOddStreamsAndReadsTheirResponses() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, CLIENT);
        ch.writeInbound(frame(Http2Frames.SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER));
        int a = r.connection.openStream();
        int b = r.connection.openStream();
        assertThat(r.connection.streamId(a)).isEqualTo(1);
        assertThat(r.connection.streamId(b)).isEqualTo(3);
        ByteBuf request = block(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
        r.connection.writeHeaders(a, request, 0, request.readableBytes(), true);
        request.release();
        r.connection.flush();
        assertThat(written(ch)).anyMatch(f -> f.type == Http2Frames.HEADERS && f.stream == 1);

        ch.writeInbound(frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS, 1, block(":status", "200")));
        ch.writeInbound(frame(Http2Frames.DATA, Http2Frames.FLAG_END_STREAM, 1, bytes(2)));
        assertThat(r.events).containsExactly("headers 1", "data 1 2 end", "closed 1 -1");
        assertThat(r.connection.activeStreams()).isEqualTo(1);
    }

    /** Opens stream 1 and sends a GET on it (END_STREAM). */
    static int openAndRequest(Recorder r, EmbeddedChannel ch) {
        int slot = r.connection.openStream();
        ByteBuf request = block(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test");
        r.connection.writeHeaders(slot, request, 0, request.readableBytes(), true);
        request.release();
        r.connection.flush();
        written(ch);
        return slot;
    }

    @Test
    void framesOnAStreamTheClientResetAreIgnored() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, CLIENT);
        ch.writeInbound(frame(Http2Frames.SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER));
        int slot = openAndRequest(r, ch);
        r.connection.resetStream(slot, Http2ErrorCodes.CANCEL); // the client went away
        r.connection.flush();
        written(ch);
        // the response was on its way (RFC 9113 5.1: ignored after our RST_STREAM, not a connection error)
        ch.writeInbound(frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS, 1, block(":status", "200")));
        assertThat(written(ch)).noneMatch(f -> f.type == Http2Frames.GOAWAY);
        assertThat(r.connection.isClosing()).isFalse();
        assertThat(r.connection.openStream()).as("the connection takes new streams").isNotNegative();
        // a stream we never opened still is one
        ch.writeInbound(frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS, 7, block(":status", "200")));
        assertThat(written(ch)).anyMatch(f -> f.type == Http2Frames.GOAWAY);
    }

    @Test
    void anInterimHeadIsFollowedByTheFinalHeadNotTrailers() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, CLIENT);
        ch.writeInbound(frame(Http2Frames.SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER));
        openAndRequest(r, ch);
        r.interim = true;
        ch.writeInbound(frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS, 1, block(":status", "103", "link", "</a.css>")));
        ch.writeInbound(frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS | Http2Frames.FLAG_END_STREAM, 1,
                block(":status", "204")));
        assertThat(r.events).containsExactly("headers 1", "headers 1 end", "closed 1 -1");
        assertThat(r.sink.fields).contains(":status: 103", ":status: 204");
    }

    @Test
    void largerReceiveWindowsGoOutWithThePreface() {
        Recorder r = new Recorder();
        Http2Connection c = new Http2Connection(CLIENT, r);
        c.receiveWindows(1 << 20, 16 << 20);
        EmbeddedChannel ch = channel(r, c);
        List<Frame> frames = written(ch);
        ByteBuf settings = frames.get(0).payload;
        long initialWindow = -1;
        while (settings.isReadable()) {
            int id = settings.readUnsignedShort();
            long value = settings.readUnsignedInt();
            initialWindow = id == Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE ? value : initialWindow;
        }
        assertThat(initialWindow).isEqualTo(1 << 20);
        assertThat(frames.get(1).type).isEqualTo(Http2Frames.WINDOW_UPDATE);
        assertThat(frames.get(1).stream).isZero();
        assertThat(frames.get(1).payload.getInt(0)).isEqualTo((16 << 20) - 65_535);
        // a stream may now receive more than the default window without an error, nothing credited yet
        r.hold = true;
        ch.writeInbound(frame(Http2Frames.SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER));
        openAndRequest(r, ch);
        ch.writeInbound(frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS, 1, block(":status", "200")));
        for (int i = 0; i < 8; i++) {
            ch.writeInbound(frame(Http2Frames.DATA, 0, 1, bytes(16_000)));
        }
        assertThat(written(ch)).noneMatch(f -> f.type == Http2Frames.RST_STREAM || f.type == Http2Frames.GOAWAY);
        assertThat(r.events).contains("data 1 16000").doesNotContain("closed 1 " + Http2ErrorCodes.FLOW_CONTROL_ERROR);
    }

    @Test
    void aGoAwayEndsTheClientsStreamsAboveItsLastIdAsRefused() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, CLIENT);
        ch.writeInbound(frame(Http2Frames.SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER));
        r.connection.openStream();
        r.connection.openStream();
        ByteBuf goAway = Unpooled.buffer().writeInt(1).writeInt(Http2ErrorCodes.NO_ERROR);
        ch.writeInbound(frame(Http2Frames.GOAWAY, 0, 0, goAway));
        assertThat(r.events).containsExactly("goaway 1", "closed 3 " + Http2ErrorCodes.REFUSED_STREAM);
        assertThat(r.connection.openStream()).as("no new stream after GOAWAY").isEqualTo(-1);
    }

    @Test
    void thePeersMaxConcurrentStreamsBoundsOurStreams() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, CLIENT);
        ByteBuf one = Unpooled.buffer().writeShort(Http2Frames.SETTINGS_MAX_CONCURRENT_STREAMS).writeInt(1);
        ch.writeInbound(frame(Http2Frames.SETTINGS, 0, 0, one));
        assertThat(r.connection.openStream()).isNotNegative();
        assertThat(r.connection.openStream()).isEqualTo(-1);
    }

    @Test
    void creditGoesBackOncePerHalfWindowNotPerFrame() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, SERVER);
        ByteBuf in = Unpooled.buffer().writeBytes(Http2Frames.CLIENT_PREFACE);
        append(in, frame(Http2Frames.SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER));
        append(in, frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS, 1,
                block(":method", "POST", ":scheme", "http", ":path", "/", ":authority", "a.test")));
        for (int i = 0; i < 8; i++) {
            ByteBuf f = frame(Http2Frames.DATA, 0, 1, bytes(5_000));
            in.writeBytes(f);
            f.release();
        }
        ch.writeInbound(in);
        List<Frame> updates = written(ch).stream().filter(f -> f.type == Http2Frames.WINDOW_UPDATE).toList();
        assertThat(updates).extracting(Frame::stream).containsExactlyInAnyOrder(0, 1);
        assertThat(updates).allMatch(f -> f.payload.getInt(0) == 35_000);
    }

    @Test
    void bytesAStreamHeldAreCreditedToTheConnectionWhenItIsReset() {
        Recorder r = new Recorder();
        r.hold = true; // like a forwarded body the upstream has not taken yet
        EmbeddedChannel ch = channel(r, SERVER);
        ByteBuf in = Unpooled.buffer().writeBytes(Http2Frames.CLIENT_PREFACE);
        append(in, frame(Http2Frames.SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER));
        append(in, frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS, 1,
                block(":method", "POST", ":scheme", "http", ":path", "/", ":authority", "a.test")));
        for (int i = 0; i < 8; i++) {
            ByteBuf f = frame(Http2Frames.DATA, 0, 1, bytes(5_000));
            in.writeBytes(f);
            f.release();
        }
        ch.writeInbound(in);
        assertThat(written(ch)).noneMatch(f -> f.type == Http2Frames.WINDOW_UPDATE);
        ch.writeInbound(frame(Http2Frames.RST_STREAM, 0, 1, Unpooled.buffer().writeInt(Http2ErrorCodes.CANCEL)));
        List<Frame> updates = written(ch).stream().filter(f -> f.type == Http2Frames.WINDOW_UPDATE).toList();
        assertThat(updates).singleElement().satisfies(f -> {
            assertThat(f.stream).isZero();
            assertThat(f.payload.getInt(0)).isEqualTo(40_000);
        });
        assertThat(r.events).contains("closed 1 " + Http2ErrorCodes.CANCEL);
    }

    @Test
    void dataWaitsForTheWindowAndGoesWhenItOpens() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(r, SERVER);
        ByteBuf in = Unpooled.buffer().writeBytes(Http2Frames.CLIENT_PREFACE);
        ByteBuf zero = Unpooled.buffer().writeShort(Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE).writeInt(0);
        append(in, frame(Http2Frames.SETTINGS, 0, 0, zero));
        append(in, frame(Http2Frames.HEADERS, Http2Frames.FLAG_END_HEADERS | Http2Frames.FLAG_END_STREAM, 1,
                block(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.test")));
        ch.writeInbound(in);
        written(ch);
        r.connection.writeData(0, Unpooled.wrappedBuffer(new byte[100]), true);
        r.connection.flush();
        assertThat(written(ch)).noneMatch(f -> f.type == Http2Frames.DATA);
        assertThat(r.connection.isWritable(0)).isFalse();
        assertThat(r.connection.blockedSince(0)).as("the send clock runs").isNotZero();
        ch.writeInbound(frame(Http2Frames.WINDOW_UPDATE, 0, 1, Unpooled.buffer().writeInt(60)));
        ch.writeInbound(frame(Http2Frames.WINDOW_UPDATE, 0, 1, Unpooled.buffer().writeInt(40)));
        List<Frame> data = written(ch).stream().filter(f -> f.type == Http2Frames.DATA).toList();
        assertThat(data).extracting(f -> f.payload.readableBytes()).containsExactly(60, 40);
        assertThat(data.get(1).flags & Http2Frames.FLAG_END_STREAM).isEqualTo(Http2Frames.FLAG_END_STREAM);
        assertThat(r.events).endsWith("closed 1 -1");
    }
}
