package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TraceParentTest {

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            valid, sampled              | 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 | true
            valid, not sampled          | 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 | true
            later version, extra part   | 01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-ever | true
            later version, same length  | cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 | true
            version ff                  | ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 | false
            version 00 with extra part  | 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x | false
            later version, no dash      | 01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x | false
            upper-case trace id         | 00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01 | false
            upper-case parent id        | 00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01 | false
            upper-case version          | 0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 | false
            all-zero trace id           | 00-00000000000000000000000000000000-00f067aa0ba902b7-01 | false
            all-zero parent id          | 00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01 | false
            trace id too short          | 00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01  | false
            trace id too long           | 00-4bf92f3577b34da6a3ce929d0e0e47361-00f067aa0ba902b7-01 | false
            parent id too short         | 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01  | false
            flags one digit             | 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1  | false
            non-hex flags               | 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g | false
            wrong separator             | 00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 | false
            empty                       | '' | false
            """)
    void parsesOnlyValidTraceparents(String what, String value, boolean valid) {
        assertThat(TraceParent.parse(value, new long[4])).as(what).isEqualTo(valid);
    }

    @ParameterizedTest
    @CsvSource({"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-00000000000000010000000000000000-ffffffffffffffff-00"})
    void writesWhatItParsed(String value) {
        long[] ids = new long[4];
        assertThat(TraceParent.parse(value, ids)).isTrue();
        byte[] out = new byte[TraceParent.LENGTH];
        assertThat(TraceParent.write(out, 0, ids[0], ids[1], ids[2], (int) ids[3])).isEqualTo(TraceParent.LENGTH);
        assertThat(new String(out, StandardCharsets.US_ASCII)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            vendor=abc,other=1 | true
            '' | false
            bad\u0001value | false
            """)
    void tracestateIsPassedWhenItIsVisibleText(String value, boolean usable) {
        assertThat(TraceParent.isUsableState(value)).isEqualTo(usable);
    }
}
