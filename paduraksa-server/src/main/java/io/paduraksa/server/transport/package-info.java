/**
 * Step: start-up, before any listener binds. {@link io.paduraksa.server.transport.Transport} picks the
 * socket transport (io_uring, else epoll, else NIO, or the one the operator forces) and hands out its
 * event loop group and channel classes for listeners and for upstream connections.
 *
 * <p>Thread: the main thread at start; nothing here runs per connection or per request.
 */
package io.paduraksa.server.transport;
