package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.paduraksa.respond.PrecomputedResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class Http2AnswerHeadersTest {
    static final AsciiString DATE = AsciiString.of("Sun, 06 Nov 1994 08:49:37 GMT");

    final PrecomputedResponse response = PrecomputedResponse.builder(200).header("Content-Type", "text/plain")
            .header("X-Frame-Options", "DENY").body("ok").build(PooledByteBufAllocator.DEFAULT);

    @AfterEach
    void release() {
        response.release();
    }

    @Test
    void listsStatusThenTheAnswersHeadersThenDate() {
        Http2AnswerHeaders h = new Http2AnswerHeaders().of(response, DATE);
        assertThat(entries(h)).containsExactly(":status=200", "content-type=text/plain", "x-frame-options=DENY",
                "content-length=2", "date=" + DATE);
        assertThat(h.size()).isEqualTo(5);
        assertThat(h.status()).hasToString("200");
        assertThat(h.get("x-frame-options")).hasToString("DENY");
        assertThat(h.get("date")).isSameAs(DATE);
        assertThat(h.get("x-other")).isNull();
        assertThat(h.method()).isNull();
    }

    @Test
    void iteratingAgainStartsOverWithTheSameCursor() {
        Http2AnswerHeaders h = new Http2AnswerHeaders().of(response, DATE);
        var first = h.iterator();
        first.next();
        var second = h.iterator();
        assertThat(second).isSameAs(first);
        assertThat(second.next().getKey()).hasToString(":status");
    }

    @Test
    void isReadOnly() {
        Http2AnswerHeaders h = new Http2AnswerHeaders().of(response, DATE);
        assertThatThrownBy(() -> h.add("x-a", "b")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> h.status("500")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> h.iterator().next().setValue("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void netty_s_hpack_encoder_writes_what_its_decoder_reads_back_twice() throws Exception {
        Http2AnswerHeaders h = new Http2AnswerHeaders().of(response, DATE);
        DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
        DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(true);
        for (int i = 0; i < 2; i++) { // the second block uses HPACK's dynamic table
            ByteBuf block = Unpooled.buffer();
            try {
                encoder.encodeHeaders(3, h, block);
                Http2Headers decoded = decoder.decodeHeaders(3, block);
                assertThat(entries(decoded)).isEqualTo(entries(h));
            } finally {
                block.release();
            }
        }
    }

    @Test
    void resetForgetsTheAnswer() {
        Http2AnswerHeaders h = new Http2AnswerHeaders().of(response, DATE);
        h.reset();
        assertThat(h.size()).isZero();
        assertThat(h.iterator().hasNext()).isFalse();
    }

    static List<String> entries(Http2Headers h) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            out.add(e.getKey() + "=" + e.getValue());
        }
        return out;
    }
}
