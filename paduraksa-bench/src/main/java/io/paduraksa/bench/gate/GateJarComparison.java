package io.paduraksa.bench.gate;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;

/**
 * {@code Gate.run} of two or more benchmark jars (for example the build before a change and after
 * it) in ONE process: each jar in its own class loader with {@link GateLoop} defined in it, the
 * {@link GateBenchmark} scenarios, rounds interleaved with the order reversed every round, each round
 * timed with the thread's CPU clock, so that time spent descheduled on a shared machine does not
 * count. Prints, per scenario and jar, the median and minimum ns per call and the median (10th-90th
 * percentile) of the per-round ratios to the first jar; first it checks that every jar decides the same.
 *
 * <pre>
 * java --sun-misc-unsafe-memory-access=allow -cp paduraksa-bench/target/benchmarks.jar \
 *   io.paduraksa.bench.gate.GateJarComparison 21 200000 before.jar paduraksa-bench/target/benchmarks.jar
 * </pre>
 */
public final class GateJarComparison {
    private static final com.sun.management.ThreadMXBean THREAD =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private GateJarComparison() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: GateJarComparison ROUNDS CALLS_PER_ROUND JAR JAR...");
            System.exit(2);
        }
        int rounds = Integer.parseInt(args[0]);
        int calls = Integer.parseInt(args[1]);
        String[] jars = Arrays.copyOfRange(args, 2, args.length);
        byte[] loopClass = classBytes(GateLoop.class);
        for (String scenario : GateLoop.SCENARIOS) {
            Object[] loops = new Object[jars.length];
            Method[] run = new Method[jars.length];
            Constructor<?>[] threads = new Constructor<?>[jars.length];
            String decision = null;
            for (int j = 0; j < jars.length; j++) {
                JarLoader loader = new JarLoader(new File(jars[j]), loopClass);
                Class<?> c = loader.loadClass(GateLoop.class.getName());
                threads[j] = loader.loadClass("io.netty.util.concurrent.FastThreadLocalThread").getConstructor(Runnable.class);
                loops[j] = c.getConstructor(String.class).newInstance(scenario);
                run[j] = c.getMethod("run", int.class);
                String d = (String) c.getMethod("decision").invoke(loops[j]);
                if (decision != null && !decision.equals(d)) {
                    throw new IllegalStateException(scenario + ": " + jars[j] + " decides " + d + ", " + jars[0] + " " + decision);
                }
                decision = d;
            }
            for (int warm = 0; warm < 5; warm++) {
                for (int j = 0; j < jars.length; j++) {
                    timeOnEventLoopThread(threads[j], run[j], loops[j], calls);
                }
            }
            double[][] ns = new double[jars.length][rounds];
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < jars.length; k++) {
                    int j = r % 2 == 0 ? k : jars.length - 1 - k;
                    ns[j][r] = timeOnEventLoopThread(threads[j], run[j], loops[j], calls);
                }
            }
            StringBuilder line = new StringBuilder(String.format("%-19s %s", scenario, decision));
            for (int j = 0; j < jars.length; j++) {
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    ratios[r] = ns[j][r] / ns[0][r];
                }
                line.append(String.format("%n    %-40s median %6.1f ns  min %6.1f ns  ratio %.2f (%.2f-%.2f)", jars[j],
                        percentile(ns[j], 0.5), percentile(ns[j], 0), percentile(ratios, 0.5), percentile(ratios, 0.1),
                        percentile(ratios, 0.9)));
            }
            System.out.println(line);
        }
    }

    /**
     * Thread CPU ns per call of {@code calls} calls, run on a {@code FastThreadLocalThread} of the jar's own
     * Netty (a thread of this class loader's Netty would take the jar's {@code FastThreadLocal} slow path),
     * as on an event loop. A new thread per round: its per-thread state (the user-agent memo) starts empty,
     * which a round of 200,000 calls makes up for in its first few.
     */
    private static double timeOnEventLoopThread(Constructor<?> thread, Method run, Object loop, int calls) throws Exception {
        double[] ns = new double[1];
        Throwable[] failure = new Throwable[1];
        Runnable body = () -> {
            try {
                long start = THREAD.getCurrentThreadCpuTime();
                run.invoke(loop, calls);
                ns[0] = (THREAD.getCurrentThreadCpuTime() - start) / (double) calls;
            } catch (Throwable t) {
                failure[0] = t;
            }
        };
        Thread t = (Thread) thread.newInstance(body);
        t.start();
        t.join();
        if (failure[0] != null) {
            throw new IllegalStateException(failure[0]);
        }
        return ns[0];
    }

    private static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.round(p * (sorted.length - 1))];
    }

    private static byte[] classBytes(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            return in.readAllBytes();
        }
    }

    /** A jar's classes, with {@link GateLoop} defined from this build's bytes (older jars lack it). */
    private static final class JarLoader extends URLClassLoader {
        private final byte[] loopClass;

        JarLoader(File jar, byte[] loopClass) throws IOException {
            super(new URL[] {jar.toURI().toURL()}, ClassLoader.getPlatformClassLoader());
            this.loopClass = loopClass;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (name.equals(GateLoop.class.getName())) {
                return defineClass(name, loopClass, 0, loopClass.length);
            }
            return super.findClass(name);
        }
    }
}
