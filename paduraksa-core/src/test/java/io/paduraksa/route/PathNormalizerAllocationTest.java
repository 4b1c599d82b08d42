package io.paduraksa.route;

import io.paduraksa.testing.AllocationAssert;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class PathNormalizerAllocationTest {

    /** What the server hands over: the whole request-target, the path found by {@link PathNormalizer#pathEnd}. */
    static final class State {
        final CharSequence target;
        final int options;
        final byte[] out = new byte[256];
        long sink;

        State(CharSequence target, int options) {
            this.target = target;
            this.options = options;
        }

        void run() {
            int end = PathNormalizer.pathEnd(target, 0, target.length());
            sink += PathNormalizer.normalize(target, 0, end, out, options);
        }
    }

    @ParameterizedTest(name = "{0} ({1})")
    @CsvSource({
        "clean, /static/css/site.css?v=1712",
        "decode-and-dots, /static/./%61ssets/../img/%7euser/photo%2d1.png?size=l",
        "encoded-slash-decoded, /a/b%2F..%2fc//d/?x",
        "rejected-traversal, /../etc/passwd",
        "rejected-bad-escape, /static/%zz",
        "params-stripped, /a;x/b;y/admin;jsessionid=0123456789ABCDEF?q=1",
        "params-dot-dot, /x/..;/admin;x=1",
        "params-encoded, /x/%2e%2e%3Bx/admin%3bjsessionid=1/",
        "params-kept, /admin;x=1/..;/y",
        "rejected-params, /admin;x=1",
    })
    void normalisesWithoutAllocating(String kind, String target) {
        int options = switch (kind) {
            case "encoded-slash-decoded" -> PathNormalizer.ENCODED_SLASH_DECODE;
            case "params-kept" -> PathNormalizer.PATH_PARAMETERS_KEEP;
            case "rejected-params" -> PathNormalizer.PATH_PARAMETERS_REJECT;
            default -> PathNormalizer.DEFAULT_OPTIONS;
        };
        State string = new State(target, options);
        State ascii = new State(new AsciiString(target), options);
        string.run();
        ascii.run();
        assertThat(ascii.sink).as("same result for String and AsciiString").isEqualTo(string.sink);
        assertThat(string.sink < 0).isEqualTo(kind.startsWith("rejected"));
        if (kind.startsWith("params-") && !kind.equals("params-kept")) {
            // the work was done: the parameters are gone from the output
            assertThat(new String(string.out, 0, (int) string.sink, StandardCharsets.US_ASCII)).doesNotContain(";", "%3B");
        }
        AllocationAssert.assertZero("normalise String " + kind, string, State::run);
        AllocationAssert.assertZero("normalise AsciiString " + kind, ascii, State::run);
    }
}
