package io.paduraksa.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A view hands out its bytes' array only over a heap buffer; over a direct one it says so without throwing. */
class AsciiViewArrayTest {
    @Test
    void aHeapViewGivesItsArrayAndOffsetADirectOneGivesNone() {
        ByteBuf heap = Unpooled.wrappedBuffer("xx:host.test:yy".getBytes(StandardCharsets.ISO_8859_1), 3, 9);
        ByteBuf direct = Unpooled.directBuffer(16).writeBytes("xx:host.test".getBytes(StandardCharsets.ISO_8859_1));
        try {
            AsciiView v = new AsciiView().point(heap, heap.readerIndex(), heap.readerIndex() + 9);
            assertThat(TextBytes.array(v)).isNotNull();
            assertThat(new String(TextBytes.array(v), TextBytes.offset(v), v.length(), StandardCharsets.ISO_8859_1))
                    .isEqualTo("host.test");
            AsciiView d = new AsciiView().point(direct, 3, 12);
            assertThat(d.array()).isNull();
            assertThat(d.arrayOffset()).isZero();
            assertThat(TextBytes.array(d)).isNull();
            assertThat(new AsciiView().array()).isNull();
            assertThat(new AsciiView().arrayOffset()).isZero();
        } finally {
            heap.release();
            direct.release();
        }
    }

    @Test
    void indexOfSearchesOnlyTheViewedBytes() {
        ByteBuf direct = Unpooled.directBuffer(32).writeBytes("_a_X_Custom_b_".getBytes(StandardCharsets.ISO_8859_1));
        try {
            AsciiView v = new AsciiView().point(direct, 3, 11); // "X_Custom"
            assertThat(v.indexOf('_')).isEqualTo(1);
            assertThat(TextBytes.indexOf(v, '_')).isEqualTo(1);
            assertThat(v.indexOf('b')).as("after the view").isEqualTo(-1);
            assertThat(v.indexOf('a')).as("before the view").isEqualTo(-1);
            assertThat(new AsciiView().point(direct, 5, 11).indexOf('_')).as("none inside").isEqualTo(-1);
            assertThat(v.indexOf('\u015F')).as("a char above 0xFF (its low byte is '_')").isEqualTo(-1);
            assertThat(new AsciiView().indexOf('_')).as("an empty view").isEqualTo(-1);
        } finally {
            direct.release();
        }
    }
}
