package io.paduraksa.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.config.LoadedConfig;
import io.paduraksa.testing.BulkText;
import io.paduraksa.testing.CompiledFixtures;
import io.paduraksa.text.TextBytes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code forwarding} compiled into {@link ForwardingRules}: settings, Via, and which request headers never reach an upstream. */
class ForwardingRulesTest {

    private static ForwardingRules rules(String yaml) {
        Snapshot s = CompiledFixtures.compile("edge.yaml", yaml);
        try {
            return s.forwarding();
        } finally {
            s.release();
        }
    }

    @Test
    void absentSectionTakesTheDefaults() {
        ForwardingRules f = rules("hosts: []\n");

        assertThat(f.xForwardedFor()).isEqualTo(ForwardingRules.XForwardedFor.REPLACE);
        assertThat(f.xForwardedProto()).isTrue();
        assertThat(f.xForwardedHost()).isTrue();
        assertThat(f.xRealIp()).isFalse();
        assertThat(f.requestIdHeader().toString()).isEqualTo("x-request-id");
        assertThat(f.propagateRequestId()).isFalse();
        assertThat(f.viaLine()).isEmpty();
        assertThat((Object) f.viaValue()).isNull();
    }

    @Test
    void everyKeyIsCompiled() {
        ForwardingRules f = rules("""
                forwarding:
                  x_forwarded_for: append
                  x_forwarded_proto: false
                  x_forwarded_host: false
                  x_real_ip: true
                  request_id: {header: X-Correlation-ID, propagate: true}
                  via: paduraksa
                  remove_request_headers: [X-Debug]
                """);

        assertThat(f.xForwardedFor()).isEqualTo(ForwardingRules.XForwardedFor.APPEND);
        assertThat(f.xForwardedProto()).isFalse();
        assertThat(f.xForwardedHost()).isFalse();
        assertThat(f.xRealIp()).isTrue();
        assertThat(f.requestIdHeader().toString()).isEqualTo("x-correlation-id");
        assertThat(f.propagateRequestId()).isTrue();
        assertThat(new String(f.viaLine(), StandardCharsets.US_ASCII)).isEqualTo("Via: 1.1 paduraksa\r\n");
        assertThat(f.viaValue().toString()).isEqualTo("1.1 paduraksa");
    }

