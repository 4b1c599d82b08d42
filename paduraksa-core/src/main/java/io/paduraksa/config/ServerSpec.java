package io.paduraksa.config;

import java.time.Duration;

/**
 * Process-wide server settings: the transport ({@code auto} picks io_uring, then epoll, then NIO),
 * event-loop threads (0 = one per core), how long a stop waits for requests in flight, and how long
 * a replaced snapshot is kept before its buffers are freed, and the Unix socket over which a running
 * server hands its listening sockets to a new process ({@code run --takeover}; null: none unless
 * {@code --takeover-socket} names one).
 */
public record ServerSpec(String transport, Integer threads, Duration drainTimeout, Duration reloadGrace, String takeoverSocket) {
    public static final ServerSpec DEFAULT = new ServerSpec(null, null, null, null, null);

    public ServerSpec {
        transport = transport == null ? "auto" : transport;
        threads = threads == null ? 0 : threads;
        drainTimeout = drainTimeout == null ? Duration.ofSeconds(30) : drainTimeout;
        reloadGrace = reloadGrace == null ? Duration.ofSeconds(60) : reloadGrace;
    }
}
