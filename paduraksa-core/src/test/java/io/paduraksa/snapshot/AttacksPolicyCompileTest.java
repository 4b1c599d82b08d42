package io.paduraksa.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.attack.AttacksPolicy;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code type: attacks} compiles with its defaults; compile-time errors name path and line. */
class AttacksPolicyCompileTest {
    private static final String HEAD = """
            clusters:
              app:
                destinations: [{url: "http://127.0.0.1:9001"}]
            hosts:
              - names: [a.test]
                policies: [waf]
                routes: [{path: /, forward: app}]
            policies:
              waf:
                type: attacks
            """;

    @Test
    void theBenchmarkShapeCompilesWithItsDefaults() throws Exception {
        Snapshot s = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", HEAD + """
                    paranoia: 1
                    threshold: 5
                    inspect: {path: true, query: true, cookies: true, headers: [User-Agent, Referer]}
                    detect_only: false
                    exclusions:
                      - {rules: [942100], arguments: [q], paths: [/search]}
                    action: {respond: {status: 403}}
                """), PooledByteBufAllocator.DEFAULT);
        try {
            AttacksPolicy waf = (AttacksPolicy) s.policies().get("waf");
            TestPolicyInput attack = new TestPolicyInput().path("/other");
            attack.target("/other?q=1+union+select+1");
            TestPolicyInput excluded = new TestPolicyInput().path("/search");
            excluded.target("/search?q=a+union+select+1"); // "1 union select 1" also matches 942360, which is not excluded

            assertThat(waf.evaluate(attack).action()).isEqualTo(PolicyDecision.Action.RESPOND);
            assertThat(waf.evaluate(attack).response().status()).isEqualTo(403);
            assertThat(waf.evaluate(excluded)).isSameAs(PolicyDecision.CONTINUE);
            assertThat(waf).hasToString("AttacksPolicy[waf, paranoia 1, threshold 5, 1 exclusions -> RESPOND 403]");
        } finally {
            s.release();
        }
    }

    @Test
    void aBodyKeyTurnsOnTheBodyPhase() throws Exception {
        Snapshot s = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", HEAD + """
                    inspect: {body: {max: 16B, on_oversize: deny, timeout: 2s}}
                """), PooledByteBufAllocator.DEFAULT);
        Snapshot off = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", HEAD), PooledByteBufAllocator.DEFAULT);
        try {
            AttacksPolicy waf = (AttacksPolicy) s.policies().get("waf");
            TestPolicyInput post = new TestPolicyInput().path("/form").method("POST").hasBody(true);
            post.target("/form");
            post.header("Content-Type", "application/x-www-form-urlencoded");
            assertThat(waf.evaluate(post)).isSameAs(PolicyDecision.NEEDS_ASYNC);
            assertThat(waf.bodyTimeoutNanos()).isEqualTo(2_000_000_000L);
            io.paduraksa.policy.BodyScan scan = waf.startBody(post, Long.MAX_VALUE);
            assertThat(scan.feed(io.netty.buffer.Unpooled.wrappedBuffer(new byte[17])).response().status())
                    .as("17 bytes over max 16B with on_oversize: deny").isEqualTo(403);
            scan.release();
            assertThat(((AttacksPolicy) off.policies().get("waf")).evaluate(post)).as("no body key: no body phase")
                    .isSameAs(PolicyDecision.CONTINUE);
        } finally {
            s.release();
            off.release();
        }
    }

    @Test
    void allHeadersTurnsOnEveryOtherHeader() throws Exception {
        Snapshot on = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", HEAD + """
                    inspect: {all_headers: true}
                """), PooledByteBufAllocator.DEFAULT);
        Snapshot off = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", HEAD), PooledByteBufAllocator.DEFAULT);
        Snapshot only = SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", HEAD + """
                    inspect: {path: false, query: false, cookies: false, headers: [], all_headers: true}
                """), PooledByteBufAllocator.DEFAULT);
        try {
            TestPolicyInput request = new TestPolicyInput().path("/");
            request.target("/");
            request.header("X-Api-Client", "com.opensymphony.xwork2");

            assertThat(((AttacksPolicy) on.policies().get("waf")).evaluate(request).action()).isEqualTo(PolicyDecision.Action.RESPOND);
            assertThat(((AttacksPolicy) only.policies().get("waf")).evaluate(request).action()).isEqualTo(PolicyDecision.Action.RESPOND);
            assertThat(((AttacksPolicy) off.policies().get("waf")).evaluate(request)).as("all_headers defaults to false")
                    .isSameAs(PolicyDecision.CONTINUE);
        } finally {
            on.release();
            off.release();
            only.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            unknown rule id  | exclusions: [{rules: [942999]}]                  | policies.waf.exclusions[0].rules[0] | 11 | no rule or group 942999 (expected a rule id like 942100
            bad on_oversize  | inspect: {body: {on_oversize: skip}}             | policies.waf.inspect.body.on_oversize | 11 | one of: inspect_prefix, deny
            body too large   | inspect: {body: {max: 32MiB}}                    | policies.waf.inspect.body.max       | 11 | from 1 B to 16MiB
            body timeout 0   | inspect: {body: {timeout: 0s}}                   | policies.waf.inspect.body.timeout   | 11 | positive
            inspects nothing | inspect: {path: false, query: false, cookies: false, headers: []} | policies.waf.inspect | 11 | inspects nothing
            all_headers type | inspect: {all_headers: yes please}              | policies.waf.inspect.all_headers    | 11 | expected true or false
            """)
    void compileErrorsNameThePathAndLine(String what, String yaml, String path, int line, String fragment) {
        List<ConfigError> errors;
        try {
            SnapshotCompiler.compile(ConfigLoader.parse("edge.yaml", HEAD + "    " + yaml + "\n"), PooledByteBufAllocator.DEFAULT).release();
            throw new AssertionError("expected configuration errors");
        } catch (ConfigException e) {
            errors = e.errors();
        }
        assertThat(errors).as(errors.toString()).anySatisfy(e -> {
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.line()).isEqualTo(line);
            assertThat(e.column()).isPositive();
            assertThat(e.problem()).contains(fragment);
        });
    }
}
