package io.paduraksa.config;

import java.time.Duration;

/**
 * The response cache's store, shared by every route that caches ({@code cache:} at the top of the
 * file): its memory bound, the largest response it keeps, and how long concurrent misses for one
 * key wait for the request that fetches it. The store exists only when some route has a
 * {@link RouteCacheSpec}.
 *
 * @param maxSize         bytes of stored responses (head, body and the entry's bookkeeping) kept
 *                        at most; the least valuable entries are evicted past it (default 64MiB)
 * @param maxObjectSize   largest response body stored; larger ones are forwarded, not kept (default 1MiB, or max_size when smaller)
 * @param coalesceTimeout how long a miss waits for another request's fetch of the same key before
 *                        it goes to the upstream itself (default 5s)
 */
public record CacheSpec(DataSize maxSize, DataSize maxObjectSize, Duration coalesceTimeout) {
    public static final CacheSpec DEFAULT = new CacheSpec(null, null, null);

    public CacheSpec {
        maxSize = maxSize == null ? DataSize.ofMebibytes(64) : maxSize;
        maxObjectSize = maxObjectSize == null ? DataSize.ofBytes(Math.min(maxSize.bytes(), DataSize.ofMebibytes(1).bytes())) : maxObjectSize;
        coalesceTimeout = coalesceTimeout == null ? Duration.ofSeconds(5) : coalesceTimeout;
    }
}
