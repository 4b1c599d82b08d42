package io.paduraksa.proxy.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class PassiveHealthTest {

    @ParameterizedTest
    @CsvSource({"0, 10", "1, 20", "2, 40", "3, 80", "4, 100", "30, 100", "1000, 100"})
    void ejectionDoublesUpToTheMaximum(int previous, long seconds) {
        PassiveHealth p = new PassiveHealth(5, Duration.ofSeconds(10), Duration.ofSeconds(100));
        assertThat(p.ejectionNanos(previous)).isEqualTo(Duration.ofSeconds(seconds).toNanos());
    }

    @Test
    void settingsAreChecked() {
        assertThatThrownBy(() -> new PassiveHealth(0, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .hasMessageContaining("consecutiveFailures must be at least 1");
        assertThatThrownBy(() -> new PassiveHealth(1, Duration.ZERO, Duration.ofSeconds(1)))
                .hasMessageContaining("ejectFor must be positive");
        assertThatThrownBy(() -> new PassiveHealth(1, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("maxEjectFor PT1S must be at least ejectFor PT2S");
    }
}
