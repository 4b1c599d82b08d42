package io.paduraksa.bench;

import io.paduraksa.gate.ClientInfo;
import io.paduraksa.net.IpParser;

/** Inputs shared by the benchmarks. */
public final class BenchFixtures {
    public static final String CHROME_UA =
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

    private BenchFixtures() {
    }

    /**
     * Netty's leak detection off, as {@code Main} runs the server: left at its default (SIMPLE) it wraps
     * one buffer in 128, and when the wrapped one is a benchmark's long-lived input buffer every read
     * goes through the wrapper (a CacheHitBenchmark run then read 5,161 ns per request instead of about
     * 1,400, and one 1,147 B per request). Call before the first buffer is allocated.
     */
    public static void leakDetectionOff() {
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
    }

    public static ClientInfo client(String ip, boolean trusted) {
        long[] out = new long[2];
        if (!IpParser.parse(ip, 0, ip.length(), out)) {
            throw new IllegalArgumentException(ip);
        }
        return new ClientInfo(out[0], out[1], trusted, ClientInfo.NO_COUNTRY);
    }
}
