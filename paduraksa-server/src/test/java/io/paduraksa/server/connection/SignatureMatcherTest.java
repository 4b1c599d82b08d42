package io.paduraksa.server.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SignatureMatcherTest {

    /**
     * Each case is offered whole, then split after every possible byte: the answer is the same.
     * {@code ~} stands for a NUL byte (the CSV reader drops real ones).
     */
    @ParameterizedTest
    @CsvSource({
            "'',                              1",
            "PROX,                            1",
            "PROXY,                           2",
            "PROXY TCP4 192.0.2.1,            2",
            "PRI * HTTP/2.0,                  0",
            "POST /,                          0",
            "GET / HTTP/1.1,                  0",
            "'\r\n\r\n',                      1",
            "'\r\n\r\nGET',                   0",
            "'\r\n\r\n~\r\nQUIT',        1",
            "'\r\n\r\n~\r\nQUIT\n',      2",
            "'\r\n\r\n~\r\nQUIT\n\u0021', 2",
            "'\u0016\u0003\u0001',            0",
    })
    void answersTheSameHoweverTheBytesAreSplit(String start, int verdict) {
        byte[] bytes = start.replace('~', '\0').getBytes(StandardCharsets.ISO_8859_1);
        for (int split = 0; split <= bytes.length; split++) {
            SignatureMatcher matcher = new SignatureMatcher();
            int first = offer(matcher, bytes, 0, split);
            int answer = first == SignatureMatcher.NEED_MORE ? offer(matcher, bytes, split, bytes.length) : first;
            assertThat(answer).as("split after %d bytes", split).isEqualTo(verdict);
        }
    }

    private static int offer(SignatureMatcher matcher, byte[] bytes, int from, int to) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes, from, to - from);
        try {
            int readerIndex = in.readerIndex();
            int verdict = matcher.offer(in);
            assertThat(in.readerIndex()).isEqualTo(readerIndex);
            return verdict;
        } finally {
            in.release();
        }
    }
}
