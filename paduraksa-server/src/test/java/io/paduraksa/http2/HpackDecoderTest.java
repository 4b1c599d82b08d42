package io.paduraksa.http2;

import static io.paduraksa.http2.HpackDecoderAppendixCTest.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Conformance of {@link HpackDecoder}, one case per RFC 7541 (and RFC 9113 4.3) requirement, named after its section. */
class HpackDecoderTest {

    private static Http2Violation decode(HpackDecoder d, String hex, CollectingSink sink) {
        ByteBuf b = hex(hex);
        return d.decode(b, b.readerIndex(), b.readableBytes(), Http2FieldValidator.NONE, sink);
    }

    private static Http2Violation decode(String hex) {
        return decode(new HpackDecoder(4096, 16384, false), hex, new CollectingSink());
    }

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("6.1 index 0", "80", Http2Violation.HPACK_INDEX_ZERO),
                Arguments.of("2.3.3 index beyond the static table with an empty dynamic table", "be",
                        Http2Violation.HPACK_INDEX_OUT_OF_RANGE),
                Arguments.of("2.3.3 literal naming an index beyond both tables", "7f00 0161", Http2Violation.HPACK_INDEX_OUT_OF_RANGE),
                Arguments.of("5.1 integer above 2^31-1", "ff ffffffff0f", Http2Violation.HPACK_INTEGER_OVERFLOW),
                Arguments.of("5.1 integer with more than 8 continuation bytes", "ff 808080808080808080 00",
                        Http2Violation.HPACK_INTEGER_OVERFLOW),
                Arguments.of("5.1 block ends inside an integer", "ff 80", Http2Violation.HPACK_TRUNCATED),
                Arguments.of("5.2 string longer than the rest of the block", "00 03 616263 05 6162", Http2Violation.HPACK_TRUNCATED),
                Arguments.of("5.2 block ends before the value", "04", Http2Violation.HPACK_TRUNCATED),
                Arguments.of("5.2 string length over 2^31-1", "00 7f ffffffff0f", Http2Violation.HPACK_INTEGER_OVERFLOW),
                // EOS is 30 ones: 0x3fffffff << 2 -> ff ff ff fc
                Arguments.of("5.2 Huffman string containing EOS", "00 01 61 84 fffffffc", Http2Violation.HPACK_HUFFMAN_EOS),
                // 'a' is 00011 (5 bits): padding 111 is fine; 0x18 pads with 000, 0x1f ff pads with 11 bits of ones
                Arguments.of("5.2 Huffman padding not all ones", "00 01 61 81 18", Http2Violation.HPACK_HUFFMAN_PADDING),
                Arguments.of("5.2 Huffman padding longer than 7 bits", "00 01 61 82 1fff", Http2Violation.HPACK_HUFFMAN_PADDING),
                Arguments.of("4.3.1 (RFC 9113) size update after a field", "82 3f e1 1f", Http2Violation.HPACK_SIZE_UPDATE_NOT_FIRST),
                Arguments.of("6.3 size update above SETTINGS_HEADER_TABLE_SIZE", "3f e2 1f", Http2Violation.HPACK_SIZE_UPDATE_TOO_LARGE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void violation_is_a_connection_compression_error(String rule, String hex, Http2Violation expected) {
        Http2Violation v = decode(hex);
        assertThat(v).as(rule).isEqualTo(expected);
        assertThat(v.code()).isEqualTo(Http2ErrorCodes.COMPRESSION_ERROR);
        assertThat(v.isConnectionError()).isTrue();
    }

    @Test
    void valid_huffman_padding_of_up_to_7_one_bits_is_accepted() {
        CollectingSink sink = new CollectingSink();
        assertThat(decode(new HpackDecoder(4096, 16384, false), "00 01 61 81 1f", sink)).isNull();
        assertThat(sink.fields).containsExactly("a: a");
    }

    @Test
    void s5_1_redundant_zero_continuation_bytes_are_accepted() {
        CollectingSink sink = new CollectingSink();
        // 7-bit prefix 0x7f, then 0 in three bytes: index 127, beyond the tables (so the integer itself decoded)
        assertThat(decode("ff 80 80 00")).isEqualTo(Http2Violation.HPACK_INDEX_OUT_OF_RANGE);
        // 4-bit prefix 0x0f + 0x2d in a redundant two-byte form: static name 60 (via)
        assertThat(decode(new HpackDecoder(4096, 16384, false), "0f ad 00 0178", sink)).isNull();
        assertThat(sink.fields).containsExactly("via: x");
        assertThat(decode(new HpackDecoder(4096, 16384, false), "bd 80", sink))
                .as("a 7-bit prefix below its maximum ends the integer").isEqualTo(Http2Violation.HPACK_INDEX_ZERO);
    }

    @Test
    void s4_2_size_updates_at_the_start_of_a_block_are_applied_in_order() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        CollectingSink sink = new CollectingSink();
        assertThat(decode(d, "4001 61 0162", sink)).isNull();
        assertThat(d.table().length()).isEqualTo(1);
        assertThat(decode(d, "20 3f e1 1f 82", sink)).as("size 0 evicts all, then 4096").isNull();
        assertThat(d.table().length()).isZero();
        assertThat(d.table().capacity()).isEqualTo(4096);
    }

