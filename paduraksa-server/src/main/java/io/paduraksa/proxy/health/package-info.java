/**
 * Step: forward, health of upstream destinations (between choosing a destination and connecting to it).
 *
 * <p>Active health: passive health (outlier ejection per request result) is {@code proxy.balance}'s
 * ({@code PassiveHealth}, applied by {@code DestinationState}); this package imports that one and
 * reports into the same state, never the other way. {@link io.paduraksa.proxy.health.ActiveHealthChecker} probes
 * destinations off the request path in the cluster's protocol (HTTP/1.1, h2c, h2 over TLS), at the
 * address their {@code ResolvedAddress} holds at probe time: each destination is pinned to one event
 * loop of the server's group, where its timers and probe connections run. {@link io.paduraksa.proxy.health.ResolvedAddress}
 * re-resolves host-name destinations on a scheduler thread, never on an event loop (the JDK resolver
 * blocks); the forwarder reads {@code current()} per connect, one volatile read.
 */
package io.paduraksa.proxy.health;
