package io.paduraksa.config;

import java.time.Duration;

/**
 * A route's response cache ({@code routes[].cache}, only on a {@code forward} route): responses to
 * GET (and HEAD, answered from the stored GET) are stored as the upstream's {@code Cache-Control}
 * and {@code Expires} allow, in the store {@link CacheSpec} describes.
 *
 * @param defaultTtl           freshness of a response that states none (no {@code max-age},
 *                             {@code s-maxage} or {@code Expires}); absent: such responses are not stored
 * @param maxTtl               upper bound on any response's freshness; absent: what the upstream says
 * @param staleWhileRevalidate how long past its freshness a response may be served while one request
 *                             refreshes it, when the response has no {@code stale-while-revalidate} of its own
 * @param staleIfError         how long past its freshness a response may be served when the upstream
 *                             fails, when the response has no {@code stale-if-error} of its own
 * @param storeSetCookie       store responses that carry {@code Set-Cookie} (the stored copy drops the
 *                             field; only the request that fetched it gets the cookie); default false
 * @param storeAuthorized      look up and store requests that carry {@code Authorization} when the
 *                             response allows it ({@code public} or {@code s-maxage}, RFC 9111 3.5); default false
 */
public record RouteCacheSpec(
        Duration defaultTtl,
        Duration maxTtl,
        Duration staleWhileRevalidate,
        Duration staleIfError,
        Boolean storeSetCookie,
        Boolean storeAuthorized) {

    public RouteCacheSpec {
        staleWhileRevalidate = staleWhileRevalidate == null ? Duration.ZERO : staleWhileRevalidate;
        staleIfError = staleIfError == null ? Duration.ZERO : staleIfError;
        storeSetCookie = storeSetCookie != null && storeSetCookie;
        storeAuthorized = storeAuthorized != null && storeAuthorized;
    }
}
