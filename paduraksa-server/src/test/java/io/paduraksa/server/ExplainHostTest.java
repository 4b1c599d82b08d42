package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.testing.CompiledFixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code paduraksa explain} says which host entry matched and why: exact, wildcard, catch-all or default. */
class ExplainHostTest {
    private static Snapshot withCatchAll;
    private static Snapshot withoutCatchAll;

    @BeforeAll
    static void compile() {
        String hosts = """
                hosts:
                  - names: [www.example.test, "[2001:db8::1]"]
                    routes: [{path: /, respond: {status: 200}}]
                  - names: ["*.example.test"]
                    routes: [{path: /, respond: {status: 200}}]
                  - names: ["*.api.example.test"]
                    routes: [{path: /, respond: {status: 200}}]
                """;
        withoutCatchAll = CompiledFixtures.compile("edge.yaml", hosts);
        withCatchAll = CompiledFixtures.compile("edge.yaml", hosts + """
                  - names: ["*"]
                    routes: [{path: /, respond: {status: 404}}]
                """);
    }

    @AfterAll
    static void release() {
        withCatchAll.release();
        withoutCatchAll.release();
    }

    private static String explain(Snapshot snapshot, String host) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            Explain.run(out, snapshot, "198.51.100.7", host == null ? List.of() : List.of("Host: " + host), "GET", "/");
        }
        return bytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("host ")).findFirst().orElseThrow();
    }

    @ParameterizedTest(name = "{0} ({1})")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            WWW.example.test:443 | true  | WWW.example.test:443 -> hosts[0] [www.example.test, [2001:db8::1]] (exact name www.example.test)
            [2001:DB8::0:1]      | true  | [2001:DB8::0:1] -> hosts[0] [www.example.test, [2001:db8::1]] (exact name [2001:db8::1])
            a.b.example.test     | true  | a.b.example.test -> hosts[1] [*.example.test] (wildcard *.example.test, the longest parent that matches)
            x.v1.api.example.test | true | x.v1.api.example.test -> hosts[2] [*.api.example.test] (wildcard *.api.example.test, the longest parent that matches)
            unknown.test         | true  | unknown.test -> hosts[3] [*] (the catch-all '*': no other entry takes the name)
            [2001:db8::2]        | true  | [2001:db8::2] -> hosts[3] [*] (the catch-all '*': no other entry takes the name)
            a..b.test            | true  | a..b.test: not a valid host name, so not the catch-all either -> the default action
            -                    | true  | (no Host header): no host entry matches -> the default action
            unknown.test         | false | unknown.test: no host entry matches -> the default action
            """)
    void explainNamesTheEntryAndHowItMatched(String host, boolean catchAll, String expected) {
        assertThat(explain(catchAll ? withCatchAll : withoutCatchAll, host)).isEqualTo("host      " + expected);
    }
}
