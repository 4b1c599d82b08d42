package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One fixture per binding rule in {@code config/invalid/}: path, line, column and the message. */
class InvalidConfigTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown-key               | hosts[0].polices                    | 3 | 5  | unknown key (did you mean 'policies'?)
            unknown-key-deep          | clusters.app.health.pasive          | 5 | 7  | unknown key (did you mean 'passive'?)
            unknown-key-top           | listners                            | 1 | 1  | unknown key (did you mean 'listeners'?)
            unknown-key-no-suggestion | hosts[0].routes[0].zzz              | 4 | 33 | unknown key (expected one of: path, policies, respond, redirect, forward, drop, cache)
            policy-unknown-key        | policies.office.alow                | 4 | 5  | unknown key (did you mean 'allow'?)
            string-for-list           | hosts[0].names                      | 2 | 12 | found 'www.example.test' (expected a list
            list-for-map              | clusters                            | 2 | 3  | found a list (expected a mapping)
            root-list                 | ''                                  | 1 | 1  | found a list (expected a mapping with keys: listeners,
            weight-heavy              | clusters.app.destinations[0].weight | 5 | 17 | found 'heavy' (expected an integer from 1 to 1000)
            status-abc                | default.respond.status              | 3 | 13 | found 'abc' (expected a status from 200 to 599)
            status-range              | default.respond.status              | 2 | 21 | found '999' (expected a status from 200 to 599)
            redirect-status           | default.redirect.status             | 2 | 61 | found '200' (expected one of: 301, 302, 303, 307, 308)
            redirect-location-open    | default.redirect.location           | 2 | 24 | 'https://${path}' puts ${path} where the host goes
            redirect-location-placeholder | default.redirect.location       | 2 | 24 | unknown placeholder ${hostname} (expected one of: ${scheme}, ${host}
            boolean-yes               | listeners[0].admin                  | 3 | 12 | found 'yes' (expected true or false)
            empty-list-item           | hosts[0].names[1]                   | 4 | 8  | found an empty value (expected host names
            duration-unitless         | clusters.app.timeouts.connect       | 4 | 25 | found '5' (expected a duration like 500ms, 5s, 1m, 2h)
            duration-space            | limits.header_timeout               | 2 | 19 | found '5 s' (expected a duration like 500ms, 5s, 1m, 2h)
            duration-negative         | limits.idle_timeout                 | 2 | 17 | found '-1s' (expected a duration like
            duration-unit             | limits.idle_timeout                 | 2 | 17 | found '5x' (expected a duration like
            duration-empty            | limits.idle_timeout                 | 2 | 17 | found '' (expected a duration like
            duration-zero             | limits.header_timeout               | 2 | 19 | found '0s', a duration must be positive
            send-timeout-zero         | limits.send_timeout                 | 3 | 17 | found '0s', a duration must be positive
            takeover-socket-relative  | server.takeover_socket              | 3 | 20 | found 'run/takeover.sock' (expected an absolute path, like /run/paduraksa/takeover.sock)
            size-negative             | limits.max_body_size                | 2 | 18 | found '-1' (expected a size like 512, 64KiB, 1MiB, 2GiB or 1kB, 1MB, 1GB)
            size-unit                 | limits.max_body_size                | 2 | 18 | found '10KB' (expected a size like
            size-overflow             | limits.max_body_size                | 2 | 18 | found '99999999TiB' (expected a size like
            size-zero                 | limits.max_request_line             | 2 | 21 | a size must be positive
            limit-not-positive        | limits.max_headers                  | 2 | 16 | found '0' (expected a positive integer)
            url-scheme                | clusters.app.destinations[0].url    | 3 | 26 | 'ftp://192.0.2.10' is not an http:// or https:// URL (expected an absolute
            url-userinfo              | clusters.app.destinations[0].url    | 3 | 26 | 'http://user:secret@192.0.2.10:8080' has user info
            url-query                 | clusters.app.destinations[0].url    | 3 | 26 | 'http://192.0.2.10:8080/?x=1' has a query or fragment
            url-path                  | clusters.app.destinations[0].url    | 3 | 26 | 'http://192.0.2.10:8080/api' has a path
            url-relative              | clusters.app.destinations[0].url    | 3 | 26 | found '192.0.2.10:8080' (expected an absolute http:// or https:// URL
            url-missing               | clusters.app.destinations[0].url    | 4 | 9  | missing (expected an absolute http:// or https:// URL
            destinations-empty        | clusters.app.destinations           | 3 | 19 | found an empty list (expected at least one
            address-no-port           | listeners[0].address                | 2 | 14 | '0.0.0.0' has no port (expected host:port or [v6]:port with a port from 1 to 65535
            address-port-range        | listeners[0].address                | 2 | 14 | '0.0.0.0:70000' has no valid port
            address-v6-brackets       | listeners[0].address                | 2 | 14 | '2001:db8::1:8080' needs brackets around its IPv6 address
            address-missing           | listeners[0].address                | 2 | 5  | missing (expected host:port
            protocol-unknown          | listeners[0].protocols[1]           | 3 | 24 | unknown protocol 'http3' (expected one of: http1, h2c, h2, h3)
            protocol-h2-without-tls   | listeners[0].protocols[1]           | 3 | 24 | 'h2' needs tls on this listener
            protocol-h3-without-tls   | listeners[0].protocols[1]           | 3 | 24 | 'h3' is HTTP/3 over QUIC, which always runs TLS, but this listener has no tls
            http3-without-h3          | listeners[0].http3                  | 4 | 5  | HTTP/3 settings on a listener that does not serve HTTP/3 (expected h3 in this listener's protocols)
            http3-max-streams         | listeners[0].http3.max_streams      | 5 | 26 | found '0' (expected an integer from 1 to 10000)
            http3-field-section       | listeners[0].http3.max_field_section_size | 5 | 37 | found '100B' (expected a size from 1KiB to 1MiB, like 32KiB)
            policy-type-missing       | policies.bad-bots.type              | 3 | 5  | missing 'type' (expected one of: ip, user_agent, path, method, rate_limit, request, challenge, country, forward_auth, attacks)
            policy-type-unknown       | policies.bad-bots.type              | 3 | 11 | unknown type 'useragent' (expected one of: ip, user_agent, path, method, rate_limit, request, challenge, country, forward_auth, attacks)
            rate-limit-rate           | policies.api-limit.rate             | 4 | 11 | found '10/sec' (expected a rate like 10/s, 600/m or 5000/h
            rate-limit-rate-missing   | policies.api-limit.rate             | 3 | 5  | missing (expected a rate like 10/s, 600/m or 5000/h)
            rate-limit-key            | policies.api-limit.key              | 4 | 10 | unknown key 'client-ip' (expected one of: client_ip, client_ip_and_host, client_ip_and_route, header:<Name>)
            rate-limit-header-key     | policies.api-limit.key              | 4 | 10 | 'header:X Api Key' does not name a header (expected header:<Name>
            rate-limit-burst          | policies.api-limit.burst            | 2 | 52 | found '0' (expected a positive integer)
            rate-limit-max-keys       | policies.api-limit.max_keys         | 2 | 55 | found '-5' (expected a positive integer)
            rate-limit-when-full      | policies.api-limit.when_full        | 2 | 56 | unknown value 'reject' (expected one of: deny, allow)
            rate-limit-idle-after     | policies.api-limit.idle_after       | 2 | 57 | found '0s', a duration must be positive
            challenge-difficulty      | policies.pow.difficulty             | 2 | 38 | found '40' (expected an integer from 1 to 32)
            challenge-key-secret      | policies.pow.keys[0]                | 5 | 9  | a key needs its secret (expected exactly one of: secret, secret_file)
            challenge-key-id          | policies.pow.keys[0].id             | 4 | 17 | 'k 1' is not a key id
            challenge-keys-missing    | policies.pow.keys                   | 2 | 8  | keys
            challenge-bind-host       | policies.pow.bind_host              | 2 | 37 | found 'yes' (expected true or false)
            country-code              | policies.geo.allow[1]               | 2 | 36 | 'DEU' is not a country code
            country-empty             | policies.geo                        | 3 | 5  | a country policy checks nothing
            country-unknown           | policies.geo.unknown                | 2 | 45 | unknown value 'block' (expected one of: allow, deny)
            attacks-paranoia          | policies.waf.paranoia               | 2 | 34 | found '5' (expected an integer from 1 to 4)
            attacks-threshold         | policies.waf.threshold              | 4 | 16 | found '0' (expected a positive integer)
            attacks-file-bytes        | policies.waf.inspect.body.file_bytes | 4 | 34 | found '32MiB', the inspected file bytes must be from 0 B to 16MiB
            rate-limit-distributed-redis       | policies.api-limit.distributed.redis            | 5 | 26 | 'http://***@127.0.0.1:6379' is not a Redis URI (expected a redis:// or rediss:// URI
            rate-limit-distributed-unreachable | policies.api-limit.distributed.when_unreachable | 5 | 70 | unknown value 'open' (expected one of: deny, allow)
            rate-limit-distributed-share       | policies.api-limit.distributed.share            | 5 | 59 | found '0%' (expected a share above 0% up to 100%
            rate-limit-distributed-missing     | policies.api-limit.distributed.redis            | 5 | 18 | missing (expected a redis:// or rediss:// URI
            request-empty             | policies.no-bots                    | 3 | 5  | a request policy checks nothing (expected at least one of: deny, allow, max_body, bot_signal)
            request-max-body          | policies.no-bots.max_body           | 4 | 15 | found '1m' (expected a size like 512, 64KiB, 1MiB
            request-rule-two-subjects | policies.no-bots.deny[0]            | 5 | 9  | a rule looks at one thing, found [header, query] (expected exactly one of: header, query, method)
            request-rule-no-match     | policies.no-bots.deny[0]            | 5 | 9  | a header rule needs how it matches (expected exactly one of: present, exact, prefix, contains)
            request-rule-two-matches  | policies.no-bots.deny[0]            | 5 | 9  | found [prefix, contains] (expected exactly one of: present, exact, prefix, contains)
            request-rule-header-name  | policies.no-bots.deny[0].header     | 5 | 18 | 'X Debug' is not a header name
            request-rule-query-name   | policies.no-bots.deny[0].query      | 5 | 17 | 'debug=1' is not a query parameter name (expected a name without &, ;, = or #
            request-rule-empty-value  | policies.no-bots.deny[0].prefix     | 5 | 38 | found an empty string (expected a non-empty value, or present: true/false)
            request-rule-method-lowercase | policies.no-bots.deny[0].method[1] | 5 | 26 | 'track' would never match: methods are case-sensitive (expected 'TRACK')
            request-rule-method-extra | policies.no-bots.deny[0].present    | 5 | 27 | a method rule lists methods only (expected {method: [TRACE, TRACK]})
            request-rule-method-scalar | policies.no-bots.deny[0].method    | 5 | 18 | found 'TRACE' (expected a list of methods like TRACE)
            request-rule-unknown-key  | policies.no-bots.deny[0].presnt     | 5 | 27 | unknown key (did you mean 'present'?)
            method-lowercase          | policies.read-only.allow[1]         | 4 | 18 | 'head' would never match: methods are case-sensitive (expected 'HEAD')
            load-balancing            | clusters.app.load_balancing         | 4 | 21 | unknown value 'round-robin' (did you mean 'round_robin'?
            header-injection          | default.respond.headers.X-Note      | 4 | 15 | 'a\\r\\nSet-Cookie: x=1' has a line break
            duplicate-key             | clusters.app                        | 4 | 3  | duplicate key, first written at line 2 (expected each key once in a mapping)
            alias                     | policies.more-bots.deny             | 7 | 11 | alias '*bots' (expected the value written out
            second-document           | ''                                  | 3 | 1  | a second YAML document (expected one document per file)
            syntax-indentation        | ''                                  | 3 | 6  | YAML syntax error: expected <block end>, but found '<block mapping start>' (while parsing a block mapping that starts at line 2, column 5)
            syntax-unclosed-quote     | ''                                  | 2 | 14 | YAML syntax error: found unexpected end of stream (while scanning a quoted scalar that starts at line 2, column 14)
            wildcard-unquoted         | ''                                  | 2 | 32 | (quote values that start with * or &, like "*.example.test")
            weight-range              | clusters.app.destinations[0].weight | 5 | 17 | found '1001' (expected an integer from 1 to 1000)
            threshold-zero            | clusters.app.health.active.healthy_threshold | 5 | 51 | found '0' (expected a positive integer)
            eject-order               | clusters.app.health.passive.max_eject_for | 5 | 48 | max_eject_for 30s is shorter than eject_for 1m (expected max_eject_for >= eject_for)
            retry-attempts            | clusters.app.retry.attempts         | 4 | 23 | found '6' (expected an integer from 0 to 5)
            retry-budget-range        | clusters.app.retry.budget           | 4 | 21 | found '150%', out of range (expected a share like 20% or 0.2, from 0% to 100%)
            retry-budget-text         | clusters.app.retry.budget           | 4 | 21 | found 'lots' (expected a share like 20% or 0.2, from 0% to 100%)
            pool-negative             | clusters.app.pool.max_requests_per_connection | 4 | 41 | found '-1' (expected 0 or a positive integer)
            upstream-protocol         | clusters.app.protocol               | 4 | 15 | unknown value 'http2' (did you mean
            affinity-cookie           | clusters.app.affinity.cookie        | 4 | 24 | 'my cookie' is not a cookie name
            tls-sni-ip                | clusters.app.tls.sni                | 4 | 16 | '192.0.2.10' is not a host name; SNI carries no IP literals
            forwarding-unknown-key    | forwarding.x_forwarded_fro          | 2 | 3  | unknown key (did you mean 'x_forwarded_for'?)
            x-forwarded-for-value     | forwarding.x_forwarded_for          | 2 | 20 | unknown value 'appnd' (did you mean 'append'? expected one of: replace, append, off)
            path-parameters-value     | normalize.path_parameters           | 3 | 20 | unknown value 'remove' (expected one of: strip, reject, keep)
            via-pseudonym             | forwarding.via                      | 2 | 8  | 'my proxy' is not a Via pseudonym
            request-id-hop-by-hop     | forwarding.request_id.header        | 2 | 24 | 'Upgrade' is a hop-by-hop or framing header that the proxy manages itself
            request-header-framing    | forwarding.remove_request_headers[1] | 2 | 37 | 'Content-Length' is a hop-by-hop or framing header
            identity-header-framing   | forwarding.identity_headers[1]      | 2 | 42 | 'Transfer-Encoding' is a hop-by-hop or framing header
            identity-header-trusted-name | forwarding.identity_headers_from_trusted_proxies[0] | 2 | 43 | 'X-Client IP' is not a header name
            headers-with-underscores  | forwarding.headers_with_underscores | 2 | 29 | unknown value 'keep'
            response-header-hop-by-hop | forwarding.response_headers.set.Connection | 3 | 11 | 'Connection' is a hop-by-hop or framing header
            response-header-twice     | forwarding.response_headers.set.x-frame-options | 3 | 34 | 'x-frame-options' is set twice (expected each header once; names are case-insensitive)
            response-header-value     | hosts[0].response_headers.set.X-Note | 4 | 21 | 'café' has a character other than visible ASCII, space or tab
            response-header-name      | hosts[0].response_headers.remove[0] | 4 | 16 | 'X Powered By' is not a header name
            response-header-set-and-removed | hosts[0].response_headers.remove[1] | 5 | 30 | 'server' is both set and removed
            route-cache-unknown-key   | hosts[0].routes[0].cache.stale_if_eror | 6 | 17 | unknown key (did you mean 'stale_if_error'?)
            cache-coalesce-zero       | cache.coalesce_timeout              | 2 | 21 | found '0s', a duration must be positive
            empty                     | ''                                  | 1 | 1  | the file has no configuration
            comments-only             | ''                                  | 1 | 1  | the file has no configuration
            """)
    void eachRuleReportsPathLineAndColumn(String fixture, String path, int line, int column, String fragment)
            throws IOException {
        String name = "invalid/" + fixture + ".yaml";

        List<ConfigError> errors = errorsOf(name);

        assertThat(errors).hasSize(1);
        ConfigError error = errors.get(0);
        assertThat(error.file()).isEqualTo(name);
        assertThat(error.path()).isEqualTo(path);
        assertThat(error.line()).as("line of %s", error).isEqualTo(line);
        assertThat(error.column()).as("column of %s", error).isEqualTo(column);
        assertThat(error.problem()).contains(fragment.replace("\\\\", "\\"));
        assertThat(error.toString()).doesNotContain("io.paduraksa", "java.", "Spec", "\n");
    }

    @Test
    void oneFileWithManyErrorsReportsEveryOneInFileOrder() throws IOException {
        List<ConfigError> errors = errorsOf("invalid/multi.yaml");

        assertThat(errors).extracting(ConfigError::toString).containsExactly(
                "invalid/multi.yaml:3:14: listeners[0].address: '0.0.0.0:80800' has no valid port (expected host:port or"
                        + " [v6]:port with a port from 1 to 65535, like 0.0.0.0:8080 or [::]:8443)",
                "invalid/multi.yaml:9:17: clusters.app.destinations[0].weight: found 'heavy' (expected an integer from 1 to 1000)",
                "invalid/multi.yaml:10:25: clusters.app.timeouts.connect: found '5' (expected a duration like 500ms, 5s, 1m, 2h)",
                "invalid/multi.yaml:13:11: policies.bad-bots.type: unknown type 'useragent'"
                        + " (expected one of: ip, user_agent, path, method, rate_limit, request, challenge, country, forward_auth, attacks)",
                "invalid/multi.yaml:16:12: hosts[0].names: found 'www.example.test'"
                        + " (expected a list of host names like www.example.test or *.example.test)",
                "invalid/multi.yaml:17:5: hosts[0].polices: unknown key (did you mean 'policies'?)",
                "invalid/multi.yaml:21:18: limits.max_body_size: found '10KB'"
                        + " (expected a size like 512, 64KiB, 1MiB, 2GiB or 1kB, 1MB, 1GB)");
    }

    @Test
    void exceptionMessageListsEveryErrorOnItsOwnLine() throws IOException {
        String text = fixture("invalid/multi.yaml");

        assertThatThrownBy(() -> ConfigLoader.parse("edge.yaml", text))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("7 configuration errors\nedge.yaml:3:14: listeners[0].address: ")
                .hasMessageContaining("\nedge.yaml:17:5: hosts[0].polices: unknown key (did you mean 'policies'?)\n");
    }

    @Test
    void duplicateKeysAndOtherErrorsAreReportedTogether() {
        String text = """
                clusters:
                  app:
                    destinations: [{url: "http://192.0.2.10:8080"}]
                    timeouts: {connect: soon}
                  app:
                    destinations: []
                """;

        assertThatThrownBy(() -> ConfigLoader.parse("edge.yaml", text))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors())
                        .extracting(ConfigError::toString)
                        .containsExactly(
                                "edge.yaml:4:25: clusters.app.timeouts.connect: found 'soon'"
                                        + " (expected a duration like 500ms, 5s, 1m, 2h)",
                                "edge.yaml:5:3: clusters.app: duplicate key, first written at line 2"
                                        + " (expected each key once in a mapping)"));
    }

    static List<ConfigError> errorsOf(String name) throws IOException {
        String text = fixture(name);
        try {
            ConfigLoader.parse(name, text);
        } catch (ConfigException e) {
            return e.errors();
        }
        throw new AssertionError(name + " loaded without errors");
    }

    static String fixture(String name) throws IOException {
        try (InputStream in = InvalidConfigTest.class.getResourceAsStream("/config/" + name)) {
            if (in == null) {
                throw new IOException("no fixture " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
