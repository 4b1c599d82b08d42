package io.paduraksa.server.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Runs a seeded differential fuzzer: {@code fuzz.cases} cases (default {@value #DEFAULT_CASES}) from
 * {@code fuzz.seed} (default {@value #DEFAULT_SEED}); each case gets its own seed drawn from that
 * one, and {@code -Dfuzz.case=<case seed>} runs just that case. A failing case fails the test with
 * the seeds, the bytes as fed (chunk by chunk, escaped) and what differed.
 */
public final class FuzzCases {
    public static final long DEFAULT_SEED = 20261201L;
    public static final int DEFAULT_CASES = 100_000;

    /** One case's check: null when it passes, else the difference. */
    public interface Check {
        String check(SplittableRandom random, Case c);
    }

    /** What a case fed and what kind of agreement it reached (counted for the summary). */
    public static final class Case {
        private byte[][] chunks = new byte[0][];
        private final Map<String, Integer> counts;

        Case(Map<String, Integer> counts) {
            this.counts = counts;
        }

        public void describe(byte[][] fed) {
            this.chunks = fed;
        }

        public void count(String outcome) {
            counts.merge(outcome, 1, Integer::sum);
        }

        String fed() {
            StringBuilder sb = new StringBuilder();
            for (byte[] chunk : chunks) {
                sb.append("\n    \"").append(escape(chunk)).append('"');
            }
            return sb.toString();
        }
    }

    private FuzzCases() {
    }

    /**
     * Runs the cases with Netty's leak detector at {@code SIMPLE} (sampled): the surefire run's
     * {@code paranoid} records a stack trace per buffer access and made 100,000 cases take minutes.
     */
    public static void run(String name, Check check) {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        try {
            runAll(name, check);
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    private static void runAll(String name, Check check) {
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        int cases = Integer.getInteger("fuzz.cases", DEFAULT_CASES);
        String only = System.getProperty("fuzz.case");
        Map<String, Integer> counts = new TreeMap<>();
        long start = System.nanoTime();
        if (only != null && !only.isEmpty()) {
            runCase(name, check, seed, -1, Long.parseLong(only), counts);
            cases = 1;
        } else {
            SplittableRandom master = new SplittableRandom(seed);
            for (int i = 0; i < cases; i++) {
                runCase(name, check, seed, i, master.nextLong(), counts);
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println(name + ": " + cases + " cases from fuzz.seed=" + seed + " in " + ms + " ms ("
                + (ms == 0 ? cases : cases * 1000L / ms) + "/s): " + counts);
    }

    private static void runCase(String name, Check check, long seed, int index, long caseSeed, Map<String, Integer> counts) {
        Case c = new Case(counts);
        String failure;
        try {
            failure = check.check(new SplittableRandom(caseSeed), c);
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError(header(name, seed, index, caseSeed) + "threw " + e + "\n  fed:" + c.fed(), e);
        }
        if (failure != null) {
            throw new AssertionError(header(name, seed, index, caseSeed) + failure + "\n  fed:" + c.fed());
        }
    }

    private static String header(String name, long seed, int index, long caseSeed) {
        return name + " failed at case " + index + ": replay with -Dfuzz.seed=" + seed + " (all cases) or -Dfuzz.case="
                + caseSeed + " (this one)\n  ";
    }

    /** Cuts {@code bytes} at zero to three random points (sometimes one byte per chunk). */
    public static byte[][] split(SplittableRandom r, byte[] bytes) {
        if (bytes.length < 2 || r.nextInt(8) == 0) {
            return new byte[][] {bytes};
        }
        if (bytes.length < 200 && r.nextInt(50) == 0) {
            byte[][] one = new byte[bytes.length][];
            for (int i = 0; i < bytes.length; i++) {
                one[i] = new byte[] {bytes[i]};
            }
            return one;
        }
        int[] cuts = new int[1 + r.nextInt(3)];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = 1 + r.nextInt(bytes.length - 1);
        }
        Arrays.sort(cuts);
        byte[][] chunks = new byte[cuts.length + 1][];
        int from = 0;
        for (int i = 0; i < cuts.length; i++) {
            chunks[i] = Arrays.copyOfRange(bytes, from, cuts[i]);
            from = cuts[i];
        }
        chunks[cuts.length] = Arrays.copyOfRange(bytes, from, bytes.length);
        return chunks;
    }

    /** A deep copy, so that what one decoder did to a fed array cannot reach the other. */
    public static byte[][] copy(byte[][] chunks) {
        byte[][] out = new byte[chunks.length][];
        for (int i = 0; i < chunks.length; i++) {
            out[i] = chunks[i].clone();
        }
        return out;
    }

    /** Printable ASCII as is, CR LF HTAB NUL as Java escapes, other bytes as \xNN; long runs shortened. */
    public static String escape(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xFF;
            int run = 1;
            while (i + run < bytes.length && bytes[i + run] == bytes[i]) {
                run++;
            }
            if (run > 16) {
                sb.append("<").append(run).append(" x ").append(escapeOne(b)).append(">");
                i += run - 1;
                continue;
            }
            sb.append(escapeOne(b));
        }
        return sb.toString();
    }

    private static String escapeOne(int b) {
        return switch (b) {
            case '\r' -> "\\r";
            case '\n' -> "\\n";
            case '\t' -> "\\t";
            case 0 -> "\\0";
            case '"' -> "\\\"";
            case '\\' -> "\\\\";
            default -> b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02x", b);
        };
    }
}
