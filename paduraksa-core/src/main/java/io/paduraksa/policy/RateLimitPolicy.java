package io.paduraksa.policy;

import io.netty.util.AsciiString;
import java.util.Locale;

/**
 * Limits the request rate per key with a shared {@link RateLimiter}. The key is the gate's client
 * IP (behind a trusted proxy, the visitor's), optionally with the matched host or route, or the
 * value of one request header. Per request {@link #evaluate}: one fingerprint, one
 * {@link RateLimiter#acquire}, with {@code headers} one report to the request; 0 B.
 *
 * <p>A {@code header:} key hashes the first value of the header exactly as sent (case and
 * whitespace included). Requests without the header share one bucket of their own: omitting the
 * header must not escape the limit, at the price that every such client is limited together.
 * Host and route identities are positions in the file ({@code hosts[i]}, {@code routes[j]}).
 */
public final class RateLimitPolicy extends NamedPolicy {

    /** What a request is counted under. */
    public enum Key {
        CLIENT_IP, CLIENT_IP_AND_HOST, CLIENT_IP_AND_ROUTE, HEADER;

        /** {@code client_ip}, {@code client_ip_and_host}, {@code client_ip_and_route}, or HEADER for {@code header:<Name>}. */
        public static Key of(String text) {
            if (text.startsWith("header:")) {
                return HEADER;
            }
            return valueOf(text.toUpperCase(Locale.ROOT));
        }
    }

    private final RateLimiter limiter;
    private final Key key;
    private final AsciiString header;
    private final PolicyDecision limited;
    private final boolean headers;

    /**
     * @param header  the header name for {@link Key#HEADER}, else null
     * @param limited what a limited request gets (a precomputed 429, or a drop)
     */
    public RateLimitPolicy(String name, RateLimiter limiter, Key key, String header, PolicyDecision limited) {
        this(name, limiter, key, header, limited, false);
    }

    /**
     * @param headers true to report limit, remaining and reset to the request
     *                ({@link PolicyInput#rateLimit}) for the {@code RateLimit-*} response fields
     */
    public RateLimitPolicy(String name, RateLimiter limiter, Key key, String header, PolicyDecision limited, boolean headers) {
        super(name);
        if (name == null || limiter == null || key == null || limited == null || (key == Key.HEADER) != (header != null)) {
            throw new IllegalArgumentException("rate limit '" + name + "': name, limiter, key and decision are required, and a header only with key header:");
        }
        this.limiter = limiter;
        this.key = key;
        this.header = header == null ? null : AsciiString.cached(header.toLowerCase(Locale.ROOT));
        this.limited = limited;
        this.headers = headers;
    }

    public RateLimiter limiter() {
        return limiter;
    }

    /** True when the policy reports its numbers for the {@code RateLimit-*} response fields. */
    public boolean hasHeaders() {
        return headers;
    }

    /** Runs per request on the event loop; 0 B. */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        long outcome = limiter.acquire(fingerprint(request));
        if (headers) {
            request.rateLimit(limiter.burst(), limiter.remaining(outcome), RateLimiter.resetSeconds(outcome));
        }
        return outcome >= 0 ? PolicyDecision.CONTINUE : limited;
    }

    private long fingerprint(PolicyInput request) {
        switch (key) {
            case CLIENT_IP:
                return limiter.fingerprint(request.clientIpHigh(), request.clientIpLow(), 0);
            case CLIENT_IP_AND_HOST:
                return limiter.fingerprint(request.clientIpHigh(), request.clientIpLow(), request.hostIndex() + 1L);
            case CLIENT_IP_AND_ROUTE:
                return limiter.fingerprint(request.clientIpHigh(), request.clientIpLow(),
                        ((request.hostIndex() + 1L) << 32) | ((request.routeIndex() + 1L) & 0xFFFF_FFFFL));
            default:
                return limiter.fingerprint(request.header(header));
        }
    }

    @Override
    public String toString() {
        return "RateLimitPolicy[" + name + ", key " + key + (header != null ? " " + header : "") + (headers ? ", headers" : "") + ", " + limiter + " -> " + limited + ']';
    }
}
