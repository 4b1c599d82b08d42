package io.paduraksa.ops.ratelimit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.paduraksa.policy.DistributedLimit;
import io.paduraksa.policy.RateLimiter;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shares one distributed limiter's counts through Redis. Every {@code sync_every}, on the
 * scheduler thread: take the admits counted since the last sync ({@link RateLimiter#drainAdmitted}),
 * send them in ONE script call that adds them to each key's shared TAT and returns how far each
 * TAT is ahead of Redis's clock; the reply (on a Lettuce thread) hands those debts to
 * {@link RateLimiter#applyDebt}. A tick with nothing to send still runs the script (with no keys),
 * which is the heartbeat that tells a quiet box whether Redis answers.
 *
 * <p>Redis is unreachable when no sync succeeded for more than two intervals: the limiter goes to
 * {@link RateLimiter.Mode#LOCAL} ({@code when_unreachable: allow}) or {@link RateLimiter.Mode#CLOSED}
 * ({@code deny}); the first success puts it back to {@link RateLimiter.Mode#SHARED}. One warning when
 * an outage starts, one line when it ends. Admits wait in the table while a call is out or the
 * connection is down, and are dropped once the outage is declared or when a call fails, never
 * sent late: a late batch would charge a whole outage's traffic to the keys at once.
 *
 * <p>Holds its limiter weakly and stops itself once the limiter is garbage (no snapshot uses it).
 */
public final class LimiterSync {
    private static final Logger log = LoggerFactory.getLogger(LimiterSync.class);

    /**
     * KEYS: the keys' TATs (microseconds since the epoch, by Redis's clock); ARGV[i]: nanoseconds
     * to add to KEYS[i] (admits times interval). Per key: TAT = max(TAT, now) + added, stored
     * with an expiry at the TAT plus 1 s (an idle key costs Redis nothing), reply: TAT - now in
     * nanoseconds. Microseconds since the epoch (about 2^51) stay exact in Lua's doubles;
     * nanoseconds would not. {@code TIME} before writes is allowed since Redis 5 (effects
     * replication), and one clock for every box means their clocks need not agree.
     */
    static final String SCRIPT = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local out = {}
            for i = 1, #KEYS do
              local tat = tonumber(redis.call('GET', KEYS[i]))
              if tat == nil or tat < now then tat = now end
              tat = tat + tonumber(ARGV[i]) / 1000
              local debt = tat - now
              redis.call('SET', KEYS[i], string.format('%.0f', tat), 'PX', string.format('%.0f', math.ceil(debt / 1000) + 1000))
              out[i] = math.floor(debt * 1000)
            end
            return out
            """;
    private static final String[] NO_KEYS = new String[0];

    private final WeakReference<RateLimiter> limiter;
    private final String name;
    private final DistributedLimit shared;
    private final long interval;
    private final RedisClient client;
    private final RedisURI uri;
    private final ScheduledExecutorService scheduler;
    private final Consumer<LimiterSync> onStop;
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong outages = new AtomicLong();
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile boolean connecting;
    private volatile boolean firstConnectDone;
    private volatile boolean inFlight;
    private volatile long lastSuccess;
    private volatile long outageStart;
    private volatile boolean unreachable;
    private ScheduledFuture<?> task;

    LimiterSync(RateLimiter limiter, RedisClient client, ScheduledExecutorService scheduler, Consumer<LimiterSync> onStop) {
        this.limiter = new WeakReference<>(limiter);
        this.name = limiter.name();
        this.shared = limiter.settings().distributed();
        this.interval = limiter.settings().intervalNanos();
        this.client = client;
        this.uri = RedisURI.create(shared.redis());
        this.scheduler = scheduler;
        this.onStop = onStop;
        this.lastSuccess = System.nanoTime();
    }

    void start() {
        log.info("rate limit '{}': sharing counts through {}", name, shared);
        long every = shared.syncEveryNanos();
        task = scheduler.scheduleAtFixedRate(this::tick, every, every, TimeUnit.NANOSECONDS);
    }

    /** The limiter, or null once it is garbage. */
    RateLimiter limiter() {
        return limiter.get();
    }

    /** Script calls that succeeded. */
    public long syncCount() {
        return syncs.get();
    }

    /** Ticks that could not sync: failed calls, failed connection attempts, ticks while disconnected. */
    public long failureCount() {
        return failures.get();
    }

    /** Outages seen (each is logged when it starts and when it ends). */
    public long outageCount() {
        return outages.get();
    }

    /** True while Redis counts as unreachable (no success for more than two intervals). */
    public boolean isUnreachable() {
        return unreachable;
    }

    private void tick() {
        try {
            RateLimiter l = limiter.get();
            if (l == null) {
                stop();
                return;
            }
            long now = System.nanoTime();
            // Not before the first connection attempt ends: Lettuce's first connect (class loading, its
            // threads) can take longer than two short intervals, and that is no outage.
            if (!unreachable && firstConnectDone && now - lastSuccess > 2 * shared.syncEveryNanos()) {
                outageStarts(l, now);
            }
            StatefulRedisConnection<String, String> c = connection;
            if (unreachable) {
                l.drainAdmitted(); // an outage's admits are never sent
            }
            if (c == null) {
                connect();
            } else if (!c.isOpen()) {
                failures.incrementAndGet(); // Lettuce is reconnecting; the counts wait in the table
            } else if (!inFlight) {
                send(l, c, unreachable ? new long[0] : l.drainAdmitted()); // in an outage: the probe that ends it
            }
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            log.debug("rate limit '{}': sync failed", name, e);
        }
    }

    private void connect() {
        if (connecting) {
            return;
        }
        connecting = true;
        client.connectAsync(StringCodec.UTF8, uri).whenComplete((c, e) -> {
            connecting = false;
            firstConnectDone = true;
            if (e != null) {
                failures.incrementAndGet();
                log.debug("rate limit '{}': cannot connect to {}: {}", name, DistributedLimit.redacted(shared.redis()), e.toString());
            } else if (task == null || task.isCancelled()) {
                c.closeAsync();
            } else {
                if (!unreachable) {
                    lastSuccess = System.nanoTime(); // a connection is an answer; an outage ends with a sync only
                }
                connection = c;
            }
        });
    }

    private void send(RateLimiter l, StatefulRedisConnection<String, String> c, long[] drained) {
        int n = drained.length / 2;
        String[] keys = n == 0 ? NO_KEYS : new String[n];
        String[] added = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = shared.storeKey(name, drained[2 * i]);
            added[i] = Long.toString(drained[2 * i + 1] * interval);
        }
        inFlight = true;
        c.async().<List<Long>>eval(SCRIPT, ScriptOutputType.MULTI, keys, added).whenComplete((debts, e) -> {
            inFlight = false;
            if (e != null) {
                failures.incrementAndGet();
                log.debug("rate limit '{}': sync failed: {}", name, e.toString());
                return;
            }
            for (int i = 0; i < n; i++) {
                l.applyDebt(drained[2 * i], debts.get(i));
            }
            synced(l);
        });
    }

    private void synced(RateLimiter l) {
        syncs.incrementAndGet();
        lastSuccess = System.nanoTime();
        if (unreachable) {
            unreachable = false;
            l.mode(RateLimiter.Mode.SHARED);
            log.warn("rate limit '{}': Redis at {} answers again after {} ms; sharing counts again ({} requests refused while it was unreachable so far)",
                    name, DistributedLimit.redacted(shared.redis()), (lastSuccess - outageStart) / 1_000_000, l.closedCount());
        }
    }

    private void outageStarts(RateLimiter l, long now) {
        unreachable = true;
        outageStart = lastSuccess;
        outages.incrementAndGet();
        l.mode(shared.denyWhenUnreachable() ? RateLimiter.Mode.CLOSED : RateLimiter.Mode.LOCAL);
        log.warn("rate limit '{}': Redis at {} did not answer for {} ms; {}", name, DistributedLimit.redacted(shared.redis()),
                (now - lastSuccess) / 1_000_000, shared.denyWhenUnreachable()
                        ? "refusing every request of this policy until it answers (when_unreachable: deny)"
                        : "limiting on this box alone at " + shared.share() * 100 + " % of the rate until it answers (when_unreachable: allow)");
    }

    /** Stops the task and closes the connection; the limiter (if alive) limits locally from now on. */
    CompletableFuture<Void> stop() {
        if (task != null) {
            task.cancel(false);
        }
        StatefulRedisConnection<String, String> c = connection;
        connection = null;
        if (c != null) {
            c.closeAsync();
        }
        onStop.accept(this);
        return client.shutdownAsync(0, 1, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "LimiterSync[" + name + ", " + shared + ", syncs " + syncs + ", failures " + failures + ", outages " + outages + ']';
    }
}
