/**
 * Step: forward, choosing the destination (after the gate picked a cluster, before taking an upstream
 * connection from the event loop's pool).
 *
 * <p>Thread: any event loop. One {@link io.paduraksa.proxy.balance.LoadBalancer},
 * {@link io.paduraksa.proxy.balance.RetryBudget} and optional
 * {@link io.paduraksa.proxy.balance.AffinityCookie} per cluster per config load, and one
 * {@link io.paduraksa.proxy.balance.DestinationState} per destination, all shared by every event
 * loop; {@link io.paduraksa.proxy.balance.PassiveHealth} is the outlier-ejection settings each
 * destination's state applies to request results (active probing is {@code proxy.health}'s, which
 * reports into the state). Their per-request methods are lock-free (volatile fields, {@code VarHandle} atomics,
 * {@code ThreadLocalRandom}) and allocate nothing; each has an {@code *AllocationTest}. They take
 * plain values (indices, weights, nanoTime stamps), not snapshot records, so the cluster model can
 * change without touching them.
 */
package io.paduraksa.proxy.balance;
