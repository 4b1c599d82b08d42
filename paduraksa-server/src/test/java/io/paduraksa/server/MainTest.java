package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MainTest {

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource({
        "none, , false",
        "io.netty.leakDetection.level, paranoid, true",
        "io.netty.leakDetection.level, disabled, true",
        "io.netty.leakDetectionLevel, simple, true",
        "io.netty.leakDetection.targetRecords, 4, false",
    })
    void leakDetectionIsOffUnlessTheOperatorChoseALevel(String property, String value, boolean asked) {
        Properties system = new Properties();
        if (value != null) {
            system.setProperty(property, value);
        }
        assertThat(Main.leakDetectionAsked(system)).isEqualTo(asked);
    }
}
