/**
 * Step: the server around the request. {@link io.paduraksa.server.Main} (run, check, explain) and
 * {@link io.paduraksa.server.EdgeServer} start the listeners ({@link io.paduraksa.server.ListenerInitializer},
 * {@link io.paduraksa.server.ProtocolDetector}) and stop them. The request cycle every protocol uses is
 * in {@link io.paduraksa.server.cycle}, below both this package and the protocol packages
 * ({@code server.http1}, {@code server.http2}), so neither imports the other back.
 *
 * <p>Thread: start-up and stop on the main thread; once per connection for the initializer.
 */
package io.paduraksa.server;
