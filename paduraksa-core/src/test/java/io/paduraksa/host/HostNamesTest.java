package io.paduraksa.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostNamesTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            example.test                  | example.test                  | EXACT
            Example.TEST                  | example.test                  | EXACT
            example.test.                 | example.test                  | EXACT
            localhost                     | localhost                     | EXACT
            bücher.test                   | xn--bcher-kva.test            | EXACT
            BÜCHER.test.                  | xn--bcher-kva.test            | EXACT
            XN--BCHER-KVA.test            | xn--bcher-kva.test            | EXACT
            例え.テスト                     | xn--r8jz45g.xn--zckzah        | EXACT
            a-b.c1.test                   | a-b.c1.test                   | EXACT
            *.w3.test                     | *.w3.test                     | WILDCARD
            *.W3.Test.                    | *.w3.test                     | WILDCARD
            *.bücher.test                 | *.xn--bcher-kva.test          | WILDCARD
            *.localhost                   | *.localhost                   | WILDCARD
            192.0.2.10                    | 192.0.2.10                    | EXACT
            [2001:DB8:0::1]               | [2001:db8::1]                 | IPV6_LITERAL
            [2001:0db8:0000:0000:0:0:0:1] | [2001:db8::1]                 | IPV6_LITERAL
            [::1]                         | [::1]                         | IPV6_LITERAL
            [::ffff:192.0.2.1]            | [::ffff:192.0.2.1]            | IPV6_LITERAL
            [::FFFF:c000:0201]            | [::ffff:192.0.2.1]            | IPV6_LITERAL
            *                             | *                             | CATCH_ALL
            """)
    void normalisesConfiguredNames(String configured, String canonical, HostNames.Kind kind) {
        HostNames.Name name = HostNames.parse(configured);
        assertThat(name.canonical()).isEqualTo(canonical);
        assertThat(name.kind()).isEqualTo(kind);
        assertThat(HostNames.normalize(configured)).isEqualTo(canonical);
    }

    @Test
    void wildcardLooksUpItsParentAndLiteralsKeepTheirAddress() {
        assertThat(HostNames.parse("*.w3.test").lookupKey()).isEqualTo("w3.test");
        assertThat(HostNames.parse("w3.test").lookupKey()).isEqualTo("w3.test");
        assertThat(HostNames.parse("*").lookupKey()).isEqualTo("*");
        HostNames.Name literal = HostNames.parse("[2001:db8::7]");
        assertThat(literal.ipHigh()).isEqualTo(0x20010db800000000L);
        assertThat(literal.ipLow()).isEqualTo(7);
    }

    @ParameterizedTest(name = "[{0}]")
    @CsvSource(delimiter = '|', textBlock = """
            ''                     | it is empty
            .                      | it has an empty label
            example..test          | it has an empty label
            .example.test          | it has an empty label
            example.test..         | it has an empty label
            *.                     | '*' may only be the whole name (the catch-all) or the whole first label
            **                     | '*' may only be the whole name (the catch-all) or the whole first label
            a*.test                | '*' may only be the whole name (the catch-all) or the whole first label
            *a.test                | '*' may only be the whole name (the catch-all) or the whole first label
            a.*.test               | '*' may only be the whole name (the catch-all) or the whole first label
            *.*.test               | '*' may only be the whole name (the catch-all) or the whole first label
            example.test:8080      | a configured host name has no port
            2001:db8::1            | an IPv6 address is written in brackets
            [2001:db8::1]:443      | expected an IPv6 address in brackets
            [2001:db8::1           | expected an IPv6 address in brackets
            [192.0.2.1]            | expected an IPv6 address in brackets
            [fe80::1%eth0]         | expected an IPv6 address in brackets
            [2001:db8::g]          | expected an IPv6 address in brackets
            exa_mple.test          | '_' is not allowed
            exa mple.test          | ' ' is not allowed
            -example.test          | starts or ends with a hyphen
            example-.test          | starts or ends with a hyphen
            192.0.2.256            | must be an IPv4 address
            192.0.2.010            | must be an IPv4 address
            1.2.3                  | must be an IPv4 address
            *.0.2.10               | must be an IPv4 address
            example.123            | must be an IPv4 address
            """)
    void rejectsInvalidNamesWithTheReason(String configured, String reason) {
        assertThatThrownBy(() -> HostNames.parse(configured))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid host name '" + configured + "': ")
                .hasMessageContaining(reason)
                .hasMessageEndingWith("(expected a DNS name, *.parent, * for every other host, an IPv4 address or an IPv6 address in brackets)");
    }

    @Test
    void rejectsOverlongLabelsAndNames() {
        String label63 = "a".repeat(63);
        assertThat(HostNames.normalize(label63 + ".test")).hasSize(68);
        assertThatThrownBy(() -> HostNames.parse("a" + label63 + ".test")).hasMessageContaining("a label has at most 63");
        String name253 = (label63 + ".").repeat(3) + "b".repeat(61);
        assertThat(HostNames.normalize(name253)).hasSize(253);
        assertThat(HostNames.normalize(name253 + ".")).hasSize(253);
        assertThatThrownBy(() -> HostNames.parse(name253 + "b")).hasMessageContaining("a host name has at most 253");
        assertThatThrownBy(() -> HostNames.parse("*." + name253.substring(1))).hasMessageContaining("at most 253");
    }

    @Test
    void rejectsInvalidInternationalisedNames() {
        assertThatThrownBy(() -> HostNames.parse("\u0000ü.test")).hasMessageContaining("invalid host name");
        assertThatThrownBy(() -> HostNames.parse("ü".repeat(80) + ".test"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a valid internationalised name");
    }

    @Test
    void rejectsNull() {
        assertThatThrownBy(() -> HostNames.parse(null)).hasMessage(
                "invalid host name null: it is empty (expected a DNS name, *.parent, * for every other host, an IPv4 address or an IPv6 address in brackets)");
    }
}
