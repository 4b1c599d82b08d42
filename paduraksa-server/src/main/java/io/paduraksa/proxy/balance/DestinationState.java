package io.paduraksa.proxy.balance;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Live state of one destination of a cluster, shared by every event loop: requests in flight,
 * the active health checker's verdict and passive ejection.
 *
 * <p>Every method runs per request (or per upstream result) on an event loop; all are lock-free
 * (volatile fields and {@link VarHandle} atomics) and allocate nothing
 * ({@code LoadBalancerAllocationTest}).
 *
 * <p>Passive health, when configured: {@link #onFailure} counts failures in a row and ejects the
 * destination after {@link PassiveHealth#consecutiveFailures()}; {@link #onSuccess} resets the count.
 * Results that arrive while the destination is ejected (requests that were already in flight) are
 * ignored, so one burst of failures ejects once and does not stretch its own penalty. An ejection
 * ends by itself when its time is up: {@link #isAvailable} compares with {@code nowNanos}, nothing
 * has to run to bring the destination back.
 *
 * <p>A refused or reset connection ({@link #onConnectionFailure}) counts at once, whether passive
 * ejection is configured or not: besides counting as a passive failure it marks the destination
 * as failed recently for {@code avoidFor} (the cluster's {@code health.passive.eject_for}), and
 * the balancer skips a recently failed destination while another one is available. The mark is
 * soft (unlike an ejection it never leaves a cluster without destinations) and the next
 * successful response on the destination clears it.
 *
 * <p>Reload: {@link #carryFrom} copies the health of the same destination in the replaced
 * configuration, so that a reload neither forgets a dead destination nor its penalty.
 */
public final class DestinationState {
    /** {@link #ejectedUntil} when the destination has never been ejected. */
    private static final long NEVER = Long.MIN_VALUE;
    /** {@code avoidFor} when no passive settings are given: the default {@code health.passive.eject_for}. */
    private static final long DEFAULT_AVOID_NANOS = 30_000_000_000L;
    private static final VarHandle IN_FLIGHT;
    private static final VarHandle FAILURES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            IN_FLIGHT = lookup.findVarHandle(DestinationState.class, "inFlight", int.class);
            FAILURES = lookup.findVarHandle(DestinationState.class, "failures", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int index;
    private final int weight;
    private final PassiveHealth passive;
    private final long avoidForNanos;

    private volatile int inFlight;
    private volatile boolean activeHealthy = true;
    /** Consecutive failures seen by passive health since the last success or ejection. */
    private volatile int failures;
    /** End of the current or last ejection ({@code System.nanoTime} scale), or {@link #NEVER}. */
    private volatile long ejectedUntil = NEVER;
    /** Ejections in the current streak; the next one lasts {@code ejectFor * 2^ejections}. */
    private volatile int ejections;
    /** End of the soft avoidance after a refused or reset connection, or {@link #NEVER}. */
    private volatile long failedUntil = NEVER;

    /**
     * @param index   the destination's position in its cluster, as {@link LoadBalancer#choose} returns it
     * @param weight  relative share of traffic, at least 1
     * @param passive passive health settings, or null to never eject
     */
    public DestinationState(int index, int weight, PassiveHealth passive) {
        this(index, weight, passive, passive != null ? passive.ejectForNanos() : DEFAULT_AVOID_NANOS);
    }

    /**
     * @param avoidForNanos how long a refused or reset connection makes the balancer avoid the
     *                      destination ({@link #isFailedRecently}); positive
     */
    public DestinationState(int index, int weight, PassiveHealth passive, long avoidForNanos) {
        if (index < 0) {
            throw new IllegalArgumentException("index must not be negative (got " + index + ")");
        }
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be at least 1 (got " + weight + ")");
        }
        if (avoidForNanos <= 0) {
            throw new IllegalArgumentException("avoidForNanos must be positive (got " + avoidForNanos + ")");
        }
        this.index = index;
        this.weight = weight;
        this.passive = passive;
        this.avoidForNanos = avoidForNanos;
    }

    public int index() {
        return index;
    }

    public int weight() {
        return weight;
    }

    /** Active health says healthy (true until a checker says otherwise) and no passive ejection is running. */
    public boolean isAvailable(long nowNanos) {
        return activeHealthy && !isEjected(nowNanos);
    }

    /** True while a passive ejection runs at {@code nowNanos}. */
    public boolean isEjected(long nowNanos) {
        long until = ejectedUntil;
        return until != NEVER && nowNanos - until < 0;
    }

    /** True while a refused or reset connection of the last {@code avoidFor} is not followed by a response. */
    public boolean isFailedRecently(long nowNanos) {
        long until = failedUntil;
        return until != NEVER && nowNanos - until < 0;
    }

    public void requestStarted() {
        IN_FLIGHT.getAndAdd(this, 1);
    }

    public void requestEnded() {
        IN_FLIGHT.getAndAdd(this, -1);
    }

    public int inFlight() {
        return inFlight;
    }

    /** Called by the active health checker when its verdict changes (or repeats; the write is idempotent). */
    public void markActiveHealthy(boolean healthy) {
        activeHealthy = healthy;
    }

    public boolean isActiveHealthy() {
        return activeHealthy;
    }

    /** Passive health: a request on this destination succeeded, so the failure streak ends. */
    public void onSuccess() {
        // Read before writing: most calls find 0, and skipping the write keeps the cache line
        // shared between event loops instead of bouncing it on every success.
        if (failures != 0) {
            failures = 0;
        }
        if (failedUntil != NEVER) {
            failedUntil = NEVER;
        }
    }

    /**
     * A response head came with {@code status}: a failure for passive health when it is a 5xx and
     * the cluster counts those ({@link PassiveHealth#counts5xx()}), else a success.
     */
    public void onResponse(int status, long nowNanos) {
        PassiveHealth p = passive;
        if (status >= 500 && p != null && p.counts5xx()) {
            onFailure(nowNanos);
        } else {
            onSuccess();
        }
    }

    /**
     * The connection was refused, could not be made, or was reset before any response byte: a
     * passive failure ({@link #onFailure}) and, at once, a recent failure the balancer avoids for
     * {@code avoidFor}. Returns what {@link #onFailure} returns.
     */
    public boolean onConnectionFailure(long nowNanos) {
        long until = nowNanos + avoidForNanos;
        failedUntil = until == NEVER ? until + 1 : until;
        return onFailure(nowNanos);
    }

    /**
     * Passive health: a request on this destination failed (connect error, reset, timeout, 5xx as
     * the forwarder defines it). Returns true when this call ejected the destination, so the caller
     * can log or count it; no-op (false) without passive health or while ejected.
     */
    public boolean onFailure(long nowNanos) {
        PassiveHealth p = passive;
        if (p == null || isEjected(nowNanos)) {
            return false;
        }
        // Only the caller that moves the count onto the threshold ejects: exactly one per streak.
        int n = (int) FAILURES.getAndAdd(this, 1) + 1;
        if (n != p.consecutiveFailures()) {
            return false;
        }
        eject(p, nowNanos);
        return true;
    }

    private void eject(PassiveHealth p, long nowNanos) {
        long lastUntil = ejectedUntil;
        int streak = ejections;
        if (lastUntil == NEVER || nowNanos - lastUntil >= p.forgiveAfterNanos()) {
            streak = 0;
        }
        long until = nowNanos + p.ejectionNanos(streak);
        ejectedUntil = until == NEVER ? until + 1 : until;
        ejections = streak + 1;
        failures = 0;
    }

    /**
     * Reload: takes over the health of the same destination in the replaced configuration: the
     * failure streak, the running ejection and its count (only when this state has passive
     * settings, since an ejection without them would never be counted again), the recent
     * connection failure, and, with {@code active}, the active checker's verdict. Runs off the
     * event loops before this state serves a request; requests still running on {@code old} may
     * change it afterwards, which this copy does not see.
     */
    public void carryFrom(DestinationState old, boolean active) {
        if (passive != null) {
            failures = old.failures;
            ejectedUntil = old.ejectedUntil;
            ejections = old.ejections;
        }
        failedUntil = old.failedUntil;
        if (active) {
            activeHealthy = old.activeHealthy;
        }
    }

    /** Ejections in the streak as of the last ejection (forgiveness is applied at the next one); for logs and metrics. */
    public int ejections() {
        return ejections;
    }

    @Override
    public String toString() {
        return "DestinationState[index=" + index + ", weight=" + weight + ", inFlight=" + inFlight + ", activeHealthy="
                + activeHealthy + ", ejectedUntil=" + (ejectedUntil == NEVER ? "never" : Long.toString(ejectedUntil)) + "]";
    }
}
