package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Durations, sizes and key suggestions, as operators write them. */
class ScalarSyntaxTest {

    @ParameterizedTest
    @CsvSource({
        "250ms, 250", "5s, 5000", "1m, 60000", "2h, 7200000", "1d, 86400000", "1m30s, 90000", "1h2m3s4ms, 3723004",
        "0s, 0", "1s500ms, 1500"
    })
    void durationsParse(String text, long millis) {
        assertThat(DurationText.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "5", "5 s", " 5s", "-1s", "+1s", "5x", "1.5s", "s", "30s1m", "1m1m", "1ms1s", "5S",
        "9999999999999d", "1h 30m"})
    void durationsReject(String text) {
        assertThat(DurationText.parse(text)).isNull();
    }

    @ParameterizedTest
    @CsvSource({"20%, 0.2", "0.2, 0.2", "12.5%, 0.125", "0%, 0.0", "100%, 1.0", "1, 1.0", "0, 0.0", "150%, 1.5"})
    void sharesParseAsPercentOrFraction(String text, double fraction) {
        assertThat(Share.parseOrNull(text).fraction()).isCloseTo(fraction, org.assertj.core.data.Offset.offset(1e-12));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "%", "-5%", "20 %", "20%%", ".5", "5.", "1.2.3", "twenty", "1e-1", "0x10"})
    void sharesReject(String text) {
        assertThat(Share.parseOrNull(text)).isNull();
    }

    @ParameterizedTest
    @CsvSource({"0.2, 20%", "0.125, 12.5%", "1, 100%", "0, 0%"})
    void sharesPrintAsPercent(double fraction, String text) {
        assertThat(new Share(fraction)).hasToString(text);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            budget: 20%        | 0.2
            budget: "20%"      | 0.2
            budget: 0.2        | 0.2
            budget: 1          | 1.0
            budget: 0%         | 0.0
            """)
    void retryBudgetBindsFromPercentOrNumber(String line, double fraction) throws ConfigException {
        String text = "clusters:\n  app:\n    destinations: [{url: \"http://192.0.2.10\"}]\n    retry: {" + line + "}\n";

        assertThat(ConfigLoader.parse("edge.yaml", text).spec().clusters().get("app").retry().budget().fraction())
                .isCloseTo(fraction, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void resolveEveryAloneMayBeZero() throws ConfigException {
        String text = "clusters:\n  app:\n    destinations: [{url: \"http://192.0.2.10\"}]\n    resolve_every: 0s\n";

        assertThat(ConfigLoader.parse("edge.yaml", text).spec().clusters().get("app").resolveEvery()).isZero();
        assertThatThrownBy(() -> ConfigLoader.parse("edge.yaml", text.replace("resolve_every: 0s", "timeouts: {idle: 0s}")))
                .hasMessageContaining("clusters.app.timeouts.idle: found '0s', a duration must be positive");
    }

    @ParameterizedTest
    @CsvSource({"250ms, 250", "1m30s, 90000", "2h, 7200000", "1d1ms, 86400001"})
    void durationsFormatBackToTheirText(String text, long millis) {
        assertThat(DurationText.format(Duration.ofMillis(millis))).isEqualTo(text);
    }

    @ParameterizedTest
    @CsvSource({
        "512, 512", "512B, 512", "64KiB, 65536", "1MiB, 1048576", "2GiB, 2147483648", "1TiB, 1099511627776",
        "1kB, 1000", "1MB, 1000000", "1GB, 1000000000", "1TB, 1000000000000", "0, 0"
    })
    void sizesParse(String text, long bytes) {
        assertThat(DataSize.parse(text)).isEqualTo(DataSize.ofBytes(bytes));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-1", "-1KiB", "1.5MiB", "1 MiB", "10KB", "1kb", "1mb", "1K", "1XiB", "KiB",
        "9999999999TiB", "99999999999999999999"})
    void sizesReject(String text) {
        assertThat(DataSize.parseOrNull(text)).isNull();
        assertThatThrownBy(() -> DataSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(expected a size like 512, 64KiB, 1MiB, 2GiB or 1kB, 1MB, 1GB)");
    }

    @ParameterizedTest
    @CsvSource({"65536, 64KiB", "1048576, 1MiB", "1000, 1000B", "0, 0B", "1536, 1536B"})
    void sizesPrintInTheLargestExactBinaryUnit(long bytes, String text) {
        assertThat(DataSize.ofBytes(bytes)).hasToString(text);
    }

    @Test
    void negativeSizesCannotBeMade() {
        assertThatThrownBy(() -> DataSize.ofBytes(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({
        "polices, policies", "pasive, passive", "trustedProxies, trusted_proxies", "Load-Balancing, load_balancing",
        "fowrard, forward", "listners, listeners"
    })
    void nearestKeySuggestsTypos(String typo, String known) {
        List<String> keys = List.of("names", "policies", "routes", "passive", "active", "trusted_proxies",
                "load_balancing", "forward", "listeners");

        assertThat(NearestKey.of(typo, keys)).isEqualTo(known);
    }

    @ParameterizedTest
    @ValueSource(strings = {"zzz", "x", "certificates"})
    void nearestKeyStaysQuietWhenNothingIsClose(String unknown) {
        assertThat(NearestKey.of(unknown, List.of("names", "policies", "routes"))).isNull();
    }
}
