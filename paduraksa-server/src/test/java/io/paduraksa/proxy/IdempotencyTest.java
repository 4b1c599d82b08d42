package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.paduraksa.http1.AsciiView;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which methods a retry may repeat, whatever text the method arrives as (String, AsciiString, views over heap and direct bytes). */
class IdempotencyTest {
    @ParameterizedTest(name = "{0}: idempotent {1}, HEAD {2}")
    @CsvSource({"GET, true, false", "PUT, true, false", "HEAD, true, true", "TRACE, true, false", "DELETE, true, false",
        "OPTIONS, true, false", "POST, false, false", "PATCH, false, false", "CONNECT, false, false", "get, false, false",
        "head, false, false", "GEt, false, false", "GETS, false, false", "HEAD., false, false", "XET, false, false",
        "OPTIONX, false, false", "DELETF, false, false", "G\u0145T, false, false", "HE\u0141D, false, false"})
    void methodsAreComparedExactlyInEveryForm(String method, boolean idempotent, boolean head) {
        byte[] around = ("<" + method + ">").getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf heap = Unpooled.wrappedBuffer(around);
        ByteBuf direct = Unpooled.directBuffer(around.length).writeBytes(around);
        try {
            List<Function<String, CharSequence>> forms = List.of(s -> s, AsciiString::of,
                    s -> new AsciiView().point(heap, 1, 1 + s.length()), s -> new AsciiView().point(direct, 1, 1 + s.length()));
            for (Function<String, CharSequence> form : forms) {
                CharSequence m = form.apply(method);
                assertThat(Idempotency.isIdempotent(m)).as("%s as %s", method, m.getClass().getSimpleName()).isEqualTo(idempotent);
                assertThat(Idempotency.isHead(m)).as("%s as %s", method, m.getClass().getSimpleName()).isEqualTo(head);
                assertThat(Idempotency.isGet(m)).as("%s as %s", method, m.getClass().getSimpleName()).isEqualTo(method.equals("GET"));
            }
        } finally {
            heap.release();
            direct.release();
        }
    }
}
