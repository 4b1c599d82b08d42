package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.paduraksa.http1.AsciiView;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResponseFieldNamesTest {

    @ParameterizedTest
    @CsvSource({"Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe"})
    void knownNamesInAnyCaseAreTheSharedLowerCaseConstant(String sent) {
        assertThat((Object) ResponseFieldNames.lowerCase(sent)).isSameAs(HttpHeaderNames.CONTENT_TYPE);
        var bytes = Unpooled.copiedBuffer(sent, StandardCharsets.US_ASCII);
        try {
            assertThat((Object) ResponseFieldNames.lowerCase(new AsciiView().point(bytes, 0, bytes.readableBytes())))
                    .isSameAs(HttpHeaderNames.CONTENT_TYPE);
        } finally {
            bytes.release();
        }
    }

    @ParameterizedTest
    @CsvSource({"ETag, etag", "Set-Cookie, set-cookie", "X-Custom-Thing, x-custom-thing", "X-Powered-By, x-powered-by"})
    void everyNameComesBackInLowerCase(String sent, String expected) {
        assertThat(ResponseFieldNames.lowerCase(sent).toString()).isEqualTo(expected);
    }
}
