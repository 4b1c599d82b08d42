package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Valid files bind into the values written, and absent keys into their documented defaults. */
class ConfigLoaderTest {

    static Stream<Path> examples() throws IOException, URISyntaxException {
        Path dir = Path.of(ConfigLoaderTest.class.getResource("/config/full.yaml").toURI()).getParent();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyExampleLoads(Path file) throws Exception {
        LoadedConfig loaded = ConfigLoader.load(file);

        assertThat(loaded.fileName()).isEqualTo(file.toString());
        assertThat(loaded.spec().hosts()).isNotEmpty();
    }

    @Test
    void fullExampleBindsListeners() throws Exception {
        PaduraksaSpec spec = full().spec();

        assertThat(spec.listeners()).extracting(ListenerSpec::name).containsExactly("public", "public-tls", "admin");
        assertThat(spec.listeners().get(0).address()).isEqualTo("0.0.0.0:8080");
        assertThat(spec.listeners().get(0).protocols()).containsExactly("http1", "h2c");
        assertThat(spec.listeners().get(0).tls()).isNull();
        assertThat(spec.listeners().get(1).address()).isEqualTo("[::]:8443");
        assertThat(spec.listeners().get(1).tls().certificates()).containsExactly(
                new TlsSpec.CertificateSpec("/etc/paduraksa/site.pem", "/etc/paduraksa/site.key"),
                new TlsSpec.CertificateSpec("/etc/paduraksa/other.pem", "/etc/paduraksa/other.key"));
        assertThat(spec.listeners().get(2).admin()).isTrue();
        assertThat(spec.listeners().get(2).protocols()).containsExactly("http1");
    }

    @Test
    void fullExampleBindsClientIpAndNormalize() throws Exception {
        PaduraksaSpec spec = full().spec();

        assertThat(spec.clientIp().trustedProxies()).containsExactly("192.0.2.0/24", "2001:db8::/32");
        assertThat(spec.clientIp().header()).isEqualTo("X-Real-IP");
        assertThat(spec.normalize()).isEqualTo(new NormalizeSpec("decode", "keep", "strip"));
    }

    @Test
    void fullExampleBindsClustersWithDurationsAndDefaults() throws Exception {
        PaduraksaSpec spec = full().spec();

        assertThat(spec.clusters()).containsOnlyKeys("app", "static");
        ClusterSpec app = spec.clusters().get("app");
        assertThat(app.destinations()).containsExactly(
                new ClusterSpec.DestinationSpec(URI.create("http://192.0.2.10:9001"), 1),
                new ClusterSpec.DestinationSpec(URI.create("https://198.51.100.7:9443"), 3));
        assertThat(app.loadBalancing()).isEqualTo("power_of_two_choices");
        assertThat(app.health().active()).isEqualTo(new ClusterSpec.ActiveHealthSpec("/healthz", Duration.ofSeconds(2), null, null, null));
        assertThat(app.health().passive())
                .isEqualTo(new ClusterSpec.PassiveHealthSpec(3, Duration.ofSeconds(90), null));
        assertThat(app.timeouts()).isEqualTo(
                new ClusterSpec.TimeoutsSpec(Duration.ofMillis(250), Duration.ofSeconds(45), Duration.ofHours(2)));

        ClusterSpec fallback = spec.clusters().get("static");
        assertThat(fallback.destinations().get(0).url().getHost()).isEqualTo("[2001:db8::10]");
        assertThat(fallback.loadBalancing()).isEqualTo("round_robin");
        assertThat(fallback.health().active()).isNull();
        assertThat(fallback.timeouts()).isEqualTo(
                new ClusterSpec.TimeoutsSpec(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(60)));
    }

    @Test
    void fullExampleBindsEveryPolicyTypeInFileOrder() throws Exception {
        PaduraksaSpec spec = full().spec();

        assertThat(spec.policies()).containsOnlyKeys("bad-bots", "office", "no-internals", "read-only");
        assertThat(List.copyOf(spec.policies().keySet())).containsExactly("bad-bots", "office", "no-internals", "read-only");
        assertThat(spec.policies().get("bad-bots")).isEqualTo(
                new PolicySpec.UserAgent(List.of("sqlmap", "nikto", "masscan"), true, null));
        assertThat(spec.policies().get("bad-bots").action()).isEqualTo(ActionSpec.DEFAULT_DENY);
        assertThat(spec.policies().get("office")).isEqualTo(new PolicySpec.Ip(
                List.of("203.0.113.0/24"), List.of("203.0.113.66"),
                new ActionSpec(null, new RedirectSpec("https://login.example.test/", 303), null, null)));
        assertThat(spec.policies().get("no-internals")).isEqualTo(new PolicySpec.PathPrefix(
                List.of("/public"), List.of("/internal", "/.git"), new ActionSpec(null, null, null, true)));
        PolicySpec.Method readOnly = (PolicySpec.Method) spec.policies().get("read-only");
        assertThat(readOnly.allow()).containsExactly("GET", "HEAD");
        RespondSpec respond = readOnly.action().respond();
        assertThat(respond.status()).isEqualTo(405);
        assertThat(respond.body()).isEqualTo("read only\n");
        assertThat(respond.contentType()).isEqualTo("text/plain; charset=utf-8");
        assertThat(respond.cacheControl()).isEqualTo("no-store");
        assertThat(respond.headers()).containsExactly(java.util.Map.entry("Allow", "GET, HEAD"));
    }

    @Test
    void fullExampleBindsHostsRoutesAndDefault() throws Exception {
        PaduraksaSpec spec = full().spec();

        HostSpec host = spec.hosts().get(0);
        assertThat(host.names()).containsExactly("www.example.test", "*.example.test");
        assertThat(host.policies()).containsExactly("bad-bots");
        assertThat(host.routes()).extracting(RouteSpec::path)
                .containsExactly("/healthz", "/old", "/admin", "/static", "/blackhole", "/");
        assertThat(host.routes().get(0).respond()).isEqualTo(new RespondSpec(200, "ok", null, null, null));
        assertThat(host.routes().get(1).redirect()).isEqualTo(new RedirectSpec("https://www.example.test/new", 301));
        assertThat(host.routes().get(2).policies()).containsExactly("office", "read-only");
        assertThat(host.routes().get(2).forward()).isEqualTo("app");
        assertThat(host.routes().get(4).drop()).isTrue();
        assertThat(host.routes().get(4).action().actionCount()).isEqualTo(1);
        assertThat(spec.defaultAnswer().respond()).isEqualTo(new RespondSpec(421, "unknown host", null, null, null));
    }

    @Test
    void fullExampleBindsLimits() throws Exception {
        LimitsSpec limits = full().spec().limits();

        assertThat(limits).isEqualTo(new LimitsSpec(
                DataSize.ofKibibytes(4), DataSize.ofKibibytes(16), 64, DataSize.ofBytes(1_000_000),
                Duration.ofSeconds(5), Duration.ofSeconds(30), DataSize.ofBytes(512), 2000, Duration.ofSeconds(20)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"strip", "reject", "keep"})
    void pathParametersBind(String value) throws Exception {
        String text = """
                normalize:
                  path_parameters: %s
                listeners: [{address: "127.0.0.1:8080"}]
                hosts:
                  - names: [www.example.test]
                    routes: [{path: /, respond: {status: 200}}]
                """.formatted(value);

        PaduraksaSpec spec = ConfigLoader.parse("edge.yaml", text).spec();

        assertThat(spec.normalize()).isEqualTo(new NormalizeSpec("reject", "reject", value));
        assertThat(NormalizeSpec.DEFAULT.pathParameters()).isEqualTo("strip");
    }

    @Test
    void absentKeysTakeTheirDefaults() throws Exception {
        PaduraksaSpec spec = ConfigLoader.parse("minimal.yaml", InvalidConfigTest.fixture("minimal.yaml")).spec();

        assertThat(spec.listeners().get(0).name()).isNull();
        assertThat(spec.listeners().get(0).protocols()).containsExactly("http1");
        assertThat(spec.listeners().get(0).admin()).isFalse();
        assertThat(spec.clientIp()).isEqualTo(ClientIpSpec.DEFAULT);
        assertThat(spec.normalize()).isEqualTo(NormalizeSpec.DEFAULT);
        assertThat(spec.clusters()).isEmpty();
        assertThat(spec.policies()).isEmpty();
        assertThat(spec.hosts().get(0).routes().get(0).path()).isEqualTo("/");
        assertThat(spec.hosts().get(0).routes().get(0).respond()).isEqualTo(new RespondSpec(200, "hello", null, null, null));
        assertThat(spec.defaultAnswer()).isEqualTo(ActionSpec.DEFAULT_UNKNOWN_HOST);
        assertThat(spec.limits()).isEqualTo(LimitsSpec.DEFAULT);
        assertThat(spec.limits().maxRequestLine()).isEqualTo(DataSize.ofKibibytes(8));
        assertThat(spec.limits().maxHeaderSize()).isEqualTo(DataSize.ofKibibytes(32));
        assertThat(spec.limits().maxHeaders()).isEqualTo(100);
        assertThat(spec.limits().maxBodySize()).isEqualTo(DataSize.ofMebibytes(10));
        assertThat(spec.limits().headerTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(spec.limits().idleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(spec.limits().bodyMinRate()).isEqualTo(DataSize.ofKibibytes(1));
        assertThat(spec.limits().maxConnections()).isEqualTo(10_000);
    }

    @Test
    void defaultsInsideClustersAndPolicies() throws Exception {
        String text = """
                clusters:
                  app:
                    destinations: [{url: "http://192.0.2.10:8080"}]
                    health: {active: {}, passive: {}}
                policies:
                  methods: {type: method}
                hosts:
                  - names: [www.example.test]
                """;

        PaduraksaSpec spec = ConfigLoader.parse("edge.yaml", text).spec();

        ClusterSpec.HealthSpec health = spec.clusters().get("app").health();
        assertThat(health.active()).isEqualTo(ClusterSpec.ActiveHealthSpec.DEFAULT);
        assertThat(health.passive()).isEqualTo(ClusterSpec.PassiveHealthSpec.DEFAULT);
        assertThat(spec.policies().get("methods").action()).isEqualTo(ActionSpec.DEFAULT_METHOD_NOT_ALLOWED);
    }

    @Test
    void loadedConfigLocatesCompilerErrorsAtTheValue() throws Exception {
        LoadedConfig loaded = ConfigLoader.parse("edge.yaml", InvalidConfigTest.fixture("full.yaml"));

        ConfigError error = loaded.error("hosts[0].routes[2].forward", "unknown cluster 'billing' (expected one of: app, static)");

        assertThat(error.toString()).isEqualTo(
                "edge.yaml:71:64: hosts[0].routes[2].forward: unknown cluster 'billing' (expected one of: app, static)");
        assertThat(loaded.error("hosts[0].names[1]", "x").toString()).startsWith("edge.yaml:66:31: hosts[0].names[1]: x");
        assertThat(loaded.error("hosts[0].routes[5].path", "x").toString())
                .as("a missing key falls back to its mapping").startsWith("edge.yaml:74:9: ");
        assertThat(loaded.error("policies.office", "x").toString()).startsWith("edge.yaml:45:5: ");
    }

    @Test
    void byteOrderMarkIsIgnored() throws Exception {
        PaduraksaSpec spec = ConfigLoader.parse("bom.yaml", "\uFEFFhosts:\n  - names: [www.example.test]\n").spec();

        assertThat(spec.hosts().get(0).names()).containsExactly("www.example.test");
    }

    private static LoadedConfig full() throws Exception {
        return ConfigLoader.parse("full.yaml", InvalidConfigTest.fixture("full.yaml"));
    }
}
