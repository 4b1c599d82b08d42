package io.paduraksa.respond;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.testing.AllocationAssert;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("allocation")
class PrecomputedResponseAllocationTest {

    static final class Writer {
        final DateHeader date = new DateHeader();
        final PrecomputedResponse plain = PrecomputedResponse.builder(403).header("Content-Type", "text/plain").body("denied").build(PooledByteBufAllocator.DEFAULT);
        final PrecomputedResponse template = PrecomputedResponse.builder(429).body("id ${request_id}\n").build(PooledByteBufAllocator.DEFAULT);
        final PrecomputedResponse redirect = PrecomputedResponse.builder(301)
                .header("Location", ValueTemplate.compile("https://${host}${request_uri}")).body("").build(PooledByteBufAllocator.DEFAULT);
        final ValueTemplateTest.Request[] requests = {
            ValueTemplateTest.Request.of("Shop.Example.TEST:8080", "/cart/item 1", "/cart/item%201?id=7&x=<y>", false),
            ValueTemplateTest.Request.of("[2001:db8::1]", "/", "/", true),
        };
        long id;
        /** Calls that wrote a whole answer (status line first, the body's last byte last) or duplicated the body. */
        long done;

        void write(PrecomputedResponse r) {
            ByteBuf out = PooledByteBufAllocator.DEFAULT.ioBuffer(r.http1HeadLength(false) + r.contentLength());
            r.writeHttp1Head(out, date, (id & 1) == 0);
            r.writeBody(out, id++);
            if (out.getByte(0) == 'H' && out.getByte(9) == '0' + r.status() / 100 && out.readableBytes() > r.contentLength()
                    && out.getByte(out.writerIndex() - 1) == (r == plain ? 'd' : '\n')) {
                done++;
            }
            out.release();
        }

        /** A redirect whose Location is filled from the request: sized exactly, then written. */
        void writeRedirect() {
            ValueTemplateTest.Request req = requests[(int) (id++ & 1)];
            int length = redirect.http1HeadLength(false, req);
            ByteBuf out = PooledByteBufAllocator.DEFAULT.ioBuffer(length);
            redirect.writeHttp1Head(out, date, false, req);
            if (out.readableBytes() == length && out.getByte(9) == '3' && out.indexOf(0, length, (byte) '?') > 0 == (req.queryStart > 0)) {
                done++;
            }
            out.release();
        }

        void duplicate() {
            ByteBuf body = plain.retainedBody();
            if (body.readableBytes() == 6) {
                done++;
            }
            body.release();
        }
    }

    @Test
    void writingAPlainAnswerIntoAPooledBufferIsZero() {
        Writer w = new Writer();
        AllocationAssert.Result r = AllocationAssert.assertZero("plain answer", w, x -> x.write(x.plain));
        assertThat(w.done).isEqualTo(w.id).isGreaterThan(r.iterations());
    }

    @Test
    void writingATemplateWithARequestIdIsZero() {
        Writer w = new Writer();
        AllocationAssert.Result r = AllocationAssert.assertZero("template answer", w, x -> x.write(x.template));
        assertThat(w.done).isEqualTo(w.id).isGreaterThan(r.iterations());
    }

    @Test
    void writingARedirectBuiltFromTheRequestIsZero() {
        Writer w = new Writer();
        AllocationAssert.Result r = AllocationAssert.assertZero("templated redirect", w, Writer::writeRedirect);
        assertThat(w.done).isEqualTo(w.id).isGreaterThan(r.iterations());
    }

    @Test
    void aRetainedDuplicateOfAPooledBodyIsZero() {
        Writer w = new Writer();
        AllocationAssert.Result r = AllocationAssert.assertZero("retainedDuplicate", w, Writer::duplicate);
        assertThat(w.done).isGreaterThan(r.iterations());
    }
}
