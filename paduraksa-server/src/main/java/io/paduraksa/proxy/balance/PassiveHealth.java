package io.paduraksa.proxy.balance;

import java.time.Duration;

/**
 * Passive health (outlier ejection) settings of one cluster: after {@code consecutiveFailures}
 * failed requests in a row a destination is ejected for {@code ejectFor}; each further ejection
 * that follows before the destination has stayed healthy for {@code maxEjectFor} doubles the time,
 * up to {@code maxEjectFor}. A failure is a connection refused, reset or timed out, a response
 * head that did not come in time or was malformed, and, with {@code count5xx}, a 5xx response
 * (off by default: many 5xx answers are the application's, not a sign of a broken destination).
 * The counters live in each destination's
 * {@link io.paduraksa.proxy.balance.DestinationState}; this object holds only the settings, so one
 * instance may be shared by every destination of a cluster.
 *
 * <p>Built once per config load. {@link #ejectionNanos} runs when a destination is ejected (rare,
 * on an event loop) and allocates nothing.
 */
public final class PassiveHealth {
    /** Doubling stops here anyway: 2^30 times any ejection time is past every sane maximum. */
    private static final int MAX_DOUBLINGS = 30;

    private final int consecutiveFailures;
    private final long ejectForNanos;
    private final long maxEjectForNanos;
    private final boolean count5xx;

    public PassiveHealth(int consecutiveFailures, Duration ejectFor, Duration maxEjectFor) {
        this(consecutiveFailures, ejectFor, maxEjectFor, false);
    }

    /** @param count5xx whether a 5xx response counts as a failed request */
    public PassiveHealth(int consecutiveFailures, Duration ejectFor, Duration maxEjectFor, boolean count5xx) {
        if (consecutiveFailures < 1) {
            throw new IllegalArgumentException("consecutiveFailures must be at least 1 (got " + consecutiveFailures + ")");
        }
        if (ejectFor.isNegative() || ejectFor.isZero()) {
            throw new IllegalArgumentException("ejectFor must be positive (got " + ejectFor + ")");
        }
        if (maxEjectFor.compareTo(ejectFor) < 0) {
            throw new IllegalArgumentException("maxEjectFor " + maxEjectFor + " must be at least ejectFor " + ejectFor);
        }
        this.consecutiveFailures = consecutiveFailures;
        this.ejectForNanos = ejectFor.toNanos();
        this.maxEjectForNanos = maxEjectFor.toNanos();
        this.count5xx = count5xx;
    }

    /** Whether a 5xx response counts as a failed request. */
    public boolean counts5xx() {
        return count5xx;
    }

    /** Failed requests in a row that eject a destination. */
    public int consecutiveFailures() {
        return consecutiveFailures;
    }

    public long ejectForNanos() {
        return ejectForNanos;
    }

    /**
     * How long an ejection lasts when the destination was already ejected {@code previousEjections}
     * times in its current streak: {@code ejectFor * 2^previousEjections}, capped at {@code maxEjectFor}.
     */
    public long ejectionNanos(int previousEjections) {
        int doublings = Math.min(previousEjections, MAX_DOUBLINGS);
        long limit = maxEjectForNanos >> doublings;
        return ejectForNanos >= limit ? maxEjectForNanos : ejectForNanos << doublings;
    }

    /**
     * A destination that has not been ejected again for this long after its last ejection ended
     * starts its next streak at {@code ejectFor}: a repeat offender must behave for as long as the
     * longest penalty before it is forgiven.
     */
    public long forgiveAfterNanos() {
        return maxEjectForNanos;
    }

    @Override
    public String toString() {
        return "PassiveHealth[consecutiveFailures=" + consecutiveFailures + ", ejectFor=" + Duration.ofNanos(ejectForNanos)
                + ", maxEjectFor=" + Duration.ofNanos(maxEjectForNanos) + ", count5xx=" + count5xx + "]";
    }
}
