package io.paduraksa.policy;

/**
 * Connects a distributed {@link RateLimiter} to the store its boxes share. Core holds no client: the
 * server installs one with {@link RateLimiters#syncWith} at start-up, before the first snapshot is
 * compiled; without one (core tests, {@code paduraksa check}) a distributed limiter limits locally.
 *
 * <p>An implementation runs off the event loops. It calls {@link RateLimiter#drainAdmitted()} every
 * {@link DistributedLimit#syncEveryNanos()}, sends the counts to the store, hands each key's shared
 * state back with {@link RateLimiter#applyDebt}, and sets {@link RateLimiter#mode} when the store
 * stops or starts answering. It must stop by itself once the limiter is unreachable (garbage): the
 * registry holds limiters weakly, so it should too. The request path never calls it.
 */
public interface RateLimitSync {
    /** Starts syncing a new distributed limiter (compile time; once per limiter). */
    void attach(RateLimiter limiter);
}
