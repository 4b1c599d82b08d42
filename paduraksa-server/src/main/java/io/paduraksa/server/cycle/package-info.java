/**
 * Step: the one request cycle. {@link io.paduraksa.server.cycle.RequestCycle} runs the gate, dispatches
 * its outcome to the protocol's {@link io.paduraksa.server.cycle.ProtocolExchange} (answer, drop,
 * forward, or wait for an asynchronous policy started through
 * {@link io.paduraksa.server.cycle.AsyncPolicies} and resume), meters, counts and decides the
 * access-log line. {@link io.paduraksa.server.cycle.ListenerServices} is what a listener's handlers
 * share; {@link io.paduraksa.server.cycle.DrainEvent} tells them the server is stopping. The protocol
 * packages ({@code server.http1}, {@code server.http2}) import this package; it imports none of them
 * and nothing of {@code server} itself.
 *
 * <p>Thread: per request on the connection's event loop (0 B on its synchronous path).
 */
package io.paduraksa.server.cycle;
