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
}
