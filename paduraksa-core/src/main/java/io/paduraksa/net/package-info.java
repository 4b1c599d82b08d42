/**
 * Step 3 of a request, the client IP: {@link io.paduraksa.net.IpParser} turns address text (a
 * trusted proxy's {@code CF-Connecting-IP}, an IPv6 {@code Host} literal, the peer's address) into
 * 128 bits held in two longs, and {@link io.paduraksa.net.IpRangeSet} answers "is this address in
 * these CIDRs" for IP policies and trusted proxies.
 *
 * <p>Threads: parsing and lookups run on the event loop of the connection, once or twice per
 * request, and allocate nothing; range sets are built off the event loops when a snapshot is
 * compiled and are immutable afterwards.
 */
package io.paduraksa.net;
