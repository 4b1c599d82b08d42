package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class YamlPositionsTest {
    private static final String YAML = """
            # edge
            clusters:
              api.v2:
                destinations: [{url: "http://192.0.2.10:8080"}]
            hosts:
              - names: [www.example.test, "*.example.test"]
                routes:
                  - path: /admin
                    forward: billing
                  - {path: /, forward: api}
            default: {respond: {status: 421}}
            """;

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            hosts[0].routes[0].forward                   | 9  | 18
            hosts[0].names[0]                            | 6  | 13
            hosts[0].names[1]                            | 6  | 31
            hosts[0].names                               | 6  | 12
            hosts[0]                                     | 6  | 5
            hosts                                        | 6  | 3
            hosts[0].routes                              | 8  | 7
            hosts[0].routes[1]                           | 10 | 9
            hosts[0].routes[1].forward                   | 10 | 28
            'clusters["api.v2"].destinations[0].url'     | 4  | 26
            clusters["api.v2"]                           | 4  | 5
            default.respond.status                       | 11 | 29
            hosts[0].routes[1].policies                  | 10 | 9
            hosts[0].routes[7].forward                   | 8  | 7
            hosts[3]                                     | 6  | 3
            listeners[0].address                         | 2  | 1
            ''                                           | 2  | 1
            """)
    void locateGivesTheValueOrItsNearestAncestor(String path, int line, int column) {
        Location at = YamlPositions.scan(YAML).locate(path);

        assertThat(at).isEqualTo(new Location(line, column));
    }

    @Test
    void aSyntaxErrorKeepsThePathsBeforeIt() {
        YamlPositions positions = YamlPositions.scan("hosts:\n  - names: [a.example]\nbroken: \"\n");

        assertThat(positions.locate("hosts[0].names[0]")).isEqualTo(new Location(2, 13));
        assertThat(positions.locate("broken")).as("not recorded: the document's start").isEqualTo(Location.START);
    }

    @Test
    void anEmptyDocumentLocatesAtTheStart() {
        assertThat(YamlPositions.scan("").locate("hosts[0]")).isEqualTo(Location.START);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            hosts[2].routes[0].forward | hosts[2].routes[0]
            hosts[2].routes[0]         | hosts[2].routes
            hosts[2]                   | hosts
            hosts                      | ''
            'clusters["a.b"].timeouts' | clusters["a.b"]
            clusters["a.b"]            | clusters
            'clusters["x\\"]."]'       | clusters
            ''                         | ''
            """)
    void parentStripsOneSegment(String path, String parent) {
        assertThat(YamlPath.parent(path)).isEqualTo(parent);
    }

    @Test
    void keysThatWouldBeAmbiguousAreQuoted() {
        assertThat(YamlPath.key("clusters", "api")).isEqualTo("clusters.api");
        assertThat(YamlPath.key("clusters", "api.v2")).isEqualTo("clusters[\"api.v2\"]");
        assertThat(YamlPath.key("", "hosts")).isEqualTo("hosts");
        assertThat(YamlPath.key("headers", "a\"b")).isEqualTo("headers[\"a\\\"b\"]");
        assertThat(YamlPath.index("hosts", 2)).isEqualTo("hosts[2]");
    }
}
