package io.paduraksa.policy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded table of GCRA limits, one per key, shared by every event loop (one limiter per policy,
 * however many hosts and routes use the policy).
 *
 * <p><b>Algorithm.</b> GCRA (the generic cell rate algorithm): a key's whole state is one long, its
 * theoretical arrival time (TAT). A request at {@code now} is admitted when
 * {@code max(TAT, now) + interval - now <= burst * interval}, and then TAT advances by one interval.
 * Chosen over a token bucket because the state is one integer (a bucket needs a token count and a
 * refill time, and float or fixed-point arithmetic between them), and because a key whose TAT is in
 * the past is exactly a fresh key, which makes forgetting it safe.
 *
 * <p><b>Table.</b> Allocated once, when the policy is compiled: {@code long[]} slots of three longs
 * (64-bit key fingerprint, TAT, last seen), grouped in buckets of {@value #BUCKET_SLOTS} slots with
 * one lock each. A key lives in the bucket its fingerprint selects; every read and write of a bucket
 * holds that bucket's monitor, so concurrent event loops stay correct without a lock-free protocol
 * (a 64-bit fingerprint and a TAT cannot be swapped together by one CAS). The table has
 * {@code nextPowerOfTwo(2 * maxKeys)} slots, so buckets are at most half full on average.
 *
 * <p><b>Keys.</b> Only fingerprints are stored: two keys with the same 64-bit fingerprint share one
 * limit. With {@code n} live keys the chance that any two collide is about {@code n^2 / 2^65}
 * (3e-10 for 100,000 keys); the hash is seeded from {@link SecureRandom} per limiter, so a client
 * cannot aim for another's fingerprint without the seed. A collision only merges two limits.
 *
 * <p><b>Full.</b> A new key takes an empty slot of its bucket while fewer than {@code maxKeys} keys
 * are tracked. Otherwise it replaces the oldest (least recently seen) evictable key of its bucket: a
 * key whose bucket has refilled ({@code TAT <= now}; forgetting it changes no answer) or that was not
 * seen for {@code idleAfter}. When no key of its bucket can be evicted, {@code allowWhenFull} decides;
 * each such request is counted ({@link #fullCount()}) and logged at most once per 10 s with the count.
 *
 * <p><b>Distributed.</b> With {@link Settings#distributed()} each slot also counts the key's admits
 * since the last sync, and each bucket has a dirty flag. A {@link RateLimitSync} (the server's,
 * off the loops) drains those counts ({@link #drainAdmitted}), adds them to the key's shared TAT
 * in the store, and hands back how far that TAT is ahead of now ({@link #applyDebt}); the local TAT
 * moves up to it, so the other boxes' admits count as spent here. The request path never waits
 * for the store. {@link #mode} says how the sync is doing: {@link Mode#LOCAL} limits at
 * {@code share} of the rate, {@link Mode#CLOSED} refuses every request (counted, {@link #closedCount}).
 *
 * <p>Per request: one hash, one uncontended monitor, a scan of at most one bucket; 0 B (the log line,
 * at most once per 10 s, allocates). Distributed adds one volatile read and, when admitted, one
 * increment and one byte store. {@link #acquire} also reports the key's debt, from which
 * {@link #remaining} and {@link #resetSeconds} give the {@code RateLimit-*} response fields.
 */
public final class RateLimiter {
    /** Slots per bucket (and per lock). */
    public static final int BUCKET_SLOTS = 64;
    /** Most keys one limiter tracks (its table is then about 800 MB). */
    public static final int MAX_KEYS = 16_000_000;

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);
    private static final int FINGERPRINT = 0;
    private static final int TAT = 1;
    private static final int SEEN = 2;
    /** Distributed only: admits since the last {@link #drainAdmitted}. */
    private static final int PENDING = 3;
    private static final VarHandle DIRTY = MethodHandles.arrayElementVarHandle(byte[].class);
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;
    /** {@link #acquireInBucket}: the key has no slot and none can be freed. */
    private static final long NO_SLOT = Long.MIN_VALUE;

    /** How a distributed limiter's sync is doing; a local limiter stays {@link #SHARED}. */
    public enum Mode {
        /** The normal state: limit with the local table (and, distributed, the shared counts it received). */
        SHARED,
        /** The store is unreachable and the operator chose to fail open: limit locally at {@code share} of the rate. */
        LOCAL,
        /** The store is unreachable and the operator chose to fail closed: refuse every request. */
        CLOSED
    }

    /**
     * What a limiter is built from; two specs with equal settings may share one limiter across reloads.
     *
     * @param distributed null for a limiter local to this process
     */
    public record Settings(long intervalNanos, int burst, int maxKeys, boolean allowWhenFull, long idleAfterNanos,
            DistributedLimit distributed) {
        /** A local limiter. */
        public Settings(long intervalNanos, int burst, int maxKeys, boolean allowWhenFull, long idleAfterNanos) {
            this(intervalNanos, burst, maxKeys, allowWhenFull, idleAfterNanos, null);
        }

        public Settings {
            if (intervalNanos <= 0 || burst < 1 || maxKeys < 1 || idleAfterNanos <= 0) {
                throw new IllegalArgumentException("rate limit: interval, burst, max_keys and idle_after must be positive");
            }
            if (maxKeys > MAX_KEYS) {
                throw new IllegalArgumentException("rate limit: max_keys " + maxKeys + " is more than " + MAX_KEYS
                        + " (expected at most " + MAX_KEYS + "; the table takes about 48 B per key)");
            }
            if (burst > Long.MAX_VALUE / 4 / intervalNanos) {
                throw new IllegalArgumentException("rate limit: burst " + burst + " at this rate spans more than 70 years (expected a smaller burst)");
            }
        }
    }

    private final String name;
    private final Settings settings;
    private final LongSupplier clock;
    private final long seed;
    private final long interval;
    private final long tolerance;
    private final long idleAfter;
    private final int maxKeys;
    private final boolean allowWhenFull;
    private final int stride;
    private final long localStep;
    private final long[] table;
    private final byte[] dirty;
    private final Object[] locks;
    private final AtomicLong closed = new AtomicLong();
    private volatile Mode mode = Mode.SHARED;
    private final int bucketMask;
    private final AtomicInteger keys = new AtomicInteger();
    private final AtomicLong full = new AtomicLong();
    private final AtomicLong lastFullLog;

    /** A limiter; a distributed one takes the seed every box derives alike ({@link DistributedLimit}). */
    public RateLimiter(String name, Settings settings) {
        this(name, settings, System::nanoTime,
                settings.distributed() != null ? settings.distributed().seed(name) : new SecureRandom().nextLong());
    }

    /** For tests: an injected clock (nanoseconds, like {@link System#nanoTime}) and hash seed. */
    RateLimiter(String name, Settings settings, LongSupplier clock, long seed) {
        this.name = name;
        this.settings = settings;
        this.clock = clock;
        this.seed = seed;
        this.interval = settings.intervalNanos();
        this.tolerance = settings.burst() * settings.intervalNanos();
        this.idleAfter = settings.idleAfterNanos();
        this.maxKeys = settings.maxKeys();
        this.allowWhenFull = settings.allowWhenFull();
        int slots = Math.max(BUCKET_SLOTS, Integer.highestOneBit(Math.max(1, 2 * settings.maxKeys() - 1)) << 1);
        DistributedLimit d = settings.distributed();
        this.stride = d == null ? 3 : 4;
        this.localStep = d == null ? interval : (long) Math.min(Long.MAX_VALUE / 4 / Math.max(1, settings.burst()), Math.ceil(interval / d.share()));
        this.table = new long[slots * stride];
        this.dirty = d == null ? null : new byte[slots / BUCKET_SLOTS];
        this.locks = new Object[slots / BUCKET_SLOTS];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
        this.bucketMask = locks.length - 1;
        this.lastFullLog = new AtomicLong(clock.getAsLong() - LOG_EVERY_NANOS);
    }

    public String name() {
        return name;
    }

    public Settings settings() {
        return settings;
    }

    /** Slots allocated (the memory bound is {@code 24 B}, distributed {@code 32 B}, times this). */
    public int capacity() {
        return table.length / stride;
    }

    /** True when the limiter shares its counts with other boxes ({@link Settings#distributed()}). */
    public boolean isDistributed() {
        return dirty != null;
    }

    /** How the distributed sync is doing; read per request. */
    public Mode mode() {
        return mode;
    }

    /** Set by the {@link RateLimitSync} when the store stops or starts answering. */
    public void mode(Mode mode) {
        this.mode = mode;
    }

    /** Requests refused in {@link Mode#CLOSED} since the limiter was made. */
    public long closedCount() {
        return closed.get();
    }

    /** Keys tracked now. */
    public int keyCount() {
        return keys.get();
    }

    /** Requests that found the table full since the limiter was made. */
    public long fullCount() {
        return full.get();
    }

    // ---- key fingerprints: seeded 64-bit hashes, 0 B ----

    /** The fingerprint of a client IP plus one more long (a host or route identity, or 0). */
    public long fingerprint(long ipHigh, long ipLow, long extra) {
        long h = mix(seed ^ ipHigh);
        h = mix(h ^ ipLow ^ 0x9E3779B97F4A7C15L);
        return nonZero(mix(h ^ extra));
    }

    /** The fingerprint of a header value's chars (one byte each), as sent; null is its own key. */
    public long fingerprint(CharSequence value) {
        if (value == null) {
            return nonZero(mix(seed ^ 0x5851F42D4C957F2DL));
        }
        long h = seed ^ 0xCBF29CE484222325L;
        int n = value.length();
        for (int i = 0; i < n; i++) {
            h = (h ^ (value.charAt(i) & 0xFF)) * 0x100000001B3L;
        }
        return nonZero(mix(h ^ n));
    }

    private static long nonZero(long fingerprint) {
        return fingerprint == 0 ? 1 : fingerprint;
    }

    /** MurmurHash3's 64-bit finaliser: every input bit flips about half the output bits. */
    static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    // ---- the check ----

    /** Admits or refuses one request of the key with {@code fingerprint} (non-zero). Runs per request; 0 B. */
    public boolean tryAcquire(long fingerprint) {
        return acquire(fingerprint) >= 0;
    }

    /**
     * Admits or refuses one request of the key with {@code fingerprint} (non-zero) and says how far
     * the key's TAT is ahead of now afterwards (its "debt"), for {@link #remaining} and
     * {@link #resetSeconds}: admitted, the debt ({@code >= 0}); refused, {@code -debt - 1}. A refusal
     * because the table is full or the store is unreachable ({@link Mode#CLOSED}) reports a whole
     * burst of debt; an admission because the table is full ({@code when_full: allow}) reports none.
     * Runs per request; 0 B.
     */
    public long acquire(long fingerprint) {
        if (mode == Mode.CLOSED) {
            closed.incrementAndGet();
            return -tolerance - 1;
        }
        long now = clock.getAsLong();
        int bucket = (int) fingerprint & bucketMask;
        long outcome;
        synchronized (locks[bucket]) {
            outcome = acquireInBucket(bucket, fingerprint, now);
        }
        if (outcome == NO_SLOT) {
            return tableFull(now) ? 0 : -tolerance - 1;
        }
        return outcome;
    }

    /** The most requests the key may send at once: the burst. */
    public int burst() {
        return settings.burst();
    }

    /**
     * Requests the key may still send now, from an {@link #acquire} outcome:
     * {@code floor((burst * interval - debt) / interval)}, clamped to {@code 0..burst} (in
     * {@link Mode#LOCAL} a request costs {@code interval / share}). 0 B.
     */
    public int remaining(long outcome) {
        long debt = outcome >= 0 ? outcome : -(outcome + 1);
        long left = (tolerance - debt) / (mode == Mode.LOCAL ? localStep : interval);
        return (int) Math.max(0, Math.min(settings.burst(), left));
    }

    /** Whole seconds until the key's bucket is full again, rounded up (0 when full), from an {@link #acquire} outcome. 0 B. */
    public static int resetSeconds(long outcome) {
        long debt = outcome >= 0 ? outcome : -(outcome + 1);
        long seconds = (debt + 999_999_999L) / 1_000_000_000L;
        return (int) Math.min(Integer.MAX_VALUE, seconds);
    }

    /** The debt after the check when admitted, {@code -debt - 1} when limited, {@link #NO_SLOT}. Caller holds the bucket's lock. */
    private long acquireInBucket(int bucket, long fingerprint, long now) {
        long[] t = table;
        int base = bucket * BUCKET_SLOTS;
        int start = (int) (fingerprint >>> 58);
        int stride = this.stride;
        int empty = -1;
        int victim = -1;
        long victimSeen = 0;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            int slot = (base + ((start + i) & (BUCKET_SLOTS - 1))) * stride;
            long f = t[slot + FINGERPRINT];
            if (f == fingerprint) {
                return admit(t, slot, now);
            }
            if (f == 0) {
                if (empty < 0) {
                    empty = slot;
                }
            } else if (isEvictable(t, slot, now) && (victim < 0 || t[slot + SEEN] - victimSeen < 0)) {
                victim = slot;
                victimSeen = t[slot + SEEN];
            }
        }
        if (empty >= 0 && keys.get() < maxKeys) {
            keys.incrementAndGet();
            return install(t, empty, fingerprint, now);
        }
        return victim >= 0 ? install(t, victim, fingerprint, now) : NO_SLOT;
    }

    private boolean isEvictable(long[] t, int slot, long now) {
        return t[slot + TAT] - now <= 0 || now - t[slot + SEEN] >= idleAfter;
    }

    private long install(long[] t, int slot, long fingerprint, long now) {
        t[slot + FINGERPRINT] = fingerprint;
        t[slot + TAT] = now;
        if (dirty != null) {
            t[slot + PENDING] = 0; // the evicted key's unsent admits go with it
        }
        return admit(t, slot, now);
    }

    /**
     * GCRA: admitted when the new TAT is at most {@code burst} intervals ahead of now. In
     * {@link Mode#LOCAL} a request costs {@code interval / share}, so the box gets its share of the rate.
     */
    private long admit(long[] t, int slot, long now) {
        t[slot + SEEN] = now;
        long tat = t[slot + TAT];
        boolean shared = mode == Mode.SHARED;
        long start = tat - now < 0 ? now : tat;
        long next = start + (shared ? interval : localStep);
        if (next - now > tolerance) {
            return -(start - now) - 1;
        }
        t[slot + TAT] = next;
        if (dirty != null && shared) {
            t[slot + PENDING]++;
            DIRTY.setOpaque(dirty, slot / stride / BUCKET_SLOTS, (byte) 1);
        }
        return next - now;
    }

    // ---- distributed: called by the RateLimitSync, off the event loops ----

    /**
     * Takes the admits counted since the last call: {@code [fingerprint0, count0, fingerprint1, ...]}.
     * Visits only buckets flagged dirty; each under its lock. Off the loops (allocates the result).
     */
    public long[] drainAdmitted() {
        if (dirty == null) {
            return new long[0];
        }
        long[] out = new long[32];
        int n = 0;
        for (int bucket = 0; bucket < dirty.length; bucket++) {
            if ((byte) DIRTY.getOpaque(dirty, bucket) == 0) {
                continue;
            }
            if (out.length - n < 2 * BUCKET_SLOTS) {
                out = Arrays.copyOf(out, Math.max(out.length * 2, n + 2 * BUCKET_SLOTS));
            }
            synchronized (locks[bucket]) {
                DIRTY.setOpaque(dirty, bucket, (byte) 0);
                n = drainBucket(bucket, out, n);
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    private int drainBucket(int bucket, long[] out, int n) {
        long[] t = table;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            int slot = (bucket * BUCKET_SLOTS + i) * stride;
            long pending = t[slot + PENDING];
            if (pending != 0 && t[slot + FINGERPRINT] != 0) {
                out[n++] = t[slot + FINGERPRINT];
                out[n++] = pending;
            }
            t[slot + PENDING] = 0;
        }
        return n;
    }

    /**
     * The store says the key's shared TAT is {@code debtNanos} ahead of now (all boxes' admits that
     * reached it, this box's included). The local TAT moves up to that, plus this box's admits that
     * were counted after the drain and have not reached the store yet; it never moves back. A key
     * evicted meanwhile is left alone. Off the loops.
     */
    public void applyDebt(long fingerprint, long debtNanos) {
        if (dirty == null) {
            return;
        }
        long now = clock.getAsLong();
        int bucket = (int) fingerprint & bucketMask;
        synchronized (locks[bucket]) {
            long[] t = table;
            for (int i = 0; i < BUCKET_SLOTS; i++) {
                int slot = (bucket * BUCKET_SLOTS + i) * stride;
                if (t[slot + FINGERPRINT] == fingerprint) {
                    long target = now + Math.max(0, debtNanos) + t[slot + PENDING] * interval;
                    if (target - t[slot + TAT] > 0) {
                        t[slot + TAT] = target;
                    }
                    return;
                }
            }
        }
    }

    private boolean tableFull(long now) {
        long count = full.incrementAndGet();
        long last = lastFullLog.get();
        if (now - last >= LOG_EVERY_NANOS && lastFullLog.compareAndSet(last, now)) {
            logFull(count);
        }
        return allowWhenFull;
    }

    private void logFull(long count) {
        log.warn("rate limit '{}': key table full ({} keys tracked, none idle in the key's bucket); {} requests so far were {}",
                name, keys.get(), count, allowWhenFull ? "allowed unlimited (when_full: allow)" : "denied (when_full: deny)");
    }

    @Override
    public String toString() {
        return "RateLimiter[" + name + ", " + settings + ", " + capacity() + " slots]";
    }
}