    private static final String DEFAULTS = "hosts: []";
    private static final String SET_ALL = "forwarding: {x_real_ip: true, remove_request_headers: [X-Debug, x-internal-token]}";
    private static final String OFF = "forwarding: {x_forwarded_for: \"off\", x_forwarded_proto: false, x_forwarded_host: false, request_id: {propagate: true}}";
    private static final String APPEND = "forwarding: {x_forwarded_for: append}";
    private static final String CLIENT_IP = "client_ip: {header: True-Client-IP}";

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            DEFAULTS  | Connection          | true
            DEFAULTS  | KEEP-ALIVE          | true
            DEFAULTS  | te                  | true
            DEFAULTS  | Trailer             | true
            DEFAULTS  | Transfer-Encoding   | true
            DEFAULTS  | Upgrade             | true
            DEFAULTS  | Proxy-Authorization | true
            DEFAULTS  | proxy-connection    | true
            DEFAULTS  | Host                | true
            DEFAULTS  | Content-Length      | true
            DEFAULTS  | X-Forwarded-For     | true
            DEFAULTS  | x-forwarded-proto   | true
            DEFAULTS  | X-Forwarded-Host    | true
            DEFAULTS  | X-Real-IP           | true
            DEFAULTS  | X-Request-Id        | true
            DEFAULTS  | CF-Connecting-IP    | true
            DEFAULTS  | X_Custom            | true
            DEFAULTS  | X_Forwarded_For     | true
            DEFAULTS  | Accept_             | true
            DEFAULTS  | Accept              | false
            DEFAULTS  | Content-Type        | false
            DEFAULTS  | Cookie              | false
            DEFAULTS  | proxy-              | false
            DEFAULTS  | Proxy               | false
            DEFAULTS  | t                   | false
            DEFAULTS  | tE                  | true
            DEFAULTS  | X-Forwarded-Port    | true
            DEFAULTS  | a-very-long-header-name-that-is-longer-than-any-configured-one | false
            SET_ALL   | X-Real-IP           | true
            SET_ALL   | x-debug             | true
            SET_ALL   | X-Internal-Token    | true
            SET_ALL   | X-Debugger          | false
            OFF       | X-Forwarded-For     | true
            OFF       | X-Forwarded-Proto   | true
            OFF       | X-Forwarded-Host    | true
            OFF       | X-Request-Id        | true
            OFF       | Connection          | true
            OFF       | CF-Connecting-IP    | true
            APPEND    | X-Forwarded-For     | true
            CLIENT_IP | True-Client-IP      | true
            CLIENT_IP | CF-Connecting-IP    | true
            """)
    void isRemovedRequestHeader(String config, String header, boolean removed) {
        String yaml = switch (config) {
            case "DEFAULTS" -> DEFAULTS;
            case "SET_ALL" -> SET_ALL;
            case "OFF" -> OFF;
            case "APPEND" -> APPEND;
            default -> CLIENT_IP;
        };
        ForwardingRules f = rules(yaml + "\n");

        assertThat(f.isRemovedRequestHeader(header)).isEqualTo(removed);
        assertThat(f.isRemovedRequestHeader(new AsciiString(header))).isEqualTo(removed);
        assertThat(f.isRemovedRequestHeader(BulkText.inArray(header))).as("read in an array").isEqualTo(removed);
        assertThat(f.isRemovedRequestHeader(BulkText.of(header))).as("copied out once, never per char").isEqualTo(removed);
        assertThat(f.isRemovedRequestHeader(BulkText.readable(header), false, true)).as("searched for _").isEqualTo(removed);
        if (header.indexOf('_') < 0) {
            assertThat(f.isRemovedRequestHeader(BulkText.readable(header), false, false)).as("known to have no _")
                    .isEqualTo(removed);
        }
    }

    @Test
    void aNameLongerThanTheScratchArrayIsReadPerCharWithTheSameAnswers() {
        ForwardingRules f = rules(DEFAULTS + "\n");
        String longProxy = "Proxy-" + "x".repeat(TextBytes.SCRATCH_LENGTH);
        String longPlain = "X-" + "y".repeat(TextBytes.SCRATCH_LENGTH);
        String longUnderscore = "X_" + "y".repeat(TextBytes.SCRATCH_LENGTH);

        assertThat(f.isRemovedRequestHeader(BulkText.readable(longProxy))).isTrue();
        assertThat(f.isRemovedRequestHeader(BulkText.readable(longPlain))).isFalse();
        assertThat(f.isRemovedRequestHeader(BulkText.readable(longUnderscore))).isTrue();
        assertThatThrownBy(() -> f.isRemovedRequestHeader(BulkText.of(longProxy)))
                .as("past the outlines and too long to copy: read per char").isInstanceOf(AssertionError.class);
        assertThat(f.isRemovedRequestHeader(BulkText.of(longPlain))).as("no set's outline has it: its ends and a bulk search for '_'")
                .isFalse();
        assertThat(f.isRemovedRequestHeader(BulkText.of(longUnderscore))).isTrue();
        assertThat(f.isRemovedRequestHeader(BulkText.of(longPlain.substring(0, TextBytes.SCRATCH_LENGTH)))).isFalse();
    }

    @Test
    void namesWithNonLetterBytesDoNotFoldIntoLetters() {
        ForwardingRules f = rules("hosts: []\n");

        // '@' is 'A' - 1 and '[' is 'Z' + 1: folding only letters keeps them apart from '`' and '{'.
        assertThat(f.isRemovedRequestHeader("hos\u0074")).isTrue();
        assertThat(f.isRemovedRequestHeader("HOS\u0054")).isTrue();
        assertThat(f.isRemovedRequestHeader("ho[t")).isFalse();
        assertThat(f.isRemovedRequestHeader("h\u00d3st")).isFalse();
        assertThat(f.isRemovedRequestHeader("")).isFalse();
    }

    /** Every default identity name, in the spellings a folding server would read as the same. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"Forwarded", "X-Forwarded-For", "X-Real-IP", "True-Client-IP", "X-Client-IP", "X-Cluster-Client-IP",
        "Fastly-Client-IP", "X-Originating-IP", "X-Remote-IP", "X-Remote-Addr", "Client-IP", "CF-Connecting-IP",
        "CF-Connecting-IPv6", "X-ProxyUser-Ip", "WL-Proxy-Client-IP", "Proxy-Client-IP", "X-Envoy-External-Address",
        "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Port", "Forwarded-For", "X-Forwarded", "True_Client_IP",
        "cf_connecting_ip", "X_REAL_IP", "x-real_ip", "X_Forwarded-For", "FORWARDED"})
    void identityFieldsNeverPassFromAnUntrustedPeerWhateverTheSeparator(String name) {
        ForwardingRules pass = rules("forwarding: {headers_with_underscores: pass, x_forwarded_for: \"off\", x_forwarded_proto: false, x_forwarded_host: false}\n");

        assertThat(pass.isRemovedRequestHeader(name, false)).isTrue();
        assertThat(pass.isRemovedRequestHeader(new AsciiString(name), false)).isTrue();
        assertThat(pass.isRemovedRequestHeader(BulkText.inArray(name), false)).isTrue();
        assertThat(pass.isRemovedRequestHeader(BulkText.of(name), false)).isTrue();
    }

    @ParameterizedTest(name = "{0}: {1} from a trusted proxy -> removed {2}")
    @CsvSource(delimiter = '|', textBlock = """
            DEFAULTS     | CF-Connecting-IP   | false
            DEFAULTS     | cf-connecting-ip   | false
            DEFAULTS     | CF_Connecting_IP   | true
            DEFAULTS     | True-Client-IP     | true
            DEFAULTS     | X-Real-IP          | true
            DEFAULTS     | X-Forwarded-For    | true
            DEFAULTS     | Forwarded          | true
            DEFAULTS     | X-Custom           | false
            CLIENT_IP    | True-Client-IP     | false
            CLIENT_IP    | CF-Connecting-IP   | true
            OFF          | X-Forwarded-For    | false
            OFF          | X-Forwarded-Proto  | true
            LISTED       | X-Forwarded-Proto  | false
            LISTED       | True-Client-IP     | false
            LISTED       | True_Client_IP     | true
            LISTED       | X-Forwarded-Host   | true
            LISTED_SET   | X-Forwarded-Proto  | true
            PASS         | CF_Connecting_IP   | true
            PASS         | X_Custom           | false
            EXTRA        | X-Akamai-Client-IP | true
            """)
    void fromATrustedProxyOnlyTheNamesItSetsPass(String config, String header, boolean removed) {
        String yaml = switch (config) {
            case "DEFAULTS" -> DEFAULTS;
            case "CLIENT_IP" -> CLIENT_IP;
            case "OFF" -> OFF;
            case "LISTED" -> "forwarding: {x_forwarded_proto: false, identity_headers_from_trusted_proxies: [X-Forwarded-Proto, True-Client-IP]}";
            case "LISTED_SET" -> "forwarding: {identity_headers_from_trusted_proxies: [X-Forwarded-Proto]}";
            case "PASS" -> "forwarding: {headers_with_underscores: pass}";
            default -> "forwarding: {identity_headers: [X-Akamai-Client-IP]}";
        };
        ForwardingRules f = rules(yaml + "\n");

        assertThat(f.isRemovedRequestHeader(header, true)).isEqualTo(removed);
        assertThat(f.isRemovedRequestHeader(BulkText.inArray(header), true)).as("read in an array").isEqualTo(removed);
        assertThat(f.isRemovedRequestHeader(BulkText.of(header), true)).as("copied out once").isEqualTo(removed);
        assertThat(f.isRemovedRequestHeader(header, false)).as("from an untrusted peer").isEqualTo(removed || !header.equals("X-Custom") && !header.equals("X_Custom"));
    }

    @Test
    void namesWithAnUnderscoreAreDroppedUnlessPassed() {
        ForwardingRules drop = rules(DEFAULTS + "\n");
        ForwardingRules pass = rules("forwarding: {headers_with_underscores: pass, identity_headers: [X-Akamai-Client-IP]}\n");

        assertThat(drop.isRemovedRequestHeader("X_Custom", true)).isTrue();
        assertThat(drop.isRemovedRequestHeader("_", false)).isTrue();
        assertThat(drop.isRemovedRequestHeader("X-Custom", false)).isFalse();
        assertThat(pass.isRemovedRequestHeader("X_Custom", false)).isFalse();
        assertThat(pass.isRemovedRequestHeader("x_akamai_client_ip", true)).isTrue();
        assertThat(pass.isRemovedRequestHeader("X-Akamai_Client-IP", false)).isTrue();
        // '-' and '_' fold into each other only: other bytes stay apart.
        assertThat(pass.isRemovedRequestHeader("X.Real.IP", false)).isFalse();
        assertThat(pass.isRemovedRequestHeader("X-Real-IQ", false)).isFalse();
    }

    /**
     * The outlines (first and last char and length of every name in a set) only ever skip names no
     * set holds: the answer with them is the answer of every set compared in full, for 30,000 names
     * per configuration made from the sets' own names (case, '-' and '_' swapped, an end changed, a
     * char added or cut, {@code proxy-} in front) and random tokens, from trusted and untrusted peers.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            hosts: []
            forwarding: {x_real_ip: true, remove_request_headers: [X-Debug, x-internal-token, X_Custom_Flag]}
            forwarding: {x_forwarded_for: "off", x_forwarded_proto: false, x_forwarded_host: false, request_id: {propagate: true}}
            forwarding: {headers_with_underscores: pass, remove_request_headers: [X_Custom_Flag], identity_headers: [X-My-IP]}
            forwarding: {headers_with_underscores: pass, identity_headers_from_trusted_proxies: [X-Forwarded-Proto, True-Client-IP]}
            client_ip: {header: True-Client-IP}
            """)
    void theOutlinesSkipOnlyNamesNoSetHolds(String yaml) {
        ForwardingRules f = rules(yaml + "\n");
        java.util.List<String> pool = new java.util.ArrayList<>(ForwardingRules.IDENTITY_HEADERS);
        pool.addAll(ForwardingRules.HOP_BY_HOP);
        pool.addAll(java.util.List.of("host", "content-length", "x-request-id", "traceparent", "tracestate", "x-debug",
                "x-internal-token", "x_custom_flag", "x-my-ip", "proxy-authorization", "proxy-", "proxy", "accept",
                "user-agent", "cookie", "p", "x", "_", "-"));
        java.util.Random random = new java.util.Random(yaml.hashCode());
        String token = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_!#$%&'*+.^`|~";
        for (int i = 0; i < 30_000; i++) {
            StringBuilder name = new StringBuilder(pool.get(random.nextInt(pool.size())));
            if (random.nextInt(8) == 0) {
                name.setLength(0);
                for (int k = 1 + random.nextInt(20); k > 0; k--) {
                    name.append(token.charAt(random.nextInt(token.length())));
                }
            }
            HeaderNameSetTest.scramble(random, name);
            switch (random.nextInt(8)) {
                case 0 -> name.insert(0, random.nextBoolean() ? "proxy-" : "Proxy_");
                case 1 -> name.append(token.charAt(random.nextInt(token.length())));
                case 2 -> name.setLength(Math.max(0, name.length() - 1));
                case 3 -> {
                    if (name.length() > 0) {
                        name.setCharAt(random.nextBoolean() ? 0 : name.length() - 1, token.charAt(random.nextInt(token.length())));
                    }
                }
                default -> {
                }
            }
            String n = name.toString();
            for (boolean trusted : new boolean[] {false, true}) {
                boolean expected = f.isRemovedInFull(n, trusted);
                assertThat(f.isRemovedRequestHeader(n, trusted)).as("%s, trusted %s", n, trusted).isEqualTo(expected);
                assertThat(f.isRemovedRequestHeader(BulkText.of(n), trusted)).as("%s as a view", n).isEqualTo(expected);
            }
        }
    }

    @Test
    void requestIdEchoIsOnByDefaultAndCanBeTurnedOff() {
        assertThat(rules(DEFAULTS + "\n").echoRequestId()).isTrue();
        assertThat(new String(rules(DEFAULTS + "\n").requestIdLinePrefix(), StandardCharsets.US_ASCII)).isEqualTo("X-Request-Id: ");
        assertThat(rules("forwarding: {request_id: {echo: false}}\n").echoRequestId()).isFalse();
    }

    @Test
    void anEchoedRequestIdReplacesTheUpstreamsOwnOnEveryHost() {
        String host = "hosts: [{names: [a.test], response_headers: {remove: [Server]}, routes: [{path: /, respond: {status: 204}}]}]\n";
        Snapshot on = CompiledFixtures.compile("edge.yaml", "forwarding: {request_id: {header: X-Correlation-Id}}\n" + host);
        Snapshot off = CompiledFixtures.compile("edge.yaml", "forwarding: {request_id: {echo: false}}\n" + host);
        try {
            assertThat(on.defaultResponseHeaders().isRemoved("x-correlation-id")).isTrue();
            assertThat(on.hostList().get(0).responseHeaders().isRemoved("X-Correlation-Id")).isTrue();
            assertThat(off.defaultResponseHeaders().isRemoved("X-Request-Id")).isFalse();
            assertThat(off.hostList().get(0).responseHeaders().isRemoved("X-Request-Id")).isFalse();
        } finally {
            on.release();
            off.release();
        }
    }

    @Test
    void aResponseHeaderNamedLikeTheEchoedRequestIdIsAnError() throws IOException, ConfigException {
        String name = "invalid/response-header-echoed-request-id.yaml";
        String yaml;
        try (InputStream in = ForwardingRulesTest.class.getResourceAsStream("/config/" + name)) {
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        ConfigError error = theOneCompileError(name, yaml);
        assertThat(error.path()).isEqualTo("hosts[0].response_headers.set.x-request-id");
        assertThat(error.line()).isEqualTo(4);
        assertThat(error.column()).isEqualTo(50); // the value, as compile-time errors point
        assertThat(error.problem()).contains("is the request id that forwarding.request_id.echo sends back");
        // the same with the echo off compiles
        rules(yaml.replace("hosts:", "forwarding: {request_id: {echo: false}}\nhosts:"));
    }

    @Test
    void requestIdForwardingIsOnByDefaultAndOffLeavesTheFieldToClientAndUpstream() {
        ForwardingRules on = rules(DEFAULTS + "\n");
        assertThat(on.forwardRequestId()).isTrue();
        assertThat(on.echoForwardedRequestId()).isTrue();
        assertThat(on.isRemovedRequestHeader("X-Request-Id", false)).isTrue();
        assertThat(on.isRemovedRequestHeader("x-request-id", true)).isTrue();

        ForwardingRules off = rules("forwarding: {request_id: {forward: false}}\n");
        assertThat(off.forwardRequestId()).isFalse();
        assertThat(off.echoRequestId()).isTrue(); // the gate's own answers still carry the id
        assertThat(off.echoForwardedRequestId()).isFalse();
        assertThat(off.isRemovedRequestHeader("X-Request-Id", false)).isFalse();
        assertThat(off.isRemovedRequestHeader("x-request-id", true)).isFalse();
        assertThat(off.isRemovedRequestHeader("traceparent", false)).isTrue(); // the trace fields stay ours

        String host = "hosts: [{names: [a.test], response_headers: {remove: [Server]}, routes: [{path: /, respond: {status: 204}}]}]\n";
        Snapshot s = CompiledFixtures.compile("edge.yaml", "forwarding: {request_id: {forward: false}}\n" + host);
        try {
            assertThat(s.defaultResponseHeaders().isRemoved("X-Request-Id")).isFalse();
            assertThat(s.hostList().get(0).responseHeaders().isRemoved("x-request-id")).isFalse();
        } finally {
            s.release();
        }
    }

    @Test
    void propagatingARequestIdThatIsNotForwardedIsAnError() throws ConfigException {
        String yaml = """
                forwarding:
                  request_id: {forward: false, propagate: true}
                hosts: []
                """;
        ConfigError error = theOneCompileError("edge.yaml", yaml);
        assertThat(error.path()).isEqualTo("forwarding.request_id.propagate");
        assertThat(error.line()).isEqualTo(2);
        assertThat(error.column()).isEqualTo(43); // the value
        assertThat(error.problem()).contains("kept only to be forwarded");
        rules(yaml.replace("propagate: true", "propagate: false"));
    }

    /** Compiles {@code yaml}, which must fail with exactly one error, in {@code file}; returns it. */
    private static ConfigError theOneCompileError(String file, String yaml) throws ConfigException {
        LoadedConfig loaded = ConfigLoader.parse(file, yaml);
        try {
            SnapshotCompiler.compile(loaded, PooledByteBufAllocator.DEFAULT).release();
            throw new AssertionError("expected a configuration error");
        } catch (ConfigException e) {
            assertThat(e.errors()).hasSize(1);
            assertThat(e.errors().get(0).file()).isEqualTo(file);
            return e.errors().get(0);
        }
    }
}
