/**
 * Step 4 of a request, the virtual host: {@link io.paduraksa.host.HostTable} maps the
 * {@code Host} header (HTTP/1.1) or {@code :authority} (HTTP/2) to the configured host, exact
 * names first, then one-label wildcards, IPv6 literals by value.
 *
 * <p>Threads: {@link io.paduraksa.host.HostTable#find} runs on the connection's event loop for
 * every request and allocates nothing; {@link io.paduraksa.host.HostNames} and the table's builder
 * run off the event loops when a snapshot is compiled, and the built table is immutable.
 */
package io.paduraksa.host;
