package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigErrorTest {

    @Test
    void toStringIsFileLineColumnPathProblem() {
        ConfigError error = new ConfigError("edge.yaml", 41, 17, "hosts[2].routes[0].forward",
                "unknown cluster 'billing' (expected one of: api, static)");

        assertThat(error).hasToString(
                "edge.yaml:41:17: hosts[2].routes[0].forward: unknown cluster 'billing' (expected one of: api, static)");
    }

    @Test
    void toStringLeavesOutAnEmptyPath() {
        ConfigError error = new ConfigError("edge.yaml", 1, 1, "", "the file has no configuration");

        assertThat(error).hasToString("edge.yaml:1:1: the file has no configuration");
    }

    @Test
    void exceptionCountsAndListsErrors() {
        ConfigException e = new ConfigException(List.of(
                new ConfigError("edge.yaml", 3, 5, "a", "x"), new ConfigError("edge.yaml", 7, 1, "b", "y")));

        assertThat(e).hasMessage("2 configuration errors\nedge.yaml:3:5: a: x\nedge.yaml:7:1: b: y");
    }
}
