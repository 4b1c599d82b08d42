package io.paduraksa.ops.ratelimit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.paduraksa.policy.RateLimitSync;
import io.paduraksa.policy.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The server's {@link RateLimitSync}: one {@link LimiterSync} (one Lettuce client and connection,
 * one periodic task) per distributed limiter, on one scheduler thread and one set of Lettuce
 * threads (its own, never our event loops). Installed with {@code RateLimiters.syncWith} before the first snapshot is compiled;
 * threads start with the first distributed limiter. Never runs on an event loop.
 */
public final class RedisRateLimitSync implements RateLimitSync, AutoCloseable {
    private final List<LimiterSync> syncs = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService scheduler;
    private ClientResources resources;
    private boolean closed;

    @Override
    public synchronized void attach(RateLimiter limiter) {
        if (closed) {
            throw new IllegalStateException("rate limit sync closed");
        }
        if (resources == null) {
            start();
        }
        RedisClient client = RedisClient.create(resources);
        client.setOptions(clientOptions(limiter));
        LimiterSync sync = new LimiterSync(limiter, client, scheduler, syncs::remove);
        syncs.add(sync);
        sync.start();
    }

    private void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "paduraksa-ratelimit-sync");
            t.setDaemon(true);
            return t;
        });
        // Reconnects soon after Redis is back (Lettuce's default backs off to 30 s).
        resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS)).build();
    }

    /**
     * Commands fail at once while disconnected (rather than queue behind the reconnect) and time
     * out after two sync intervals (at least 250 ms): a sync that cannot finish must count as failed.
     * A connection attempt gives up after 1 s (Lettuce's default is 10 s).
     */
    private static ClientOptions clientOptions(RateLimiter limiter) {
        long syncNanos = limiter.settings().distributed().syncEveryNanos();
        Duration timeout = Duration.ofNanos(Math.max(2 * syncNanos, 250_000_000L));
        return ClientOptions.builder().autoReconnect(true).disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).build()).build();
    }

    /** The live syncs (one per distributed limiter still in use). */
    public List<LimiterSync> syncs() {
        return List.copyOf(syncs);
    }

    /** The sync of this limiter, or null. */
    public LimiterSync syncOf(RateLimiter limiter) {
        for (LimiterSync s : syncs) {
            if (s.limiter() == limiter) {
                return s;
            }
        }
        return null;
    }

    /** Stops every sync and the client; limiters keep limiting locally. */
    @Override
    public synchronized void close() {
        closed = true;
        List<CompletableFuture<Void>> stopped = new ArrayList<>();
        for (LimiterSync s : syncs) {
            stopped.add(s.stop());
        }
        syncs.clear();
        try {
            CompletableFuture.allOf(stopped.toArray(new CompletableFuture<?>[0])).get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closing anyway: the resources' shutdown below ends what is left
        }
        if (resources != null) {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            scheduler.shutdownNow();
        }
    }
}
