package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Shapes nobody should write still end in located errors, never in another exception. */
class OddInputTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "hosts: [[1]]",
        "hosts: [{names: [{a: 1}]}]",
        "clusters: {a: {destinations: [1]}}",
        "clusters: {a: {destinations: [{url: [x]}]}}",
        "listeners: [{address: [1], protocols: [[h2]]}]",
        "listeners: [{address: \"0.0.0.0:80\", protocols: [h2, h2]}]",
        "policies: {x: null}",
        "policies: {x: {type: [ip]}}",
        "policies: {x: {type: ip, action: forward}}",
        "default: {respond: {status: true, headers: {X: [1], \"bad name\": v}}}",
        "limits: {max_body_size: 1.5, max_headers: 1.0, header_timeout: {a: 1}}",
        "limits: {max_connections: 99999999999999999999}",
        "hosts: 'text'",
        "42",
        "\tlisteners: []",
        "a: [1, 2",
        "? [a, b]\n: c",
        "hosts:\n  - names: [a.example.test]\n    routes:\n      - path: admin\n        drop: maybe",
    })
    void oddInputEndsInLocatedErrors(String yaml) {
        assertThatThrownBy(() -> ConfigLoader.parse("odd.yaml", yaml))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors())
                        .isNotEmpty()
                        .allSatisfy(error -> {
                            assertThat(error.line()).isPositive();
                            assertThat(error.column()).isPositive();
                            assertThat(error.toString()).startsWith("odd.yaml:").doesNotContain("java.", "org.yaml", "com.fasterxml", "\n");
                        }));
    }

    @Test
    void aMissingFileIsAnIoError() {
        assertThatThrownBy(() -> ConfigLoader.load(Path.of("does-not-exist.example.yaml")))
                .isInstanceOf(NoSuchFileException.class);
    }
}
