package io.paduraksa.gate;

/**
 * What is known about a connection's client once, when the connection is set up (after PROXY
 * protocol): the peer address as 128 bits (IPv4 stored mapped, {@code ::ffff:a.b.c.d}), whether
 * the peer is a trusted proxy, and its country index.
 *
 * <p>Immutable and shared by every request and every HTTP/2 stream of the connection; per-request
 * facts (such as the address from {@code CF-Connecting-IP}) belong in {@link RequestState}, never here.
 */
public final class ClientInfo {
    /** Country index when none is known. */
    public static final int NO_COUNTRY = -1;

    private final long ipHigh;
    private final long ipLow;
    private final boolean trustedProxy;
    private final int country;

    public ClientInfo(long ipHigh, long ipLow, boolean trustedProxy, int country) {
        this.ipHigh = ipHigh;
        this.ipLow = ipLow;
        this.trustedProxy = trustedProxy;
        this.country = country;
    }

    public long ipHigh() {
        return ipHigh;
    }

    public long ipLow() {
        return ipLow;
    }

    /** True when the peer is in {@code client_ip.trusted_proxies}: only then is the client-IP header read. */
    public boolean isTrustedProxy() {
        return trustedProxy;
    }

    public int country() {
        return country;
    }
}
