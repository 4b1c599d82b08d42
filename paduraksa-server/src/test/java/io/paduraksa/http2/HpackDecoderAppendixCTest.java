package io.paduraksa.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RFC 7541 Appendix C, verbatim: every example's bytes, the decoded header list and the dynamic
 * table after it (entries newest first with their sizes, and the table size).
 */
class HpackDecoderAppendixCTest {
    private static final String[] REQUEST_1 = {":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"};
    private static final String[] REQUEST_2 = {":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com",
            "cache-control: no-cache"};
    private static final String[] REQUEST_3 = {":method: GET", ":scheme: https", ":path: /index.html",
            ":authority: www.example.com", "custom-key: custom-value"};
    private static final String[] TABLE_1 = {"(57) :authority: www.example.com"};
    private static final String[] TABLE_2 = {"(53) cache-control: no-cache", "(57) :authority: www.example.com"};
    private static final String[] TABLE_3 = {"(54) custom-key: custom-value", "(53) cache-control: no-cache",
            "(57) :authority: www.example.com"};

    private static final String DATE_1 = "date: Mon, 21 Oct 2013 20:13:21 GMT";
    private static final String DATE_2 = "date: Mon, 21 Oct 2013 20:13:22 GMT";
    private static final String LOCATION = "location: https://www.example.com";
    private static final String COOKIE = "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";
    private static final String[] RESPONSE_1 = {":status: 302", "cache-control: private", DATE_1, LOCATION};
    private static final String[] RESPONSE_2 = {":status: 307", "cache-control: private", DATE_1, LOCATION};
    private static final String[] RESPONSE_3 = {":status: 200", "cache-control: private", DATE_2, LOCATION,
            "content-encoding: gzip", COOKIE};
    private static final String[] RTABLE_1 = {"(63) " + LOCATION, "(65) " + DATE_1, "(52) cache-control: private",
            "(42) :status: 302"};
    private static final String[] RTABLE_2 = {"(42) :status: 307", "(63) " + LOCATION, "(65) " + DATE_1,
            "(52) cache-control: private"};
    private static final String[] RTABLE_3 = {"(98) " + COOKIE, "(52) content-encoding: gzip", "(65) " + DATE_2};

    @Test
    void c21_literal_with_indexing_adds_to_the_table() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        assertBlock(d, "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
                new String[] {"custom-key: custom-header"}, new String[] {"(55) custom-key: custom-header"}, 55);
    }

    @Test
    void c22_literal_without_indexing_leaves_the_table_empty() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        assertBlock(d, "040c 2f73 616d 706c 652f 7061 7468", new String[] {":path: /sample/path"}, new String[0], 0);
    }

    @Test
    void c23_never_indexed_literal_leaves_the_table_empty() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        assertBlock(d, "1008 7061 7373 776f 7264 0673 6563 7265 74", new String[] {"password: secret"}, new String[0], 0);
    }

    @Test
    void c24_indexed_field() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        assertBlock(d, "82", new String[] {":method: GET"}, new String[0], 0);
    }

    @Test
    void c3_requests_without_huffman() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        assertBlock(d, "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", REQUEST_1, TABLE_1, 57);
        assertBlock(d, "8286 84be 5808 6e6f 2d63 6163 6865", REQUEST_2, TABLE_2, 110);
        assertBlock(d, "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65", REQUEST_3, TABLE_3, 164);
    }

    @Test
    void c4_requests_with_huffman() {
        HpackDecoder d = new HpackDecoder(4096, 16384, false);
        assertBlock(d, "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", REQUEST_1, TABLE_1, 57);
        assertBlock(d, "8286 84be 5886 a8eb 1064 9cbf", REQUEST_2, TABLE_2, 110);
        assertBlock(d, "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf", REQUEST_3, TABLE_3, 164);
    }

    @Test
    void c5_responses_without_huffman_evict_from_a_256_byte_table() {
        HpackDecoder d = new HpackDecoder(256, 16384, false);
        assertBlock(d, "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32"
                + "3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", RESPONSE_1, RTABLE_1, 222);
        assertBlock(d, "4803 3330 37c1 c0bf", RESPONSE_2, RTABLE_2, 222);
        assertBlock(d, "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970"
                + "7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61"
                + "6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31", RESPONSE_3, RTABLE_3, 215);
    }

    @Test
    void c6_responses_with_huffman_evict_from_a_256_byte_table() {
        HpackDecoder d = new HpackDecoder(256, 16384, false);
        assertBlock(d, "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad"
                + "1718 63c7 8f0b 97c8 e9ae 82ae 43d3", RESPONSE_1, RTABLE_1, 222);
        assertBlock(d, "4883 640e ffc1 c0bf", RESPONSE_2, RTABLE_2, 222);
        assertBlock(d, "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2"
                + "e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
                RESPONSE_3, RTABLE_3, 215);
    }

    static ByteBuf hex(String hex) {
        return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replace(" ", "")));
    }

    static List<String> table(HpackDynamicTable t) {
        List<String> entries = new ArrayList<>();
        ByteBuf b = t.bytes();
        for (int i = 1; i <= t.length(); i++) {
            int size = t.nameLength(i) + t.valueLength(i) + 32;
            entries.add("(" + size + ") " + b.toString(t.nameStart(i), t.nameLength(i), ISO_8859_1) + ": "
                    + b.toString(t.valueStart(i), t.valueLength(i), ISO_8859_1));
        }
        return entries;
    }

    private static void assertBlock(HpackDecoder d, String hex, String[] fields, String[] entries, int size) {
        ByteBuf block = hex(hex);
        CollectingSink sink = new CollectingSink();
        assertThat(d.decode(block, block.readerIndex(), block.readableBytes(), Http2FieldValidator.NONE, sink)).isNull();
        assertThat(sink.fields).containsExactly(fields);
        assertThat(table(d.table())).containsExactly(entries);
        assertThat(d.table().size()).isEqualTo(size);
    }
}
