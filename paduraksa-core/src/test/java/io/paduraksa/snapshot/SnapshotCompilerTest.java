package io.paduraksa.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.testing.CompiledFixtures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class SnapshotCompilerTest {

    private static final String HEAD = """
            clusters:
              app:
                destinations: [{url: "http://127.0.0.1:9001"}]
            policies:
              office: {type: ip, allow: [192.0.2.0/24]}
            """;

    private static List<ConfigError> errorsOf(String yaml) {
        try {
            Snapshot s = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", yaml), PooledByteBufAllocator.DEFAULT);
            s.release();
            throw new AssertionError("expected configuration errors");
        } catch (ConfigException e) {
            return e.errors();
        }
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("unknown cluster", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes:
                              - {path: /, forward: billing}
                        """, "hosts[0].routes[0].forward", 9, "unknown cluster 'billing' (expected one of: app)"),
                Arguments.of("unknown policy", HEAD + """
                        hosts:
                          - names: [a.test]
                            policies: [office, bad-bots]
                            routes: [{path: /, forward: app}]
                        """, "hosts[0].policies[1]", 8, "unknown policy 'bad-bots' (expected one of: office)"),
                Arguments.of("case-folded duplicate host", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes: [{path: /, forward: app}]
                          - names: [A.TEST.]
                            routes: [{path: /, forward: app}]
                        """, "hosts[1].names[0]", 9, "a.test"),
                Arguments.of("IDN duplicate host", HEAD + """
                        hosts:
                          - names: ["bücher.test"]
                            routes: [{path: /, forward: app}]
                          - names: [xn--bcher-kva.test]
                            routes: [{path: /, forward: app}]
                        """, "hosts[1].names[0]", 9, "xn--bcher-kva.test"),
                Arguments.of("duplicate wildcard", HEAD + """
                        hosts:
                          - names: ["*.w.test", "*.W.test"]
                            routes: [{path: /, forward: app}]
                        """, "hosts[0].names[1]", 7, "w.test"),
                Arguments.of("same IPv6 literal twice", HEAD + """
                        hosts:
                          - names: ["[2001:db8::1]", "[2001:DB8:0::1]"]
                            routes: [{path: /, forward: app}]
                        """, "hosts[0].names[1]", 7, "2001:db8::1"),
                Arguments.of("bad CIDR", HEAD + """
                          bad: {type: ip, deny: [192.0.2.0/24, 10.0.0.0/33]}
                        hosts: []
                        """, "policies.bad.deny[1]", 6, "10.0.0.0/33"),
                Arguments.of("two actions", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes:
                              - {path: /, forward: app, respond: {status: 200}}
                        """, "hosts[0].routes[0]", 9, "more than one action"),
                Arguments.of("no action", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes:
                              - {path: /}
                        """, "hosts[0].routes[0]", 9, "no action"),
                Arguments.of("redirect status", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes:
                              - {path: /, redirect: {location: /x, status: 200}}
                        """, "hosts[0].routes[0].redirect.status", 9, "(expected one of: 301, 302, 303, 307, 308)"),
                Arguments.of("header injection", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes:
                              - {path: /, respond: {status: 200, headers: {X-A: "a\\r\\nSet-Cookie: x=1"}}}
                        """, "hosts[0].routes[0].respond.headers.X-A", 9, "line break"),
                Arguments.of("policy that forwards", HEAD + """
                          fwd: {type: method, allow: [GET], action: {forward: app}}
                        hosts: []
                        """, "policies.fwd.action.forward", 6, "cannot forward"),
                Arguments.of("non-normal route prefix", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes:
                              - {path: /a/../b, forward: app}
                        """, "hosts[0].routes[0].path", 9, "normal form"),
                Arguments.of("route prefix with a segment parameter", HEAD + """
                        hosts:
                          - names: [a.test]
                            routes:
                              - {path: /shop;v=1, forward: app}
                        """, "hosts[0].routes[0].path", 9, "(expected '/shop'"),
                Arguments.of("deny prefix with an encoded segment parameter", HEAD + """
                          p: {type: path, deny: [/admin, /admin%3Bx]}
                        hosts: []
                        """, "policies.p.deny[1]", 6, "(expected '/admin'"),
                Arguments.of("short challenge secret", HEAD + """
                          pow: {type: challenge, keys: [{id: k1, secret: "too short"}]}
                        hosts: []
                        """, "policies.pow.keys[0].secret", 6, "expected at least 32 bytes"),
                Arguments.of("missing challenge secret file", HEAD + """
                          pow: {type: challenge, keys: [{id: k1, secret_file: no-such-challenge.key}]}
                        hosts: []
                        """, "policies.pow.keys[0].secret_file", 6, "cannot read"),
                Arguments.of("duplicate challenge key id", HEAD + """
                          pow: {type: challenge, keys: [{id: k1, secret: "0123456789abcdef0123456789abcdef"}, {id: k1, secret: "0123456789abcdef0123456789abcdef"}]}
                        hosts: []
                        """, "policies.pow.keys[1].id", 6, "listed twice"),
                Arguments.of("unreadable forward-auth ca", HEAD + """
                          sso: {type: forward_auth, url: "https://auth.test/check", ca: no-such-auth-ca.pem}
                        hosts: []
                        """, "policies.sso.ca", 6, "cannot read"),
                Arguments.of("forward-auth ca without https", HEAD + """
                          sso: {type: forward_auth, url: "http://auth.test/check", ca: no-such-auth-ca.pem}
                        hosts: []
                        """, "policies.sso.ca", 6, "the url is not https://"),
                Arguments.of("missing country database", HEAD + """
                          geo: {type: country, allow: [DE], database: no-such.mmdb}
                        hosts: []
                        """, "policies.geo.database", 6, "cannot open"),
                Arguments.of("unknown load balancing", HEAD.replace("destinations:", "load_balancing: fastest\n    destinations:") + "hosts: []\n",
                        "clusters.app.load_balancing", 3, "expected one of: round_robin"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void reportsPathLineAndProblem(String name, String yaml, String path, int line, String fragment) {
        List<ConfigError> errors = errorsOf(yaml);
        assertThat(errors).as(errors.toString()).anySatisfy(e -> {
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.line()).isEqualTo(line);
            assertThat(e.column()).isPositive();
            assertThat(e.problem()).contains(fragment);
            assertThat(e.file()).isEqualTo("edge.yaml");
        });
    }

    /** One fixture per compile-time rule in {@code config/invalid/}: file, path, line, column and the message. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            catch-all-twice        | hosts[1].names[1]                | 4 | 31 | a second catch-all '*', after hosts[0].names[0] (expected at most one catch-all host)
            catch-all-and-default  | default                          | 8 | 3  | the catch-all host hosts[1].names[0] '*' answers every valid host name no other entry names, so default would only answer requests without a valid Host (expected either a catch-all host or default, not both
            host-error-page-status | hosts[0].error_pages.302         | 6 | 14 | '302' is neither a status nor default (expected default or a status from 400 to 599
            host-error-page-file   | hosts[0].error_pages.default.body_file | 5 | 28 | no-such-page.html': 
            route-cache-not-forward | hosts[0].routes[0].cache        | 6 | 16 | a cache stores upstream responses (expected it on a route with forward)
            cache-object-larger    | cache.max_object_size            | 3 | 20 | max_object_size 2MiB is larger than max_size 1MiB (expected max_object_size <= max_size)
            """)
    void eachCompileRuleFixtureReportsPathLineAndColumn(String fixture, String path, int line, int column, String fragment)
            throws IOException {
        String name = "invalid/" + fixture + ".yaml";
        String text;
        try (InputStream in = SnapshotCompilerTest.class.getResourceAsStream("/config/" + name)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<ConfigError> errors;
        try {
            SnapshotCompiler.compile(ConfigLoader.parse(name, text), PooledByteBufAllocator.DEFAULT).release();
            throw new AssertionError(name + " compiled without errors");
        } catch (ConfigException e) {
            errors = e.errors();
        }

        assertThat(errors).as(errors.toString()).hasSize(1);
        ConfigError error = errors.get(0);
        assertThat(error.file()).isEqualTo(name);
        assertThat(error.path()).isEqualTo(path);
        assertThat(error.line()).as("line of %s", error).isEqualTo(line);
        assertThat(error.column()).as("column of %s", error).isEqualTo(column);
        assertThat(error.problem()).contains(fragment);
    }

    @Test
    void reportsEveryErrorOfAFileAtOnce() {
        List<ConfigError> errors = errorsOf(HEAD + """
                hosts:
                  - names: [a.test, a.test]
                    policies: [nope]
                    routes:
                      - {path: /, forward: billing}
                      - {path: /admin}
                default: {respond: {status: 421}, drop: true}
                """);
        assertThat(errors).extracting(ConfigError::path).containsExactly(
                "hosts[0].names[1]", "hosts[0].policies[0]", "hosts[0].routes[0].forward", "hosts[0].routes[1]", "default");
        assertThat(errors).extracting(ConfigError::line).containsExactly(7, 8, 10, 11, 12);
    }

    @Test
    void aFailedCompileReleasesWhatItBuilt() {
        // With paranoid leak detection a leaked pooled buffer fails the build's log checks; here we
        // at least make sure the failing path runs through release without throwing.
        assertThatThrownBy(() -> SnapshotCompiler.compile(ConfigLoader.parse("x.yaml", HEAD + """
                hosts:
                  - names: [a.test]
                    routes: [{path: /, respond: {status: 200, body: hi}}, {path: /x, forward: nope}]
                """), PooledByteBufAllocator.DEFAULT)).isInstanceOf(ConfigException.class);
    }

    @Test
    void theSyntheticBenchmarkConfigCompiles() {
        Snapshot s = CompiledFixtures.synthetic();
        try {
            assertThat(s.hostList()).hasSize(520);
            assertThat(s.hosts().size()).isEqualTo(520);
            assertThat(s.policies()).containsOnlyKeys("deny-list", "bad-bots", "no-admin");
            assertThat(s.statusAnswer(431).status()).isEqualTo(431);
            assertThat(s.statusAnswer(299)).isNull();
            assertThat(s.generation()).isPositive();
            assertThat(s.sourceSha256()).hasSize(64);
        } finally {
            s.release();
        }
    }

    @Test
    void identicalAnswersShareOneBuffer() {
        Snapshot s = CompiledFixtures.synthetic();
        try {
            CompiledRoute a = s.hostList().get(0).routes().match(new byte[] {'/', 'o', 'l', 'd'}, 4);
            CompiledRoute b = s.hostList().get(400).routes().match(new byte[] {'/', 'o', 'l', 'd'}, 4);
            assertThat(a.action().response()).isSameAs(b.action().response());
        } finally {
            s.release();
        }
    }

    @Test
    void everyExampleInConfigCompiles() throws IOException {
        Path dir = Path.of("..", "config");
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> yamls = files.filter(p -> p.toString().endsWith(".yaml")).toList();
            assertThat(yamls).isNotEmpty();
            for (Path p : yamls) {
                try {
                    SnapshotCompiler.compile(ConfigLoader.load(p), PooledByteBufAllocator.DEFAULT).release();
                } catch (ConfigException e) {
                    throw new AssertionError(p + " does not compile:\n" + e.getMessage(), e);
                }
            }
        }
    }
}
