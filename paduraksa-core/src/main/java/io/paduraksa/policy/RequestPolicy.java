package io.paduraksa.policy;

/**
 * One compiled policy. {@link #evaluate} runs on an event loop for every request that reaches
 * it: it must not block, must not allocate, and returns one of its precomputed decisions.
 */
public interface RequestPolicy {

    /** The name the operator gave the policy (for explain output, logs and metrics). */
    String name();

    PolicyDecision evaluate(PolicyInput request);
}
