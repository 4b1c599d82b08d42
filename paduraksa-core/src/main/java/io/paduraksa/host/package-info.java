/**
 * Step 4 of a request, the virtual host: {@link io.paduraksa.host.HostTable} maps the
 * {@code Host} header (HTTP/1.1) or {@code :authority} (HTTP/2) to the configured host: exact
 * names (IPv6 literals by value) first, then the wildcard with the longest parent, then the
 * catch-all {@code *} for any other valid name.
 *
 * <p>Threads: {@link io.paduraksa.host.HostTable#find} runs on the connection's event loop for
 * every request and allocates nothing; {@link io.paduraksa.host.HostNames} and the table's builder
 * run off the event loops when a snapshot is compiled, and the built table is immutable.
 */
package io.paduraksa.host;
