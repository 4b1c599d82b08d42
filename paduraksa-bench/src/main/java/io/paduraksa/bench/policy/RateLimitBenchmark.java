package io.paduraksa.bench.policy;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RateLimitPolicy;
import io.paduraksa.policy.RateLimiter;
import io.paduraksa.testing.TestPolicyInput;
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
 * One rate-limit check (fingerprint, bucket lock, GCRA) keyed by client IP, cycling over
 * {@code keys} clients. {@code admitted}: the rate is so high that every request passes;
 * {@code limited}: 1/h with burst 1, so every request after the first of each key is refused.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class RateLimitBenchmark {
    @Param({"1", "100000"})
    int keys;

    @Param({"admitted", "limited"})
    String shape;

    private RateLimitPolicy policy;
    private TestPolicyInput request;
    private long[] ips;
    private int next;

    @Setup
    public void setUp() {
        RateLimiter.Settings settings = shape.equals("admitted")
                ? new RateLimiter.Settings(1, 1_000_000, 100_000, false, 600_000_000_000L)
                : new RateLimiter.Settings(3_600_000_000_000L, 1, 100_000, false, 600_000_000_000L);
        policy = new RateLimitPolicy("bench", new RateLimiter("bench", settings), RateLimitPolicy.Key.CLIENT_IP, null, PolicyDecision.DROP);
        request = new TestPolicyInput();
        ips = new long[keys];
        for (int i = 0; i < keys; i++) {
            ips[i] = 0xC633_6400L + i;
        }
        for (int i = 0; i < keys; i++) {
            check();
        }
    }

    @Benchmark
    public PolicyDecision check() {
        int i = next;
        next = i + 1 == ips.length ? 0 : i + 1;
        request.clientIp(0xFFFF_0000_0000L, ips[i]);
        return policy.evaluate(request);
    }
}
