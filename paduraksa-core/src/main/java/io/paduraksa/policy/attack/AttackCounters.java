package io.paduraksa.policy.attack;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the {@code attacks} policies matched, per policy name for the life of the process (kept
 * across reloads, as a counter should be): rules matched per group, requests denied, requests
 * detected in detect-only mode. Incremented only when something matched (never for a clean request).
 */
public final class AttackCounters {
    /** Groups with a counter, in this order. */
    static final int[] GROUPS = {911, 913, 920, 921, 930, 932, 933, 941, 942, 944};
    private static final int DENIED = GROUPS.length;
    private static final int DETECTED = GROUPS.length + 1;
    private static final Map<String, AttackCounters> BY_NAME = new LinkedHashMap<>();

    private final String policy;
    private final AtomicLongArray counts = new AtomicLongArray(GROUPS.length + 2);

    private AttackCounters(String policy) {
        this.policy = policy;
    }

    /** The counters of the policy named {@code policy}, created on first use. Compile time. */
    static synchronized AttackCounters of(String policy) {
        return BY_NAME.computeIfAbsent(policy, AttackCounters::new);
    }

    /** Every policy's counters, in the order they were first configured (for /metrics). */
    public static synchronized List<AttackCounters> all() {
        return new ArrayList<>(BY_NAME.values());
    }

    /** The groups {@link #matches} counts. */
    public static int[] groups() {
        return GROUPS.clone();
    }

    public String policy() {
        return policy;
    }

    /** Rules of {@code group} (942) matched, once per request each. */
    public long matches(int group) {
        return counts.get(slot(group));
    }

    /** Requests denied (the score reached the threshold, not detect-only). */
    public long denied() {
        return counts.get(DENIED);
    }

    /** Requests whose score reached the threshold in detect-only mode (logged, not denied). */
    public long detected() {
        return counts.get(DETECTED);
    }

    void matched(int group) {
        counts.incrementAndGet(slot(group));
    }

    void reached(boolean detectOnly) {
        counts.incrementAndGet(detectOnly ? DETECTED : DENIED);
    }

    private static int slot(int group) {
        for (int i = 0; i < GROUPS.length; i++) {
            if (GROUPS[i] == group) {
                return i;
            }
        }
        throw new IllegalArgumentException("no rule group " + group + " (expected one of 911, 913, 920, 921, 930, 932, 933, 941, 942, 944)");
    }
}
