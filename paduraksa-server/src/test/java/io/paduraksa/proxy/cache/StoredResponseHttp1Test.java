package io.paduraksa.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.config.ResponseHeadersSpec;
import io.paduraksa.snapshot.ResponseHeaderRules;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The HTTP/1.1 block a hit writes in one copy: the same lines the exchange would write field by field, under the hit's rules. */
class StoredResponseHttp1Test {
    private static final ResponseHeaderRules KEEP_ALL = ResponseHeaderRules.compile(ResponseHeadersSpec.EMPTY);
    private static final ResponseHeaderRules NO_DEBUG = ResponseHeaderRules.compile(ResponseHeadersSpec.EMPTY,
            new ResponseHeadersSpec(null, List.of("X-Debug")));

    private static StoredResponse stored(String... fields) {
        AsciiString[] names = new AsciiString[fields.length / 2];
        AsciiString[] values = new AsciiString[fields.length / 2];
        for (int i = 0; i < names.length; i++) {
            names[i] = AsciiString.of(fields[2 * i]);
            values[i] = AsciiString.of(fields[2 * i + 1]);
        }
        return new StoredResponse(200, names, values, null, 0, 0, 0, 60, 0, 0, 10);
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.US_ASCII);
    }

    @Test
    void theBlockIsTheStatusLineWithTheStandardPhraseAndEveryKeptField() {
        StoredResponse r = stored("Content-Type", "text/plain", "X-Debug", "a1", "Cache-Control", "max-age=60");

        assertThat(text(r.http1Lines(KEEP_ALL, false)))
                .isEqualTo("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Debug: a1\r\nCache-Control: max-age=60\r\n");
        assertThat(r.http1Lines(KEEP_ALL, true)).as("encoded once per rules").isSameAs(r.http1Lines(KEEP_ALL, false));
    }

    @Test
    void rulesFromAReloadEncodeTheBlockAgain() {
        StoredResponse r = stored("Content-Type", "text/plain", "X-Debug", "a1");
        r.http1Lines(KEEP_ALL, false);

        assertThat(text(r.http1Lines(NO_DEBUG, false))).isEqualTo("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n");
        assertThat(text(r.http1Lines(KEEP_ALL, false))).contains("X-Debug: a1\r\n");
    }

    @Test
    void aStoredRateLimitFieldLeavesTheBlockOutWhenTheRequestWritesItsOwn() {
        StoredResponse r = stored("RateLimit-Remaining", "9", "Content-Type", "text/plain");

        assertThat(r.http1Lines(KEEP_ALL, true)).isNull();
        assertThat(text(r.http1Lines(KEEP_ALL, false))).contains("RateLimit-Remaining: 9\r\n");
    }
}
