/**
 * Step: the server around the request, and the one request cycle. {@link io.paduraksa.server.Main}
 * (run, check, explain) and {@link io.paduraksa.server.EdgeServer} start the listeners
 * ({@link io.paduraksa.server.ListenerInitializer}, {@link io.paduraksa.server.ProtocolDetector}) and
 * stop them; {@link io.paduraksa.server.ListenerServices} is what a listener's handlers share.
 * {@link io.paduraksa.server.RequestCycle} is the request cycle every protocol uses: run the gate,
 * dispatch its outcome to the protocol's {@link io.paduraksa.server.ProtocolExchange} (answer, drop,
 * forward, or wait for an asynchronous policy started through {@link io.paduraksa.server.AsyncPolicies}
 * and resume), meter, count, decide the access-log line.
 *
 * <p>Thread: start-up and stop on the main thread; once per connection for the initializer; the
 * request cycle per request on the connection's event loop (0 B on its synchronous path).
 */
package io.paduraksa.server;
