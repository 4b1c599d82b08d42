package io.paduraksa.bench;

import io.paduraksa.gate.ClientInfo;
import io.paduraksa.net.IpParser;

/** Inputs shared by the benchmarks. */
public final class BenchFixtures {
    public static final String CHROME_UA =
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

    private BenchFixtures() {
    }

    public static ClientInfo client(String ip, boolean trusted) {
        long[] out = new long[2];
        if (!IpParser.parse(ip, 0, ip.length(), out)) {
            throw new IllegalArgumentException(ip);
        }
        return new ClientInfo(out[0], out[1], trusted, ClientInfo.NO_COUNTRY);
    }
}
