package io.paduraksa.ops;

/**
 * What the response cache ({@code proxy.cache}) shows the admin listener: its counters and size
 * for {@code /metrics}, and purging. Implemented there, registered with {@link Metrics#cache};
 * {@code ops} cannot import {@code proxy} ({@code proxy} records into {@code ops}). Any thread.
 */
public interface CacheAdmin {

    /**
     * Removes stored responses of {@code host} (lower case; null: every host) whose normalised path
     * is {@code path} (null: every path) or, with {@code prefix}, starts with it; every query and
     * every variant. Returns how many entries went.
     */
    long purge(String host, String path, boolean prefix);

    /** The counters and gauges, read racily as a scrape may. */
    Figures figures();

    /**
     * @param hits       requests answered from a fresh stored response
     * @param staleHits  requests answered from a stale one (while another request refreshed it, or because the upstream failed)
     * @param misses     cacheable requests that went to the upstream
     * @param coalesced  misses that waited for another request's fetch of the same key instead of going upstream
     * @param bypasses   requests on a caching route that could not use the cache (method, body, Authorization, Range, ...)
     * @param refreshes  background refreshes started (stale-while-revalidate: the stale copy answered, the request's copy went upstream)
     * @param stores     responses stored
     * @param evictions  entries evicted to stay under the byte bound
     * @param purged     entries removed by purges
     * @param entries    entries held now
     * @param bytes      bytes held now (as weighed against the bound)
     * @param maxBytes   the bound
     */
    record Figures(long hits, long staleHits, long misses, long coalesced, long bypasses, long refreshes, long stores, long evictions, long purged,
                   long entries, long bytes, long maxBytes) {
    }
}
