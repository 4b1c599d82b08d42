package io.paduraksa.bench.route;

import io.netty.util.AsciiString;
import io.paduraksa.route.PathNormalizer;
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

/** Path normalisation of a request-target's path into the request state's buffer, default options. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PathNormalizerBenchmark {

    /** clean: a typical API path; dots: dot segments and escapes; params: segment parameters. */
    @Param({"clean", "dots", "params"})
    public String shape;

    private final byte[] out = new byte[8192];
    private AsciiString path;

    @Setup
    public void setUp() {
        path = AsciiString.of(switch (shape) {
            case "clean" -> "/api/v1/users/12345/orders/recent";
            case "dots" -> "/static/./css/../%2e%2e/api/v1/%75sers/12345";
            default -> "/api;v=1/v1/users;jsessionid=0123456789ABCDEF/12345";
        });
    }

    @Benchmark
    public int normalize() {
        return PathNormalizer.normalize(path, 0, path.length(), out, PathNormalizer.DEFAULT_OPTIONS);
    }
}
