/**
 * Step 5 of a request: normalise the path once, then pick the host's route by segment-aware
 * path prefix.
 *
 * <p>{@link io.paduraksa.route.PathNormalizer} turns the request-target's path into the bytes
 * that policies match and the upstream receives; {@link io.paduraksa.route.RouteTable} and
 * {@link io.paduraksa.route.PathPrefixSet} match prefixes on those bytes. Tables are compiled
 * once per snapshot, off the event loops, and are immutable afterwards; matching runs on the
 * event loop of the request, allocates nothing and reports rejections as negative codes.
 */
package io.paduraksa.route;
