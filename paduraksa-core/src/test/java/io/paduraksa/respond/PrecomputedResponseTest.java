package io.paduraksa.respond;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class PrecomputedResponseTest {
    private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    private static String http1(PrecomputedResponse r, DateHeader date, boolean close, long requestId) {
        ByteBuf out = ALLOC.heapBuffer();
        try {
            r.writeHttp1Head(out, date, close);
            assertThat(out.readableBytes()).isEqualTo(r.http1HeadLength(close));
            r.writeBody(out, requestId);
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            out.release();
        }
    }

    /** The head in parts: its fields, then the blank line the writer adds after fields of its own. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theFieldsAreTheHeadWithoutItsBlankLine(boolean close) {
        DateHeader date = new DateHeader();
        PrecomputedResponse r = PrecomputedResponse.builder(404).header("Content-Type", "text/plain").body("no\n").build(ALLOC);
        ByteBuf head = ALLOC.heapBuffer();
        ByteBuf fields = ALLOC.heapBuffer();
        try {
            r.writeHttp1Head(head, date, close);
            r.writeHttp1Fields(fields, date, close, null);
            assertThat(fields.readableBytes()).isEqualTo(r.http1FieldsLength(close, null)).isEqualTo(r.http1HeadLength(close) - 2);
            assertThat(fields.toString(StandardCharsets.US_ASCII) + "\r\n").isEqualTo(head.toString(StandardCharsets.US_ASCII));
        } finally {
            head.release();
            fields.release();
            r.release();
        }
    }

    @Test
    void aTemplatedLocationIsWrittenPerRequestAfterTheFixedHeaders() {
        DateHeader date = new DateHeader();
        PrecomputedResponse r = PrecomputedResponse.builder(301)
                .header("Location", ValueTemplate.compile("https://${host}${request_uri}"))
                .header("Cache-Control", "no-store").body("").build(ALLOC);
        try {
            ValueTemplateTest.Request req = ValueTemplateTest.Request.of("a.test", "/x", "/x?y=1", false);
            ByteBuf out = ALLOC.heapBuffer();
            r.writeHttp1Head(out, date, true, req);
            assertThat(out.readableBytes()).isEqualTo(r.http1HeadLength(true, req));
            assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 301 Moved Permanently\r\n"
                    + "Cache-Control: no-store\r\nContent-Length: 0\r\nLocation: https://a.test/x?y=1\r\nDate: " + date.text()
                    + "\r\nConnection: close\r\n\r\n");
            out.release();
            assertThat(r.templateHeaderIndex()).isZero();
            assertThat(r.headerNames()[0].toString()).isEqualTo("location");
            assertThat(r.headerValues()[0].toString()).isEqualTo("https://${host}${request_uri}");
            ByteBuf plain = ALLOC.heapBuffer();
            try {
                assertThatThrownBy(() -> r.writeHttp1Head(plain, date, false)).isInstanceOf(IllegalStateException.class);
            } finally {
                plain.release();
            }
        } finally {
            r.release();
        }
    }

    /** A protocol writer's encoding is made once per response and kept; another encoder gets its own. */
    @Test
    void anEncodedFormIsMadeOnceAndKept() {
        PrecomputedResponse r = PrecomputedResponse.builder(403).header("Content-Type", "text/plain").body("no\n").build(ALLOC);
        PrecomputedResponse other = PrecomputedResponse.builder(404).body("").build(ALLOC);
        try {
            int[] calls = new int[1];
            Function<PrecomputedResponse, String> encoder = x -> {
                calls[0]++;
                return x.status() + ":" + x.headerNames().length;
            };
            assertThat(r.encoded(encoder)).isEqualTo("403:2");
            String first = r.encoded(encoder);
            assertThat(r.encoded(encoder)).isSameAs(first);
            assertThat(calls[0]).isEqualTo(1);
            assertThat(other.encoded(encoder)).isEqualTo("404:1");
            Function<PrecomputedResponse, String> second = x -> "second " + x.status();
            assertThat(r.encoded(second)).isEqualTo("second 403");
            assertThat(r.encoded(encoder)).isEqualTo("403:2");
            assertThat(calls[0]).isEqualTo(3);
        } finally {
            r.release();
            other.release();
        }
    }

    @Test
    void writesStatusLineHeadersDateAndBody() {
        DateHeader date = new DateHeader();
        PrecomputedResponse r = PrecomputedResponse.builder(403)
                .header("Content-Type", "text/plain; charset=utf-8")
                .header("Cache-Control", "no-store")
                .body("denied\n").build(ALLOC);
        try {
            String wire = http1(r, date, false, 0);
            assertThat(wire).isEqualTo("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    + "Cache-Control: no-store\r\nContent-Length: 7\r\nDate: " + date.text() + "\r\n\r\ndenied\n");
            assertThat(r.contentLength()).isEqualTo(7);
            assertThat(r.statusText().toString()).isEqualTo("403");
            assertThat(r.headerNames()).extracting(Object::toString).containsExactly("content-type", "cache-control", "content-length");
            assertThat(r.headerValues()[2].toString()).isEqualTo("7");
        } finally {
            r.release();
        }
    }

    @Test
    void addsConnectionCloseWhenAsked() {
        DateHeader date = new DateHeader();
        PrecomputedResponse r = PrecomputedResponse.builder(200).body("ok").build(ALLOC);
        try {
            assertThat(http1(r, date, true, 0)).contains("\r\nConnection: close\r\n\r\nok").startsWith("HTTP/1.1 200 OK\r\n");
        } finally {
            r.release();
        }
    }

    @Test
    void fillsTheRequestIdIntoATemplateWithAFixedContentLength() {
        DateHeader date = new DateHeader();
        PrecomputedResponse r = PrecomputedResponse.builder(429).body("slow down, id ${request_id}.").build(ALLOC);
        try {
            assertThat(r.isTemplate()).isTrue();
            String wire = http1(r, date, false, 0x0123456789abcdefL);
            assertThat(wire).endsWith("\r\n\r\nslow down, id 0123456789abcdef.");
            assertThat(wire).contains("Content-Length: " + "slow down, id 0123456789abcdef.".length() + "\r\n");
            assertThatThrownBy(r::retainedBody).isInstanceOf(IllegalStateException.class);
        } finally {
            r.release();
        }
    }

    @Test
    void redirectsCarryLocationAndAnEmptyBody() {
        PrecomputedResponse r = PrecomputedResponse.builder(301).header("Location", "https://example.test/new").build(ALLOC);
        try {
            String wire = http1(r, new DateHeader(), false, 0);
            assertThat(wire).startsWith("HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.test/new\r\nContent-Length: 0\r\n")
                    .endsWith("\r\n\r\n");
        } finally {
            r.release();
        }
    }

    @Test
    void noBodyStatusesHaveNoContentLength() {
        PrecomputedResponse r = PrecomputedResponse.builder(204).build(ALLOC);
        try {
            assertThat(http1(r, new DateHeader(), false, 0)).doesNotContain("Content-Length");
            assertThatThrownBy(() -> PrecomputedResponse.builder(304).body("x")).hasMessageContaining("cannot have a body");
        } finally {
            r.release();
        }
    }

    @Test
    void retainedBodyIsAnIndependentDuplicate() {
        PrecomputedResponse r = PrecomputedResponse.builder(200).body("hello").build(ALLOC);
        try {
            ByteBuf dup = r.retainedBody();
            dup.skipBytes(2);
            dup.release();
            assertThat(r.retainedBody()).satisfies(b -> {
                assertThat(b.toString(StandardCharsets.US_ASCII)).isEqualTo("hello");
                b.release();
            });
        } finally {
            r.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\r\nSet-Cookie: x=1", "line\nbreak", "nul\0", "caf\u00e9"})
    void rejectsHeaderValuesThatCouldSplitTheResponse(String value) {
        assertThatThrownBy(() -> PrecomputedResponse.builder(200).header("X-Test", value)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({"Content-Length", "transfer-encoding", "Connection", "Date", "Bad Name", "'X:Y'"})
    void rejectsServerOwnedAndMalformedHeaderNames(String name) {
        assertThatThrownBy(() -> PrecomputedResponse.builder(200).header(name, "1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsTwoRequestIdPlaceholdersAndBadStatuses() {
        assertThatThrownBy(() -> PrecomputedResponse.builder(200).body("${request_id}${request_id}")).hasMessageContaining("at most once");
        assertThatThrownBy(() -> PrecomputedResponse.builder(99)).hasMessageContaining("expected 100-599");
    }

    @Test
    void dateIsAnImfFixdateOfTheCurrentSecond() {
        DateHeader date = new DateHeader();
        date.refresh(784111777000L);
        assertThat(date.text()).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
        date.refresh(784111777999L);
        assertThat(date.text()).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
        date.refresh(784111778000L);
        assertThat(date.text()).hasSize(DateHeader.LENGTH).isEqualTo("Sun, 06 Nov 1994 08:49:38 GMT");
    }
}
