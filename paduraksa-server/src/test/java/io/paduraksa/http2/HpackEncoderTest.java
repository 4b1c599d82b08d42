package io.paduraksa.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link HpackEncoder} and {@link HpackHuffman}: the encodings RFC 7541
 * prescribes, checked byte for byte where the RFC gives them, and decoded back by our decoder and by
 * Netty's.
 */
class HpackEncoderTest {
    private static ByteBuf ascii(String s) {
        return TestBuffers.ascii(s);
    }

    @Test
    void c1_integers_as_in_appendix_c1() {
        ByteBuf out = TestBuffers.buffer();
        HpackEncoder.integer(out, 0, 5, 10);
        assertThat(ByteBufUtil.hexDump(out)).as("C.1.1").isEqualTo("0a");
        out.clear();
        HpackEncoder.integer(out, 0, 5, 1337);
        assertThat(ByteBufUtil.hexDump(out)).as("C.1.2").isEqualTo("1f9a0a");
        out.clear();
        HpackEncoder.integer(out, 0, 8, 42);
        assertThat(ByteBufUtil.hexDump(out)).as("C.1.3").isEqualTo("2a");
    }

    @Test
    void c4_1_huffman_string_as_in_appendix_c4() {
        ByteBuf out = TestBuffers.buffer();
        ByteBuf s = ascii("www.example.com");
        HpackEncoder.string(out, s, 0, s.readableBytes(), true);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("8cf1e3c2e5f23a6ba0ab90f4ff");
    }

    @Test
    void a_static_field_is_one_index_and_a_static_name_is_indexed() {
        ByteBuf out = TestBuffers.buffer();
        ByteBuf n = ascii(":method");
        ByteBuf v = ascii("GET");
        HpackEncoder.field(out, n, 0, 7, v, 0, 3, false);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("82");
        out.clear();
        ByteBuf path = ascii(":path");
        ByteBuf sample = ascii("/sample/path");
        HpackEncoder.field(out, path, 0, 5, sample, 0, sample.readableBytes(), false);
        assertThat(ByteBufUtil.hexDump(out)).as("C.2.2").isEqualTo("040c2f73616d706c652f70617468");
    }

    @Test
    void huffman_round_trips_every_byte_value() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 2000; i++) {
            byte[] bytes = new byte[random.nextInt(64)];
            for (int k = 0; k < bytes.length; k++) {
                bytes[k] = (byte) random.nextInt(256);
            }
            ByteBuf src = Unpooled.wrappedBuffer(bytes);
            ByteBuf enc = TestBuffers.buffer();
            HpackHuffman.encode(enc, src, 0, bytes.length);
            assertThat(enc.readableBytes()).isEqualTo(HpackHuffman.encodedLength(src, 0, bytes.length));
            byte[] dst = new byte[bytes.length];
            assertThat(HpackHuffman.decode(enc, 0, enc.readableBytes(), dst, 0, dst.length)).isEqualTo(bytes.length);
            assertThat(dst).isEqualTo(bytes);
        }
    }

    @Test
    void a_precomputed_block_decodes_to_its_fields_with_ours_and_with_netty() throws Exception {
        for (boolean huffman : new boolean[] {false, true}) {
            ByteBuf b = TestBuffers.fieldBlock(huffman, ":status", "403", "content-type", "text/html; charset=utf-8",
                    "cache-control", "no-store", "x-paduraksa", "denied by policy");
            try {
                CollectingSink sink = new CollectingSink();
                assertThat(new HpackDecoder(4096, 16384, false).decode(b, b.readerIndex(), b.readableBytes(),
                        Http2FieldValidator.RESPONSE, sink)).isNull();
                assertThat(sink.fields).containsExactly(":status: 403", "content-type: text/html; charset=utf-8",
                        "cache-control: no-store", "x-paduraksa: denied by policy");
                Http2Headers netty = new DefaultHttp2HeadersDecoder(true).decodeHeaders(1, b.duplicate());
                assertThat(Http2DifferentialTest.nettyFields(netty)).isEqualTo(String.join("\n", sink.fields));
            } finally {
                b.release();
            }
        }
    }

    @Test
    void an_answer_with_status_200_is_one_byte() {
        ByteBuf b = TestBuffers.fieldBlock(true, ":status", "200");
        try {
            assertThat(ByteBufUtil.hexDump(b)).isEqualTo("88");
        } finally {
            b.release();
        }
    }

    @Test
    void a_block_over_the_frame_size_goes_out_as_headers_and_continuation() {
        ByteBuf block = TestBuffers.buffer();
        ByteBuf value = ascii("v".repeat(40_000));
        ByteBuf name = ascii("x-big");
        HpackEncoder.field(block, name, 0, 5, value, 0, 40_000, false);
        ByteBuf out = TestBuffers.buffer();
        Http2FrameWriter.headers(out, 1, block, 0, block.readableBytes(), true, 16384);
        assertThat(out.readableBytes()).isEqualTo(Http2FrameWriter.headersSize(block.readableBytes(), 16384));
        RecordingFrameListener listener = new RecordingFrameListener();
        listener.decoder = new HpackDecoder(4096, 65536, false);
        new Http2FrameReader(65536).read(out, listener);
        assertThat(listener.events).containsExactly("HEADERS 1 pad=0 end=true x-big: " + "v".repeat(40_000));
    }
}
