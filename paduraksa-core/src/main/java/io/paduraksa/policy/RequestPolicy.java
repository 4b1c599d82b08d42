package io.paduraksa.policy;

import java.util.List;

/**
 * One compiled policy. {@link #evaluate} runs on an event loop for every request that reaches
 * it: it must not block, must not allocate, and returns one of its precomputed decisions.
 */
public interface RequestPolicy {

    /** The name the operator gave the policy (for explain output, logs and metrics). */
    String name();

    PolicyDecision evaluate(PolicyInput request);

    /**
     * Extra lines for {@code paduraksa explain} about how this policy decided {@code request} (for
     * example each rule's verdict); none by default. Off the hot path: may allocate.
     */
    default List<String> explain(PolicyInput request) {
        return List.of();
    }
}
