package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.paduraksa.gate.RequestState;
import io.paduraksa.http2.HpackDecoder;
import io.paduraksa.http2.HpackFieldSink;
import io.paduraksa.http2.Http2FieldValidator;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.CompiledFixtures;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An answer's HPACK block: the fixed part encoded once per answer and kept gives the same fields as
 * the same answer built for one request (encoded each time), and each request's own fields follow it.
 */
class Http2AnswerBlockTest {
    private static final long ID = 0x0123456789abcdefL;

    private static List<String> fields(ByteBuf block) {
        List<String> out = new ArrayList<>();
        HpackFieldSink sink = (name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex) ->
                out.add(name.toString(nameIndex, nameLength, StandardCharsets.ISO_8859_1) + ": "
                        + value.toString(valueIndex, valueLength, StandardCharsets.ISO_8859_1));
        assertThat(new HpackDecoder(4096, 16384, false).decode(block, 0, block.readableBytes(), Http2FieldValidator.RESPONSE,
                sink)).isNull();
        return out;
    }

    private static List<String> answer(PrecomputedResponse r, DateHeader date, ForwardingRules forwarding) {
        ByteBuf b = Unpooled.buffer();
        try {
            Http2GateHandler.Http2HeaderBlocks.answer(b, r, date, new RequestState(), forwarding, ID, null);
            return fields(b);
        } finally {
            b.release();
        }
    }

    @Test
    void aKeptEncodingAndAOneShotAnswerGiveTheSameFields() {
        Snapshot snapshot = CompiledFixtures.synthetic();
        ForwardingRules forwarding = snapshot.forwarding();
        DateHeader date = new DateHeader();
        PrecomputedResponse kept = PrecomputedResponse.builder(302).header("Location", "/signed-in")
                .header("Set-Cookie", "a=1; Path=/").header("Cache-Control", "no-store").body("").build(PooledByteBufAllocator.DEFAULT);
        PrecomputedResponse once = PrecomputedResponse.builder(302).header("Location", "/signed-in")
                .header("Set-Cookie", "a=1; Path=/").header("Cache-Control", "no-store").body("").oneShot()
                .build(PooledByteBufAllocator.DEFAULT);
        try {
            List<String> first = answer(kept, date, forwarding);
            assertThat(answer(kept, date, forwarding)).as("from the kept encoding").isEqualTo(first);
            assertThat(answer(once, date, forwarding)).isEqualTo(first);
            assertThat(first.subList(0, 5)).containsExactly(":status: 302", "location: /signed-in", "set-cookie: a=1; Path=/",
                    "cache-control: no-store", "content-length: 0");
            assertThat(first.get(5)).startsWith("date: ").hasSize(6 + DateHeader.LENGTH);
            if (forwarding.echoRequestId()) {
                assertThat(first).last().isEqualTo(forwarding.requestIdHeader() + ": 0123456789abcdef");
            }
        } finally {
            kept.release();
            once.release();
            snapshot.release();
        }
    }
}
