package io.paduraksa.bench;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A JMH executor whose worker threads are Netty {@code FastThreadLocalThread}s, as the server's event
 * loops are, so a {@code FastThreadLocal} costs in a benchmark what it costs in production (on a
 * plain JMH thread it takes the slower {@code ThreadLocal} path).
 *
 * <pre>
 * java -jar benchmarks.jar IpParserBenchmark -jvmArgsAppend "-Djmh.executor=CUSTOM -Djmh.executor.class=io.paduraksa.bench.EventLoopThreads"
 * </pre>
 */
public final class EventLoopThreads extends ThreadPoolExecutor {
    /** The constructor JMH's {@code CUSTOM} executor type calls: the thread count and a name prefix. */
    public EventLoopThreads(int threads, String prefix) {
        super(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), new DefaultThreadFactory(prefix, true));
    }
}
