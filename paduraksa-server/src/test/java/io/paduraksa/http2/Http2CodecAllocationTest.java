package io.paduraksa.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.paduraksa.testing.AllocationAssert;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Steady state of the codec, 0 B per call: a browser request's HEADERS frame read, HPACK-decoded
 * (Huffman and dynamic table), validated and handed over as positions; a DATA frame read; a
 * precomputed answer (HEADERS from a field block encoded once and a DATA frame) written into a
 * pooled buffer. The inbound buffer is pooled, as on a server, and refilled per call. The positive
 * control measures Netty's HPACK decoder on the same block, which must allocate.
 */
@Tag("allocation")
class Http2CodecAllocationTest {
    private static final String[] PATHS = {"/", "/index.html", "/static/app.js?v=12", "/api/v1/items/42"};

    /** The connection-side state a server would hold, and the consumer of the fields (positions only). */
    static final class Connection implements Http2FrameListener, HpackFieldSink {
        final Http2FrameReader reader = new Http2FrameReader(20480);
        final HpackDecoder decoder = new HpackDecoder(4096, 16384, false);
        final ByteBuf inbound = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        final ByteBuf[] frames;
        final ByteBuf data;
        int next;
        int fields;
        int pathLength;
        long dataBytes;
        Http2Violation failure;

        Connection(ByteBuf[] frames, ByteBuf data) {
            this.frames = frames;
            this.data = data;
        }

        void readOne(ByteBuf frame) {
            inbound.clear();
            inbound.writeBytes(frame, frame.readerIndex(), frame.readableBytes());
            reader.read(inbound, this);
            if (failure != null || inbound.isReadable()) {
                throw new IllegalStateException("decoding failed: " + failure);
            }
        }

        @Override
        public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
                int staticIndex) {
            fields++;
            if (staticIndex == HpackStaticTable.PATH_ROOT) {
                pathLength = valueLength;
            }
        }

        @Override
        public void onHeaders(int streamId, ByteBuf block, int index, int length, int padding, boolean endStream,
                int dependency, int weight) {
            Http2Violation v = decoder.decode(block, index, length, Http2FieldValidator.REQUEST, this);
            if (v != null) {
                failure = v;
            }
        }

        @Override
        public void onData(int streamId, ByteBuf buf, int index, int length, int padding, boolean endStream) {
            dataBytes += length + padding;
        }

        @Override
        public void onPriority(int streamId, int dependency, int weight) {
        }

        @Override
        public void onRstStream(int streamId, long errorCode) {
        }

        @Override
        public void onSetting(int id, long value) {
        }

        @Override
        public void onSettingsEnd() {
        }

        @Override
        public void onSettingsAck() {
        }

        @Override
        public void onPushPromise(int streamId, int promisedStreamId, ByteBuf block, int index, int length, int padding) {
        }

        @Override
        public void onPing(long data, boolean ack) {
        }

        @Override
        public void onGoAway(int lastStreamId, long errorCode, ByteBuf debug, int index, int length) {
        }

        @Override
        public void onWindowUpdate(int streamId, int increment) {
        }

        @Override
        public void onStreamError(int streamId, Http2Violation violation) {
            failure = violation;
        }

        @Override
        public void onConnectionError(Http2Violation violation) {
            failure = violation;
        }

        void close() {
            inbound.release();
        }
    }

    private static Connection browserConnection() {
        ByteBuf[] frames = new ByteBuf[PATHS.length];
        for (int i = 0; i < PATHS.length; i++) {
            frames[i] = BrowserRequest.headersFrame(BrowserRequest.laterBlock(PATHS[i]), 2 * i + 1);
        }
        ByteBuf data = TestBuffers.buffer();
        Http2FrameWriter.data(data, 1, Unpooled.wrappedBuffer(new byte[1024]), 0, 1024, false);
        Connection c = new Connection(frames, data);
        c.readOne(BrowserRequest.headersFrame(BrowserRequest.firstBlock(), 1));
        return c;
    }

    @Test
    void decoding_a_browser_request_headers_frame_allocates_nothing() {
        Connection c = browserConnection();
        try {
            AllocationAssert.assertZero("HEADERS frame -> HPACK -> validation -> positions", c, s -> {
                s.readOne(s.frames[s.next]);
                s.next = (s.next + 1) & 3;
            });
            assertThat(c.fields).isGreaterThan(0);
            assertThat(c.pathLength).isGreaterThan(0);
        } finally {
            c.close();
        }
    }

    @Test
    void reading_a_data_frame_allocates_nothing() {
        Connection c = browserConnection();
        try {
            AllocationAssert.assertZero("DATA frame", c, s -> s.readOne(s.data));
            assertThat(c.dataBytes).isGreaterThan(0);
        } finally {
            c.close();
        }
    }

    /** A gate answer: precomputed HEADERS block and body, copied into one pooled outbound buffer. */
    static final class Answer {
        final ByteBuf headers = TestBuffers.fieldBlock(true, ":status", "403",
                "content-type", "text/plain; charset=utf-8", "cache-control", "no-store");
        final ByteBuf body = PooledByteBufAllocator.DEFAULT.directBuffer(64).writeBytes(new byte[20]);
        int streamId = 1;
        long written;
        /**
         * A buffer of the measuring thread's arena kept alive, as an event loop always has some (its
         * cumulation, the outbound queue). Without it the arena's only chunk empties every time the
         * thread cache is trimmed (every 8,192 allocations) and is destroyed, and the next allocation
         * builds a new one on the heap (27 KB seen here): the allocator's housekeeping, not ours.
         */
        ByteBuf pin;
    }

    @Test
    void writing_a_precomputed_answer_allocates_nothing() {
        Answer a = new Answer();
        try {
            AllocationAssert.assertZero("precomputed HEADERS + DATA", a, s -> {
                if (s.pin == null) {
                    s.pin = PooledByteBufAllocator.DEFAULT.directBuffer(256);
                }
                ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(256);
                Http2FrameWriter.headers(out, s.streamId, s.headers, s.headers.readerIndex(), s.headers.readableBytes(),
                        false, 16384);
                Http2FrameWriter.data(out, s.streamId, s.body, 0, s.body.readableBytes(), true);
                s.written += out.readableBytes();
                out.release();
                s.streamId = s.streamId + 2 & 0x7FFFFFFF | 1;
            });
            assertThat(a.written).isGreaterThan(0);
        } finally {
            if (a.pin != null) {
                a.pin.release();
            }
            a.headers.release();
            a.body.release();
        }
    }

    /** Positive control: the measurement sees what Netty's HpackDecoder allocates for the same block. */
    static final class NettyDecoder {
        final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(true, 16384);
        final ByteBuf[] blocks = new ByteBuf[PATHS.length];
        int next;
        int fields;
    }

    @Test
    void control_netty_hpack_decoder_allocates_per_block() throws Exception {
        NettyDecoder n = new NettyDecoder();
        n.decoder.decodeHeaders(1, BrowserRequest.firstBlock());
        for (int i = 0; i < PATHS.length; i++) {
            n.blocks[i] = BrowserRequest.laterBlock(PATHS[i]);
        }
        AllocationAssert.Result r = AllocationAssert.measure("Netty HpackDecoder", n, s -> {
            ByteBuf b = s.blocks[s.next];
            s.fields += s.decoder.decodeHeaders(1, b.duplicate()).size();
            s.next = (s.next + 1) & 3;
        }, 20_000, 5_000);
        System.out.println(r);
        assertThat(r.bytesPerCall()).as("Netty allocates per decoded block").isGreaterThan(500);
    }
}
