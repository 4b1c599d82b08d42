package io.paduraksa.respond;

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
        long id;

        void write(PrecomputedResponse r) {
            ByteBuf out = PooledByteBufAllocator.DEFAULT.ioBuffer(r.http1HeadLength(false) + r.contentLength());
            r.writeHttp1Head(out, date, (id & 1) == 0);
            r.writeBody(out, id++);
            out.release();
        }

        void duplicate() {
            ByteBuf body = plain.retainedBody();
            body.release();
        }
    }

    @Test
    void writingAPlainAnswerIntoAPooledBufferIsZero() {
        AllocationAssert.assertZero("plain answer", new Writer(), w -> w.write(w.plain));
    }

    @Test
    void writingATemplateWithARequestIdIsZero() {
        AllocationAssert.assertZero("template answer", new Writer(), w -> w.write(w.template));
    }

    @Test
    void aRetainedDuplicateOfAPooledBodyIsZero() {
        AllocationAssert.assertZero("retainedDuplicate", new Writer(), Writer::duplicate);
    }
}
