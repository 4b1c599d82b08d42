package io.paduraksa.route;

import io.paduraksa.testing.AllocationAssert;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
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
    })
    void normalisesWithoutAllocating(String kind, String target) {
        int options = kind.startsWith("encoded") ? PathNormalizer.ENCODED_SLASH_DECODE : PathNormalizer.DEFAULT_OPTIONS;
        State string = new State(target, options);
        State ascii = new State(new AsciiString(target), options);
        string.run();
        ascii.run();
        assertThat(ascii.sink).as("same result for String and AsciiString").isEqualTo(string.sink);
        assertThat(string.sink < 0).isEqualTo(kind.startsWith("rejected"));
        AllocationAssert.assertZero("normalise String " + kind, string, State::run);
        AllocationAssert.assertZero("normalise AsciiString " + kind, ascii, State::run);
    }
}
