/**
 * The response micro-cache: a step between the gate's FORWARD and the forwarder. On a route with
 * {@code cache}, {@link io.paduraksa.proxy.cache.CachingForwarder} answers hits from the shared,
 * byte-bounded {@link io.paduraksa.proxy.cache.CacheStore} through the client exchange (0 B per
 * HTTP/1.1 hit on the event loop), coalesces concurrent misses into one fetch
 * ({@code CacheFill}, {@code Waiter}) and stores what RFC 9111 allows. Runs on the client
 * connection's event loop; the store is read by every loop; misses allocate.
 */
package io.paduraksa.proxy.cache;
