package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line: exit codes, {@code check}'s error lines and {@code explain}'s account of one request. */
class MainTest {
    static final String EXPLAINED = """
            listeners:
              - {name: public, address: "127.0.0.1:0"}
            client_ip:
              trusted_proxies: [192.0.2.10/32]
            clusters:
              app: {destinations: [{url: "http://127.0.0.1:9"}]}
            policies:
              bad-bots: {type: user_agent, deny: [sqlmap]}
              blocked: {type: ip, deny: [203.0.113.0/24]}
              read-only: {type: method, allow: [GET, HEAD]}
            hosts:
              - names: [a.test, "*.a.test"]
                policies: [bad-bots, blocked]
                routes:
                  - {path: /app, forward: app}
                  - {path: /, policies: [read-only], respond: {status: 200, body: "hello\\n"}}
            """;

    @TempDir
    static Path dir;
    static Path explained;

    @BeforeAll
    static void writeConfig() throws IOException {
        explained = Files.writeString(dir.resolve("explained.yaml"), EXPLAINED);
    }

    /** What one command printed and returned. */
    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"paduraksa.yaml", "behind-cloudflare.yaml"})
    void checkAcceptsTheShippedExamples(String name) {
        Path file = Path.of("..", "config", name);
        Result r = run("check", "--config", file.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith(file + ": ok (").contains("hosts");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void checkPrintsEveryCompileErrorWithFileLineColumnAndPath() throws IOException {
        Path file = Files.writeString(dir.resolve("unknown-names.yaml"), """
                listeners:
                  - {name: public, address: "127.0.0.1:0"}
                clusters:
                  app: {destinations: [{url: "http://127.0.0.1:9"}]}
                hosts:
                  - names: [a.test]
                    policies: [nope]
                    routes:
                      - {path: /app, forward: billing}
                """);
        Result r = run("check", "--config", file.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().lines().toList()).containsExactly(
                file + ":7:16: hosts[0].policies[0]: unknown policy 'nope' (expected one of: none defined)",
                file + ":9:31: hosts[0].routes[0].forward: unknown cluster 'billing' (expected one of: app)",
                file + ": 2 errors");
    }

    @Test
    void checkPrintsEveryBindingErrorInTheSameShape() throws IOException {
        Path file = Files.writeString(dir.resolve("misspelt.yaml"), """
                listeners:
                  - {name: public, address: "127.0.0.1:0"}
                policies:
                  bots: {type: user_agent, denny: [sqlmap]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 999}}
                """);
        Result r = run("check", "--config", file.toString());
        assertThat(r.code()).isEqualTo(1);
        List<String> lines = r.err().lines().toList();
        assertThat(lines).last().isEqualTo(file + ": " + (lines.size() - 1) + " errors");
        Pattern shape = Pattern.compile(Pattern.quote(file.toString()) + ":\\d+:\\d+: [\\w.\\[\\]-]+: .+");
        assertThat(lines.subList(0, lines.size() - 1)).hasSizeGreaterThanOrEqualTo(2).allMatch(l -> shape.matcher(l).matches());
        assertThat(r.err()).contains(file + ":4:").contains("policies.bots.denny: unknown key").contains("'deny'")
                .contains(file + ":8:").contains("hosts[0].routes[0].respond.status");
    }

    @Test
    void checkNamesASyntaxErrorsLine() throws IOException {
        Path file = Files.writeString(dir.resolve("syntax.yaml"), "listeners:\n  - {name: public, address: \"127.0.0.1:0\"\n");
        Result r = run("check", "--config", file.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith(file + ":2:").contains("YAML syntax error");
    }

    @Test
    void explainUsesThePeerWhenNoHeaderIsSent() {
        Result r = run("explain", "--config", explained.toString(), "--peer", "198.51.100.7", "GET", "http://www.a.test/x");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("client IP 198.51.100.7 (the peer)");
    }

    @Test
    void explainHonoursCfConnectingIpFromATrustedPeerAndShowsEveryVerdictInOrder() {
        Result r = run("explain", "--config", explained.toString(), "--peer", "192.0.2.10",
                "-H", "CF-Connecting-IP: 203.0.113.9", "GET", "http://www.a.test/x");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsSubsequence(
                "peer      192.0.2.10 (a trusted proxy: cf-connecting-ip is honoured)",
                "client IP 203.0.113.9 (from cf-connecting-ip)",
                "host      www.a.test -> hosts[0] [a.test, *.a.test]",
                "route     routes[1] / -> respond 200",
                "policy    bad-bots             host   CONTINUE",
                "policy    blocked              host   RESPOND 403",
                "decision  RESPOND 403 (policy blocked)",
                "HTTP/1.1 403 Forbidden");
        assertThat(r.out()).doesNotContain("read-only"); // the chain stopped at the deciding policy
    }

    @Test
    void explainIgnoresCfConnectingIpFromAnUntrustedPeerAndShowsTheAnswer() {
        Result r = run("explain", "--config", explained.toString(), "--peer", "198.51.100.7",
                "-H", "CF-Connecting-IP: 203.0.113.9", "GET", "http://www.a.test/x");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsSubsequence(
                "peer      198.51.100.7 (not a trusted proxy: cf-connecting-ip is ignored)",
                "client IP 198.51.100.7 (the peer)",
                "policy    bad-bots             host   CONTINUE",
                "policy    blocked              host   CONTINUE",
                "policy    read-only            route  CONTINUE",
                "decision  RESPOND 200",
                "HTTP/1.1 200 OK",
                "Content-Length: 6",
                "hello");
    }

    @Test
    void explainOfAForwardRouteNamesTheCluster() {
        Result r = run("explain", "--config", explained.toString(), "-H", "Host: a.test", "GET", "/app/y");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsSubsequence(
                "request   GET /app/y (Host: a.test)",
                "route     routes[0] /app -> forward to cluster 'app'",
                "decision  FORWARD to cluster 'app' [http://127.0.0.1:9]");
    }

    @Test
    void explainShowsThePathWithSegmentParametersStripped() {
        Result r = run("explain", "--config", explained.toString(), "-H", "Host: a.test", "GET", "/x;jsessionid=1/..;/app;v=2/y");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsSubsequence(
                "path      /app/y (normalised; what the upstream receives)",
                "route     routes[0] /app -> forward to cluster 'app'");
    }

    @Test
    void explainOfAnUnknownHostShowsTheDefaultAnswer() {
        Result r = run("explain", "--config", explained.toString(), "GET", "http://other.example/");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("host      other.example: no host entry matches -> the default action")
                .contains("HTTP/1.1 421");
    }

    @Test
    void versionAndHelpSucceed() {
        Result version = run("--version");
        assertThat(version.code()).isZero();
        assertThat(version.out()).startsWith("paduraksa ");
        Result help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("paduraksa check --config FILE").contains("paduraksa explain");
    }

    @Test
    void usageErrorsExitWithTwo() {
        String config = explained.toString();
        List<String[]> usageErrors = List.of(
                new String[0],
                new String[] {"frob", "--config", config},
                new String[] {"check"},
                new String[] {"check", "--config"},
                new String[] {"check", "--bogus", "--config", config},
                new String[] {"check", "--config", dir.resolve("missing.yaml").toString()},
                new String[] {"explain", "--config", config, "GET"},
                new String[] {"explain", "--config", config, "--peer", "not-an-ip", "GET", "/"},
                new String[] {"explain", "--config", config, "-H", "no colon", "GET", "/"});
        for (String[] args : usageErrors) {
            Result r = run(args);
            assertThat(r.code()).as("%s -> %s", List.of(args), r.err()).isEqualTo(2);
            assertThat(r.err()).as("%s", List.of(args)).startsWith(args.length == 0 ? "Usage:" : "paduraksa: ");
            assertThat(r.out()).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource({
        "none, , false",
        "io.netty.leakDetection.level, paranoid, true",
        "io.netty.leakDetection.level, disabled, true",
        "io.netty.leakDetectionLevel, simple, true",
        "io.netty.leakDetection.targetRecords, 4, false",
    })
    void leakDetectionIsOffUnlessTheOperatorChoseALevel(String property, String value, boolean asked) {
        java.util.Properties system = new java.util.Properties();
        if (value != null) {
            system.setProperty(property, value);
        }
        assertThat(Main.leakDetectionAsked(system)).isEqualTo(asked);
    }
}
