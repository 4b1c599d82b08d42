package io.paduraksa.snapshot;

import io.paduraksa.config.RouteCacheSpec;

/**
 * A route's response-cache settings, compiled from {@link RouteCacheSpec}: durations as whole
 * seconds (HTTP's freshness unit, RFC 9111 1.2.2), -1 where the operator set none. Read per
 * forwarded request of the route; immutable.
 */
public final class RouteCache {
    private final long defaultTtlSeconds;
    private final long maxTtlSeconds;
    private final long staleWhileRevalidateSeconds;
    private final long staleIfErrorSeconds;
    private final boolean storeSetCookie;
    private final boolean storeAuthorized;

    private RouteCache(RouteCacheSpec spec) {
        this.defaultTtlSeconds = spec.defaultTtl() == null ? -1 : spec.defaultTtl().toSeconds();
        this.maxTtlSeconds = spec.maxTtl() == null ? -1 : spec.maxTtl().toSeconds();
        this.staleWhileRevalidateSeconds = spec.staleWhileRevalidate().toSeconds();
        this.staleIfErrorSeconds = spec.staleIfError().toSeconds();
        this.storeSetCookie = spec.storeSetCookie();
        this.storeAuthorized = spec.storeAuthorized();
    }

    /** The compiled settings, or null when the route has no cache. */
    public static RouteCache compile(RouteCacheSpec spec) {
        return spec == null ? null : new RouteCache(spec);
    }

    /** Freshness of a response that states none, or -1: such a response is not stored. */
    public long defaultTtlSeconds() {
        return defaultTtlSeconds;
    }

    /** Upper bound on freshness, or -1 for none. */
    public long maxTtlSeconds() {
        return maxTtlSeconds;
    }

    /** Stale-while-revalidate window for responses that state none (0: none). */
    public long staleWhileRevalidateSeconds() {
        return staleWhileRevalidateSeconds;
    }

    /** Stale-if-error window for responses that state none (0: none). */
    public long staleIfErrorSeconds() {
        return staleIfErrorSeconds;
    }

    public boolean storeSetCookie() {
        return storeSetCookie;
    }

    public boolean storeAuthorized() {
        return storeAuthorized;
    }

    @Override
    public String toString() {
        return "cache(default_ttl " + (defaultTtlSeconds < 0 ? "none" : defaultTtlSeconds + "s")
                + ", max_ttl " + (maxTtlSeconds < 0 ? "none" : maxTtlSeconds + "s")
                + ", stale_while_revalidate " + staleWhileRevalidateSeconds + "s, stale_if_error " + staleIfErrorSeconds + "s"
                + (storeSetCookie ? ", store_set_cookie" : "") + (storeAuthorized ? ", store_authorized" : "") + ")";
    }
}
