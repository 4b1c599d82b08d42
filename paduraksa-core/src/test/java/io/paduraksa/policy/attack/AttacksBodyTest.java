package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.policy.BodyScan;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.testing.TestPolicyInput;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The body phase: form and JSON bodies cut into arguments as chunks arrive, scored with the head. */
class AttacksBodyTest {
    static final PolicyDecision DENIED = PolicyDecision.DROP;
    static final String FORM = "application/x-www-form-urlencoded";
    static final String JSON = "application/json";

    static AttacksPolicy policy(long max, boolean denyOversize) {
        return new AttacksPolicy("waf", 1, 5, true, true, true, List.of("User-Agent", "Referer"), false, List.of(), DENIED,
                max, denyOversize, TimeUnit.SECONDS.toNanos(10));
    }

    static TestPolicyInput request(String contentType) {
        TestPolicyInput r = new TestPolicyInput().path("/comment");
        r.target("/comment");
        r.method("POST");
        r.header("Content-Type", contentType);
        r.hasBody(true);
        return r;
    }

    /** The body phase over {@code body} cut at the given positions; the decision and the log line. */
    static PolicyDecision scan(AttacksPolicy policy, TestPolicyInput r, String body, int... cuts) {
        assertThat(policy.evaluate(r)).isSameAs(PolicyDecision.NEEDS_ASYNC);
        BodyScan scan = policy.startBody(r, Long.MAX_VALUE);
        try {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            int from = 0;
            for (int i = 0; i <= cuts.length; i++) {
                int to = i < cuts.length ? cuts[i] : bytes.length;
                ByteBuf chunk = Unpooled.wrappedBuffer(bytes, from, to - from);
                PolicyDecision d = scan.feed(chunk);
                assertThat(chunk.readableBytes()).as("feed does not consume").isEqualTo(to - from);
                if (d != null) {
                    return d;
                }
                from = to;
            }
            return scan.end();
        } finally {
            scan.release();
        }
    }

