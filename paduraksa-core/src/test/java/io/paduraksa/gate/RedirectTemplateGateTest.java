package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.config.ConfigException;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Redirects whose location is built from the request, through the gate: what the client is sent to. */
class RedirectTemplateGateTest {
    private static final String YAML = """
            hosts:
              - names: [shop.test, "*.shop.test"]
                routes:
                  - {path: /old, redirect: {location: "https://${host}/new${query}", status: 301}}
                  - {path: /, redirect: {location: "https://${host}${request_uri}", status: 308}}
            default:
              redirect: {location: "https://www.shop.test${request_uri}", status: 301}
            """;
    private static Snapshot snapshot;
    private static Gate gate;

    @BeforeAll
    static void compile() {
        snapshot = CompiledFixtures.compile("edge.yaml", YAML);
        gate = new Gate(new SnapshotStore(snapshot));
    }

    @AfterAll
    static void release() {
        snapshot.release();
    }

    /** The status and Location the gate's answer carries for a request, as an HTTP/1.1 writer writes them. */
    static String answer(String host, String target) {
        StaticRequestView view = new StaticRequestView().client(GateTest.PEER).authority(host).target(target);
        RequestState state = new RequestState();
        assertThat(gate.run(view, state)).isEqualTo(GateOutcome.RESPOND);
        PrecomputedResponse r = state.response();
        if (r.headerTemplate() == null) {
            return Integer.toString(r.status());
        }
        ByteBuf out = Unpooled.buffer();
        r.writeHttp1Head(out, new DateHeader(), false, state);
        String head = out.toString(StandardCharsets.US_ASCII);
        out.release();
        int at = head.indexOf("Location: ");
        return r.status() + " " + head.substring(at + 10, head.indexOf("\r\n", at));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "shop.test         | /a/b?x=1           | 308 https://shop.test/a/b?x=1",
        "SHOP.test.:8080   | /a/./b/../c        | 308 https://shop.test/a/c",
        "shop.test         | /old?ref=mail      | 301 https://shop.test/new?ref=mail",
        "shop.test         | /old;jsessionid=1  | 301 https://shop.test/new",
        "a.shop.test       | /%7Euser/          | 308 https://a.shop.test/~user/",
        "unknown.test      | /x?y=%0d%0a        | 301 https://www.shop.test/x?y=%0d%0a",
        "unknown.test      | //evil.test/x      | 301 https://www.shop.test/evil.test/x",
        "shop.test         | /a\"b              | 308 https://shop.test/a%22b",
    })
    void sendsTheClientToTheSameSiteWithItsPath(String host, String target, String expected) {
        assertThat(answer(host.strip(), target.strip())).isEqualTo(expected.strip());
    }

    /** A request the path normaliser refuses is refused, not redirected. */
    @Test
    void aPathTheNormaliserRefusesIs400() {
        assertThat(answer("shop.test", "/../etc/passwd")).isEqualTo("400");
        assertThat(answer("unknown.test", "/a/%2e%2e/%2e%2e/x")).isEqualTo("400");
    }

    /**
     * The default answers every unknown host, valid or not; a template that does not name {@code ${host}}
     * still redirects, one that does is only filled with a valid name.
     */
    @Test
    void aHostileHostIsNeverWrittenIntoALocation() {
        assertThat(answer("evil.test/x", "/")).isEqualTo("301 https://www.shop.test/");
        for (String host : new String[] {"evil.test/x.shop.test", "evil.test\\.shop.test", "a@evil.test.shop.test",
            "evil.test?.shop.test", "evil.test#.shop.test", "a_b.shop.test", "evil.test:1@x.shop.test"}) {
            assertThat(answer(host, "/")).as(host).doesNotContain("evil").doesNotContain("@").doesNotContain("_")
                    .isIn("301 https://www.shop.test/", "400");
        }
    }

    @Test
    void aTemplateThatLetsTheRequestPickTheSiteIsAConfigError() {
        String bad = YAML.replace("\"https://${host}/new${query}\"", "\"https://${path}\"");
        assertThatThrownBy(() -> io.paduraksa.snapshot.SnapshotCompiler.compile(
                io.paduraksa.config.ConfigLoader.parse("edge.yaml", bad), io.netty.buffer.PooledByteBufAllocator.DEFAULT))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("edge.yaml:4:")
                .hasMessageContaining("hosts[0].routes[0].redirect.location")
                .hasMessageContaining("where the host goes");
    }
}
