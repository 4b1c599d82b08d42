package io.paduraksa.gate;

/**
 * What is known about a connection's client once, when the connection is set up (after PROXY
 * protocol): the peer address as 128 bits (IPv4 stored mapped, {@code ::ffff:a.b.c.d}), whether
 * the peer is a trusted proxy, its country index ({@code io.paduraksa.net.CountryCodes}, from the
 * country database; 0 when unknown or not looked up) and whether the listener speaks TLS.
 *
 * <p>Immutable and shared by every request and every HTTP/2 stream of the connection; per-request
 * facts (such as the address from {@code CF-Connecting-IP}) belong in {@link RequestState}, never here.
 */
public final class ClientInfo {
    /** Country index when none is known. */
    public static final int NO_COUNTRY = 0;

    private final long ipHigh;
    private final long ipLow;
    private final boolean trustedProxy;
    private final int country;
    private final boolean tls;

    public ClientInfo(long ipHigh, long ipLow, boolean trustedProxy, int country) {
        this(ipHigh, ipLow, trustedProxy, country, false);
    }

    public ClientInfo(long ipHigh, long ipLow, boolean trustedProxy, int country, boolean tls) {
        this.ipHigh = ipHigh;
        this.ipLow = ipLow;
        this.trustedProxy = trustedProxy;
        this.country = country;
        this.tls = tls;
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

    /** The peer's country index, {@link #NO_COUNTRY} when unknown. */
    public int country() {
        return country;
    }

    /** True when the connection's listener has TLS. */
    public boolean isTls() {
        return tls;
    }
}