    static String lastLog() {
        return AttacksPolicy.lastBodyLogOnThisThread();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            form SQLi               | application/x-www-form-urlencoded | name=ann&comment=1%20union%20select%201&x=1 | 942
            form SQLi, plus         | application/x-www-form-urlencoded | comment=1+union+select+1                    | 942
            form XSS in a name      | application/x-www-form-urlencoded | %3Cscript%3Ealert(1)%3C/script%3E=1         | 941
            JSON XSS escaped        | application/json                  | {"comment":"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"} | 941
            JSON SQLi nested        | application/json                  | {"a":[1,true,null,{"q":"1 union select 1"}]} | 942
            JSON key                | application/json                  | {"<script>alert(1)</script>":1}              | 941
            +json type              | application/cloudevents+json; charset=utf-8 | {"q":"1 union select 1"}           | 942
            """)
    void attacksInTheBodyAreDeniedWhereverTheChunksAreCut(String what, String type, String body, String group) {
        AttacksPolicy policy = policy(64 * 1024, false);
        int length = body.getBytes(StandardCharsets.UTF_8).length;
        assertThat(scan(policy, request(type), body)).as("whole").isSameAs(DENIED);
        assertThat(lastLog()).contains(" body");
        for (int cut = 0; cut <= length; cut++) {
            assertThat(scan(policy, request(type), body, cut)).as("cut at " + cut).isSameAs(DENIED);
        }
        for (int a = 1; a < length; a += 3) {
            assertThat(scan(policy, request(type), body, a, Math.min(length, a + 1), Math.min(length, a + 2)))
                    .as("cut at " + a + ", +1, +2").isSameAs(DENIED);
        }
        assertThat(lastLog()).contains(group);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            checkout form     | application/x-www-form-urlencoded | name=Siobh%C3%A1n+O%27Brien&email=ann%2Btag%40example.test&note=leave+at+the+door
            form, no value    | application/x-www-form-urlencoded | subscribe&lang=en&&
            JSON order        | application/json                  | {"items":[{"sku":"A-1","qty":2,"price":12.5e0}],"name":"D'Souza","note":"caf\\u00e9 \\"latte\\"","gift":false,"ref":null}
            JSON string top   | application/json                  | "hello world"
            JSON empty        | application/json                  | {}
            empty body        | application/json                  |
            """)
    void benignBodiesContinue(String what, String type, String body) {
        AttacksPolicy policy = policy(64 * 1024, false);
        String b = body == null ? "" : body;
        int length = b.getBytes(StandardCharsets.UTF_8).length;
        for (int cut = 0; cut <= length; cut++) {
            assertThat(scan(policy, request(type), b, cut)).as("cut at " + cut + ": " + lastLog()).isSameAs(PolicyDecision.CONTINUE);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            text outside strings   | {"a": union select 1}
            single quotes          | {'a':'b'}
            missing colon          | {"a" "b"}
            trailing garbage       | {"a":"b"} x
            bad escape             | {"a":"\\q"}
            bad unicode            | {"a":"\\u00zz"}
            raw control byte       | {"a":"b\tc"}
            unclosed               | {"a":["b"
            bad literal            | {"a":tru}
            closing the wrong kind | {"a":["b"}]
            """)
    void malformedJsonIsDenied(String what, String body) {
        TestPolicyInput r = request(JSON);
        assertThat(scan(policy(64 * 1024, false), r, body)).isSameAs(DENIED);
        assertThat(lastLog()).contains("JSON");
        assertThat(r.matches()).as("the access log says why").asString().contains("JSON");
    }

    @Test
    void nestingIsBounded() {
        String deep = "[".repeat(BodyScanner.MAX_DEPTH) + "]".repeat(BodyScanner.MAX_DEPTH);
        assertThat(scan(policy(64 * 1024, false), request(JSON), deep)).isSameAs(PolicyDecision.CONTINUE);
        String deeper = "[".repeat(BodyScanner.MAX_DEPTH + 1) + "]".repeat(BodyScanner.MAX_DEPTH + 1);
        assertThat(scan(policy(64 * 1024, false), request(JSON), deeper)).isSameAs(DENIED);
        assertThat(lastLog()).contains("nested deeper than 64");
    }

    @Test
    void anOversizeBodyIsInspectedAsFarAsTheBoundOrDenied() {
        String pad = "a=" + "x".repeat(100) + "&";
        String attackAfterBound = pad + "q=1+union+select+1";
        String attackBeforeBound = "q=1+union+select+1&" + pad + pad;
        // The bound cuts the attack off: inspect_prefix lets it go on; deny refuses the body.
        assertThat(scan(policy(64, false), request(FORM), attackAfterBound)).isSameAs(PolicyDecision.CONTINUE);
        assertThat(scan(policy(64, true), request(FORM), attackAfterBound)).isSameAs(DENIED);
        assertThat(lastLog()).contains("on_oversize: deny");
        // What arrived within the bound is inspected, a cut value included.
        assertThat(scan(policy(64, false), request(FORM), attackBeforeBound)).isSameAs(DENIED);
        assertThat(scan(policy(8, false), request(FORM), "q=1+union+select+1")).isSameAs(PolicyDecision.CONTINUE);
        assertThat(scan(policy(17, false), request(FORM), "q=1+union+select+1", 5)).isSameAs(DENIED);
        // A body that fits is not oversize.
        assertThat(scan(policy(attackAfterBound.length(), true), request(FORM), attackAfterBound)).isSameAs(DENIED);
        assertThat(scan(policy(pad.length(), true), request(FORM), pad)).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void aFullProtocolWindowDecidesAtOnce() {
        AttacksPolicy policy = policy(64 * 1024, false);
        TestPolicyInput r = request(FORM);
        assertThat(policy.evaluate(r)).isSameAs(PolicyDecision.NEEDS_ASYNC);
        BodyScan scan = policy.startBody(r, 10);
        assertThat(scan.feed(Unpooled.wrappedBuffer("q=hello&a=".getBytes(StandardCharsets.US_ASCII))))
                .as("10 bytes fill a 10-byte window: no more can come").isSameAs(PolicyDecision.CONTINUE);
        scan.release();
        BodyScan big = policy.startBody(r, Long.MAX_VALUE);
        assertThat(big.feed(Unpooled.wrappedBuffer("q=hello&a=".getBytes(StandardCharsets.US_ASCII)))).isNull();
        assertThat(big.end()).isSameAs(PolicyDecision.CONTINUE);
        big.release();
    }

    @Test
    void theBodyAddsToTheHeadsScore() {
        // 920 warnings in the head alone stay below the threshold; the body's critical match decides.
        AttacksPolicy policy = policy(64 * 1024, false);
        TestPolicyInput r = request(FORM);
        assertThat(scan(policy, r, "q=hello")).isSameAs(PolicyDecision.CONTINUE);
        assertThat(scan(policy, r, "q=1+union+select+1")).isSameAs(DENIED);
    }

    @Test
    void onlyBodiesOfInspectedTypesWait() {
        AttacksPolicy policy = policy(64 * 1024, false);
        assertThat(policy.evaluate(request("multipart/form-data; boundary=x"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
        assertThat(policy.evaluate(request("application/soap+xml; charset=utf-8"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
        assertThat(AttacksPolicy.bodyKind("Text/XML")).isEqualTo(BodyScanner.XML);
        assertThat(AttacksPolicy.bodyKind("multipart/related; boundary=x")).as("only form-data is cut into parts").isZero();
        assertThat(AttacksPolicy.bodyKind("application/atom+xml")).isZero();
        // Types CRS does not allow are denied at the head (920420), without waiting for the body.
        assertThat(policy.evaluate(request("text/plain"))).isSameAs(DENIED);
        assertThat(policy.evaluate(request(FORM).hasBody(false))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy(0, false).evaluate(request(FORM))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(request("Application/X-WWW-Form-Urlencoded;charset=UTF-8"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
        assertThat(policy.evaluate(request("application/json"))).isSameAs(PolicyDecision.NEEDS_ASYNC);
        assertThat(policy.evaluate(request("application/jsonx"))).isSameAs(DENIED);
        assertThat(policy.evaluate(request("application/x-www-form-urlencodedx"))).isSameAs(DENIED);
        assertThat(AttacksPolicy.bodyKind("application/vnd.api+json; charset=utf-8")).isEqualTo(BodyScanner.JSON);
        assertThat(AttacksPolicy.bodyKind("application/jsonx")).isZero();
        assertThat(AttacksPolicy.bodyKind("text/plain")).isZero();
        // A head that already reached the threshold is denied without waiting for its body.
        TestPolicyInput attack = request(FORM);
        attack.target("/comment?q=1+union+select+1");
        assertThat(policy.evaluate(attack)).isSameAs(DENIED);
    }

    @Test
    void theMatchesForTheAccessLogNameRulePartAndAnEscapedBoundedExcerpt() {
        AttacksPolicy policy = policy(64 * 1024, false);
        TestPolicyInput r = request(FORM);
        assertThat(scan(policy, r, "name=ann&comment=%22%0D%0A1%27+union+select+password+from+users--")).isSameAs(DENIED);
        String m = r.matches().toString();
        assertThat(m).containsPattern("942\\d{3} body:comment \"").contains("\\\"").contains("\\x0a");
        assertThat(m.chars().allMatch(c -> c >= 0x20 && c < 0x7F)).as("printable ASCII only: " + m).isTrue();

        TestPolicyInput clean = request(FORM);
        assertThat(scan(policy, clean, "name=ann&comment=hello")).isSameAs(PolicyDecision.CONTINUE);
        assertThat(clean.matches()).isNull();

        // Many matching arguments with long names: the line stays bounded and says how many it left out.
        AttacksPolicy patient = new AttacksPolicy("waf", 4, 1_000_000, true, true, true, List.of(), false, List.of(), DENIED,
                64 * 1024, false, TimeUnit.SECONDS.toNanos(10));
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            many.append("n").append("x".repeat(200)).append(i).append("=%3Cscript%3Ealert(").append(i).append(")%3C/script%3E")
                    .append("+1+union+select+").append(i).append("+from+users--+;cat+/etc/passwd&");
        }
        TestPolicyInput loud = request(FORM);
        assertThat(scan(patient, loud, many.toString())).isSameAs(PolicyDecision.CONTINUE);
        String line = loud.matches().toString();
        assertThat(line.length()).as(line).isLessThan(Inspection.MAX_LOG + 2 * (Inspection.LOG_NAME * 4 + 48 * 4 + 40));
        assertThat(line).containsPattern("\\(\\+\\d+ more\\)$");
    }
}
