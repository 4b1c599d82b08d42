package io.paduraksa.bench.policy;

import io.netty.util.AsciiString;
import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RequestRule;
import io.paduraksa.policy.RequestRulesPolicy;
import io.paduraksa.testing.TestPolicyInput;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A request policy with six deny rules (two header presences/prefixes, a header substring, two query
 * rules, a method list), one query allow rule, max_body and the bot signal. {@code pass} is a
 * browser request that runs every check to the end; {@code deny} stops at the encoded query
 * parameter.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class RequestRulesBenchmark {
    @Param({"pass", "deny"})
    String shape;

    private RequestRulesPolicy policy;
    private TestPolicyInput request;

    @Setup
    public void setUp() {
        List<RequestRule> deny = List.of(
                RequestRule.header("X-Debug", RequestRule.Match.PRESENT, null, true),
                RequestRule.header("User-Agent", RequestRule.Match.PREFIX, "curl/", true),
                RequestRule.header("Referer", RequestRule.Match.CONTAINS, "evil", true),
                RequestRule.query("debug", RequestRule.Match.PRESENT, null, true),
                RequestRule.query("q", RequestRule.Match.CONTAINS, "<script", true),
                RequestRule.method(List.of("TRACE", "TRACK"), true));
        List<RequestRule> allow = List.of(RequestRule.query("mode", RequestRule.Match.EXACT, "prod", false));
        policy = new RequestRulesPolicy("bench", deny, allow, 1 << 20, true, PolicyDecision.DROP, PolicyDecision.DROP);
        request = new TestPolicyInput();
        request.target(shape.equals("pass") ? "/products/shoes?q=running+shoes&mode=prod&page=2"
                : "/products/shoes?q=running+shoes&mode=prod&%64ebug=1");
        request.header("user-agent", new AsciiString(BenchFixtures.CHROME_UA));
        request.header("accept", new AsciiString("text/html,application/xhtml+xml"));
        request.header("accept-language", new AsciiString("en-GB,en;q=0.9"));
        request.header("referer", new AsciiString("https://www.example.test/start"));
        request.header("content-length", new AsciiString("512"));
    }

    @Benchmark
    public PolicyDecision evaluate() {
        return policy.evaluate(request);
    }
}
