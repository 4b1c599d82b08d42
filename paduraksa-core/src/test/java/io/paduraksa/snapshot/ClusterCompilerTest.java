package io.paduraksa.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.testing.CompiledFixtures;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code clusters} compiled into {@link UpstreamCluster}: defaults, every key, destinations, scheme rules. */
class ClusterCompilerTest {

    private static UpstreamCluster cluster(String body) {
        Snapshot s = CompiledFixtures.compile("edge.yaml", "clusters:\n  app:\n" + body.indent(4));
        try {
            return s.clusters().get("app");
        } finally {
            s.release();
        }
    }

    private static List<ConfigError> errorsOf(String body) {
        try {
            SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", "clusters:\n  app:\n" + body.indent(4)),
                    PooledByteBufAllocator.DEFAULT).release();
        } catch (ConfigException e) {
            return e.errors();
        }
        throw new AssertionError("expected configuration errors");
    }

    @Test
    void absentKeysTakeTheDocumentedDefaults() {
        UpstreamCluster c = cluster("destinations: [{url: \"http://192.0.2.10:9001\"}]");

        assertThat(c.name()).isEqualTo("app");
        assertThat(c.protocol()).isEqualTo(UpstreamCluster.Protocol.HTTP1);
        assertThat(c.loadBalancing()).isEqualTo(UpstreamCluster.LoadBalancing.ROUND_ROBIN);
        assertThat(c.affinityCookie()).isNull();
        assertThat(c.tls()).isEqualTo(new UpstreamCluster.Tls(true, null, null));
        assertThat(c.pool()).isEqualTo(new UpstreamCluster.Pool(256, Duration.ofSeconds(60), 0));
        assertThat(c.health()).isEqualTo(new UpstreamCluster.Health(null, Duration.ofSeconds(5), Duration.ofSeconds(2), 2, 3,
                0, Duration.ofSeconds(30), Duration.ofSeconds(300), false));
        assertThat(c.timeouts()).isEqualTo(new UpstreamCluster.Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(60)));
        assertThat(c.retry()).isEqualTo(new UpstreamCluster.Retry(1, 0.2, 10));
        assertThat(c.resolveEvery()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.preserveHost()).isTrue();
    }

    @Test
    void everyKeyIsCompiled(@TempDir Path dir) throws IOException {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        UpstreamCluster c = cluster("""
                destinations:
                  - {url: "https://api-1.internal.test:9443", weight: 2}
                  - {url: "https://198.51.100.7"}
                protocol: h2
                load_balancing: least_requests
                affinity: {cookie: EDGE_AFFINITY}
                tls: {verify: false, ca: "%s", sni: api.internal.test}
                pool: {max_connections: 32, idle_timeout: 90s, max_requests_per_connection: 1000}
                health:
                  active: {path: /healthz, interval: 10s, timeout: 1s, healthy_threshold: 4, unhealthy_threshold: 5}
                  passive: {consecutive_failures: 7, eject_for: 10s, max_eject_for: 2m, count_5xx: true}
                timeouts: {connect: 500ms, response_headers: 15s, idle: 2m}
                retry: {attempts: 3, budget: 12.5%%, min_per_second: 4}
                resolve_every: 0s
                preserve_host: false
                """.formatted(ca));

        assertThat(c.protocol()).isEqualTo(UpstreamCluster.Protocol.H2);
        assertThat(c.loadBalancing()).isEqualTo(UpstreamCluster.LoadBalancing.LEAST_REQUESTS);
        assertThat(c.affinityCookie()).isEqualTo("EDGE_AFFINITY");
        assertThat(c.tls()).isEqualTo(new UpstreamCluster.Tls(false, ca, "api.internal.test"));
        assertThat(c.pool()).isEqualTo(new UpstreamCluster.Pool(32, Duration.ofSeconds(90), 1000));
        assertThat(c.health()).isEqualTo(new UpstreamCluster.Health("/healthz", Duration.ofSeconds(10), Duration.ofSeconds(1), 4, 5,
                7, Duration.ofSeconds(10), Duration.ofMinutes(2), true));
        assertThat(c.timeouts()).isEqualTo(new UpstreamCluster.Timeouts(Duration.ofMillis(500), Duration.ofSeconds(15), Duration.ofMinutes(2)));
        assertThat(c.retry()).isEqualTo(new UpstreamCluster.Retry(3, 0.125, 4));
        assertThat(c.resolveEvery()).isZero();
        assertThat(c.preserveHost()).isFalse();
        assertThat(c.destinations()).extracting(UpstreamCluster.Destination::index, UpstreamCluster.Destination::weight)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, 2), org.assertj.core.groups.Tuple.tuple(1, 1));
    }

    @Test
    void aRelativeCaFileIsResolvedAgainstTheConfigurationFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        Path config = Files.writeString(dir.resolve("edge.yaml"), """
                clusters:
                  app:
                    destinations: [{url: "https://192.0.2.10"}]
                    tls: {ca: ca.pem}
                """);
        Snapshot s = SnapshotCompiler.compile(ConfigLoader.load(config), PooledByteBufAllocator.DEFAULT);
        try {
            assertThat(s.clusters().get("app").tls().caFile()).isEqualTo(dir.resolve("ca.pem").toAbsolutePath());
        } finally {
            s.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            http://192.0.2.10:9001          | false | 192.0.2.10        | 9001 | true  | 192.0.2.10:9001
            http://192.0.2.10               | false | 192.0.2.10        | 80   | true  | 192.0.2.10
            http://192.0.2.10:80/           | false | 192.0.2.10        | 80   | true  | 192.0.2.10
            https://192.0.2.10:443          | true  | 192.0.2.10        | 443  | true  | 192.0.2.10
            https://192.0.2.10:80           | true  | 192.0.2.10        | 80   | true  | 192.0.2.10:80
            http://[2001:db8::10]:9001      | false | 2001:db8::10      | 9001 | true  | [2001:db8::10]:9001
            https://[2001:DB8::10]          | true  | 2001:db8::10      | 443  | true  | [2001:db8::10]
            http://App.Internal.test:8080   | false | app.internal.test | 8080 | false | app.internal.test:8080
            https://app.internal.test       | true  | app.internal.test | 443  | false | app.internal.test
            """)
    void destinationsAreSplitIntoHostPortAndAuthority(String url, boolean tls, String host, int port, boolean ipLiteral,
            String authority) {
        UpstreamCluster.Destination d = cluster("destinations: [{url: \"" + url + "\"}]").destinations().get(0);

        assertThat(d.url()).isEqualTo(URI.create(url));
        assertThat(d.tls()).isEqualTo(tls);
        assertThat(d.host()).isEqualTo(host);
        assertThat(d.port()).isEqualTo(port);
        assertThat(d.ipLiteral()).isEqualTo(ipLiteral);
        assertThat(d.authority().toString()).isEqualTo(authority);
        assertThat((Object) d.authority()).isInstanceOf(AsciiString.class);
        assertThat(d.index()).isZero();
        assertThat(d.weight()).isOne();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            h2 over http     | protocol: h2\\ndestinations: [{url: "https://192.0.2.10"}, {url: "http://192.0.2.11"}]   | clusters.app.destinations[1].url | 4 | 'http://192.0.2.11' is cleartext but protocol h2 runs over TLS
            h2c over https   | protocol: h2c\\ndestinations: [{url: "https://192.0.2.10"}]                             | clusters.app.destinations[0].url | 4 | 'https://192.0.2.10' uses TLS but protocol h2c is cleartext
            tls without https| destinations: [{url: "http://192.0.2.10"}]\\ntls: {verify: false}                       | clusters.app.tls                 | 4 | tls is set but no destination is https://
            unreadable ca    | destinations: [{url: "https://192.0.2.10"}]\\ntls: {ca: /nonexistent/ca.pem}            | clusters.app.tls.ca              | 4 | cannot read '/nonexistent/ca.pem'
            """)
    void schemeAndTlsMismatchesAreErrorsAtTheirValue(String name, String body, String path, int line, String fragment) {
        List<ConfigError> errors = errorsOf(body.replace("\\n", "\n"));

        assertThat(errors).as(errors.toString()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.line()).isEqualTo(line);
            assertThat(e.problem()).contains(fragment);
        });
    }

    @Test
    void http1AcceptsBothSchemes() {
        UpstreamCluster c = cluster("destinations: [{url: \"https://192.0.2.10\"}, {url: \"http://192.0.2.11\"}]");

        assertThat(c.destinations()).extracting(UpstreamCluster.Destination::tls).containsExactly(true, false);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            weight                  | destinations: [{url: "http://192.0.2.10", weight: 5}]                         | true
            load balancing          | destinations: [{url: "http://192.0.2.10"}]\\nload_balancing: random          | true
            health                  | destinations: [{url: "http://192.0.2.10"}]\\nhealth: {active: {path: /hz}}   | true
            retry                   | destinations: [{url: "http://192.0.2.10"}]\\nretry: {attempts: 0}            | true
            preserve host           | destinations: [{url: "http://192.0.2.10"}]\\npreserve_host: false           | true
            other destination       | destinations: [{url: "http://192.0.2.11"}]                                   | false
            second destination      | destinations: [{url: "http://192.0.2.10"}, {url: "http://192.0.2.11"}]       | false
            port                    | destinations: [{url: "http://192.0.2.10:8080"}]                               | false
            protocol                | destinations: [{url: "http://192.0.2.10"}]\\nprotocol: h2c                   | false
            pool                    | destinations: [{url: "http://192.0.2.10"}]\\npool: {max_connections: 8}      | false
            timeouts                | destinations: [{url: "http://192.0.2.10"}]\\ntimeouts: {connect: 1s}         | false
            """)
    void sameConnectionsComparesOnlyWhatPoolsDependOn(String name, String changed, boolean same) {
        UpstreamCluster before = cluster("destinations: [{url: \"http://192.0.2.10\"}]");
        UpstreamCluster after = cluster(changed.replace("\\n", "\n"));

        assertThat(before.sameConnections(after)).isEqualTo(same);
        assertThat(before.sameConnections(before)).isTrue();
        assertThat(before.sameConnections(null)).isFalse();
    }

    @Test
    void tlsSettingsAreConnectionRelevant() {
        Function<String, UpstreamCluster> https = tls -> cluster("destinations: [{url: \"https://192.0.2.10\"}]\n" + tls);

        assertThat(https.apply("").sameConnections(https.apply("tls: {verify: true}"))).isTrue();
        assertThat(https.apply("").sameConnections(https.apply("tls: {verify: false}"))).isFalse();
        assertThat(https.apply("").sameConnections(https.apply("tls: {sni: a.internal.test}"))).isFalse();
    }
}