    @Test
    void s4_2_a_lowered_settings_limit_requires_a_size_update_first() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        CollectingSink sink = new CollectingSink();
        d.tableSizeLimit(100);
        assertThat(decode(d, "82", sink)).isEqualTo(Http2Violation.HPACK_SIZE_UPDATE_MISSING);
        d = new HpackDecoder(4096, 16384, false);
        d.tableSizeLimit(100);
        assertThat(decode(d, "3f 45 82", sink)).as("an update to 100 satisfies it").isNull();
        assertThat(decode(d, "3f 46", sink)).as("101 is above the new limit").isEqualTo(Http2Violation.HPACK_SIZE_UPDATE_TOO_LARGE);
    }

    @Test
    void s4_4_an_entry_larger_than_the_table_empties_it() {
        HpackDecoder d = new HpackDecoder(64, 16384, false);
        CollectingSink sink = new CollectingSink();
        assertThat(decode(d, "4001 61 0162", sink)).isNull();
        assertThat(d.table().length()).isEqualTo(1);
        String big = "4001 61 20" + "61".repeat(32);
        assertThat(decode(d, big, sink)).isNull();
        assertThat(d.table().length()).isZero();
        assertThat(sink.fields).last().isEqualTo("a: " + "a".repeat(32));
    }

    @Test
    void s4_4_a_name_referencing_the_entry_it_evicts_is_copied_first() {
        // table of 64: "aaaa: b" (37) is entry 62; adding "aaaa: cc...c" (needs the room) evicts it
        HpackDecoder d = new HpackDecoder(64, 16384, false);
        CollectingSink sink = new CollectingSink();
        assertThat(decode(d, "4004 61616161 0162", sink)).isNull();
        assertThat(decode(d, "7e 10 " + "63".repeat(16), sink)).isNull();
        assertThat(sink.fields).last().isEqualTo("aaaa: " + "c".repeat(16));
        assertThat(HpackDecoderAppendixCTest.table(d.table())).containsExactly("(52) aaaa: " + "c".repeat(16));
    }

    /** Keeps positions only and reads them once the block is done, as the gate reads a request. */
    static final class PositionSink implements HpackFieldSink {
        final List<Object[]> positions = new ArrayList<>();

        @Override
        public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
                int staticIndex) {
            positions.add(new Object[] {name, nameIndex, nameLength, value, valueIndex, valueLength});
        }

        List<String> read() {
            List<String> out = new ArrayList<>();
            for (Object[] p : positions) {
                out.add(((ByteBuf) p[0]).toString((int) p[1], (int) p[2], StandardCharsets.ISO_8859_1) + ": "
                        + ((ByteBuf) p[3]).toString((int) p[4], (int) p[5], StandardCharsets.ISO_8859_1));
            }
            return out;
        }
    }

    @Test
    void positions_into_the_dynamic_table_survive_their_eviction_later_in_the_block() {
        HpackDecoder d = new HpackDecoder(64, 16384, false);
        assertThat(decode(d, "4001 61 0162", new CollectingSink())).isNull(); // a: b
        // indexed 62 (a: b), then an insert that evicts it and reuses its bytes; read after the block
        PositionSink sink = new PositionSink();
        ByteBuf b = hex("be 4001 78 1a " + "79".repeat(26));
        assertThat(d.decode(b, 0, b.readableBytes(), Http2FieldValidator.NONE, sink)).isNull();
        assertThat(sink.read()).containsExactly("a: b", "x: " + "y".repeat(26));
    }

    /** Copies each field at once, as the request and response sinks do, and notes whether it came from the table. */
    static final class CopyingSink implements HpackFieldSink {
        final CollectingSink copies = new CollectingSink();
        final List<Boolean> fromTable = new ArrayList<>();
        private final HpackDecoder decoder;

        CopyingSink(HpackDecoder decoder) {
            this.decoder = decoder;
        }

        @Override
        public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
                int staticIndex) {
            fromTable.add(name == decoder.table().bytes());
            copies.field(name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex);
        }

        @Override
        public boolean copiesFields() {
            return true;
        }
    }

    @Test
    void a_copying_sink_reads_proven_entries_in_the_table_and_gets_them_whole_though_evicted_later_in_the_block() {
        HpackDecoder d = new HpackDecoder(64, 16384, false);
        ByteBuf first = hex("4001 61 0162"); // a: b, checked as a trailer field: proven plain
        assertThat(d.decode(first, 0, first.readableBytes(), Http2FieldValidator.TRAILERS, new CollectingSink())).isNull();
        // indexed 62 (a: b), then an insert that evicts it and reuses its bytes, then the new entry indexed
        ByteBuf b = hex("be 4001 78 1a " + "79".repeat(26) + "be");
        CopyingSink sink = new CopyingSink(d);
        assertThat(d.decode(b, 0, b.readableBytes(), Http2FieldValidator.TRAILERS, sink)).isNull();
        assertThat(sink.copies.fields).containsExactly("a: b", "x: " + "y".repeat(26), "x: " + "y".repeat(26));
        assertThat(sink.fromTable).containsExactly(true, false, true);
        // unproven entries (made without checks) are copied to the scratch area first, as for any sink
        HpackDecoder unchecked = new HpackDecoder(64, 16384, false);
        assertThat(decode(unchecked, "4001 61 0162", new CollectingSink())).isNull();
        CopyingSink other = new CopyingSink(unchecked);
        ByteBuf again = hex("be");
        assertThat(unchecked.decode(again, 0, 1, Http2FieldValidator.TRAILERS, other)).isNull();
        assertThat(other.fromTable).containsExactly(false);
        assertThat(other.copies.fields).containsExactly("a: b");
    }

    /**
     * Huffman strings of every length up to 200 (the decoder reads eight bytes at a time, then the
     * rest byte by byte), of every byte value: decoded back to the input; with EOS's code placed after
     * any symbol, EOS; with a 0 bit in the padding, bad padding.
     */
    @Test
    void huffman_strings_of_every_length_decode_and_fail_as_they_should() {
        SplittableRandom random = new SplittableRandom(20261206);
        byte[] dst = new byte[256];
        for (int length = 0; length <= 200; length++) {
            byte[] text = new byte[length];
            for (int i = 0; i < length; i++) {
                text[i] = (byte) (random.nextInt(3) == 0 ? random.nextInt(256) : 'a' + random.nextInt(26));
            }
            ByteBuf src = Unpooled.wrappedBuffer(text);
            ByteBuf encoded = Unpooled.directBuffer(4 * length + 8);
            try {
                HpackHuffman.encode(encoded, src, 0, length);
                int n = HpackHuffman.decode(encoded, 0, encoded.readableBytes(), dst, 0, dst.length);
                assertThat(n).isEqualTo(length);
                assertThat(Arrays.copyOf(dst, n)).isEqualTo(text);
                if (length > 0 && (HpackHuffman.encodedLength(src, 0, length) * 8 - totalBits(text)) > 0) {
                    // clear the last padding bit: padding must be all ones
                    int last = encoded.writerIndex() - 1;
                    encoded.setByte(last, encoded.getByte(last) & 0xFE);
                    assertThat(HpackHuffman.decode(encoded, 0, encoded.readableBytes(), dst, 0, dst.length))
                            .as("length %d", length).isEqualTo(HpackHuffman.BAD_PADDING);
                }
                // EOS (30 one bits) after the first k symbols
                int k = length == 0 ? 0 : random.nextInt(length + 1);
                ByteBuf withEos = Unpooled.directBuffer(4 * length + 16);
                try {
                    long acc = 0;
                    int bits = 0;
                    for (int i = 0; i <= length; i++) {
                        int sym = i == k ? 256 : i < length ? text[i] & 0xFF : -1;
                        if (sym < 0) {
                            break;
                        }
                        acc = (acc << HpackHuffman.LENGTHS[sym]) | HpackHuffman.CODES[sym];
                        bits += HpackHuffman.LENGTHS[sym];
                        while (bits >= 8) {
                            bits -= 8;
                            withEos.writeByte((int) (acc >>> bits));
                        }
                        if (sym == 256) {
                            break;
                        }
                    }
                    if (bits > 0) {
                        withEos.writeByte((int) ((acc << (8 - bits)) | (0xFF >>> bits)));
                    }
                    assertThat(HpackHuffman.decode(withEos, 0, withEos.readableBytes(), dst, 0, dst.length))
                            .as("EOS after %d of %d", k, length).isEqualTo(HpackHuffman.EOS);
                } finally {
                    withEos.release();
                }
            } finally {
                encoded.release();
            }
        }
    }

    private static int totalBits(byte[] text) {
        int bits = 0;
        for (byte b : text) {
            bits += HpackHuffman.LENGTHS[b & 0xFF];
        }
        return bits;
    }

    @Test
    void positions_of_huffman_strings_stay_valid_until_the_next_block() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        PositionSink sink = new PositionSink();
        ByteBuf b = HpackFieldValidatorBlocks.huffmanBlock("x-one", "first value", "x-two", "second value");
        assertThat(d.decode(b, 0, b.readableBytes(), Http2FieldValidator.NONE, sink)).isNull();
        assertThat(sink.read()).containsExactly("x-one: first value", "x-two: second value");
    }

    @Test
    void s6_5_2_header_list_over_the_limit_is_a_stream_error_after_the_whole_block() {
        HpackDecoder d = new HpackDecoder(4096, 100, false);
        CollectingSink sink = new CollectingSink();
        // two 40-byte values: 32+1+40 each = 73, together 146 > 100; the second is still indexed
        String v = "28" + "76".repeat(40);
        assertThat(decode(d, "4001 61 " + v + "4001 62 " + v, sink)).isEqualTo(Http2Violation.HEADER_LIST_TOO_LARGE);
        assertThat(Http2Violation.HEADER_LIST_TOO_LARGE.isConnectionError()).isFalse();
        assertThat(d.table().length()).as("the table stays in step with the encoder").isEqualTo(2);
        assertThat(decode(d, "be", sink)).isNull();
        assertThat(sink.fields).last().isEqualTo("b: " + "v".repeat(40));
    }

    @Test
    void a_huffman_string_too_large_for_the_scratch_area_is_checked_but_not_stored() {
        HpackDecoder d = new HpackDecoder(64, 100, false);
        ByteBuf block = TestBuffers.buffer();
        block.writeBytes(hex("4001 61"));
        ByteBuf value = TestBuffers.ascii("z".repeat(1000));
        HpackEncoder.string(block, value, 0, 1000, true);
        CollectingSink sink = new CollectingSink();
        assertThat(d.decode(block, 0, block.readableBytes(), Http2FieldValidator.NONE, sink))
                .isEqualTo(Http2Violation.HEADER_LIST_TOO_LARGE);
        assertThat(d.table().length()).isZero();
        block.writerIndex(block.writerIndex() - 1).writeByte(0x00); // now the padding is wrong
        assertThat(d.decode(block, 0, block.readableBytes(), Http2FieldValidator.NONE, sink))
                .isEqualTo(Http2Violation.HPACK_HUFFMAN_PADDING);
    }

    @Test
    void static_names_carry_their_index() {
        CollectingSink sink = new CollectingSink();
        assertThat(decode(new HpackDecoder(4096, 16384, false), "82 0403 2f6162 00 0161 0162", sink)).isNull();
        assertThat(sink.fields).containsExactly(":method: GET", ":path: /ab", "a: b");
        assertThat(sink.staticIndices).containsExactly(2, 4, 0);
    }

    @Test
    void an_empty_block_is_valid() {
        assertThat(decode("")).isNull();
    }
}
