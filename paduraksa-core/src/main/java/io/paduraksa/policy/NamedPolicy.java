package io.paduraksa.policy;

/**
 * The base of the built-in policies: the name the operator gave the policy ({@link #name}), which
 * each of them reports for explain output, logs and metrics. Compile time only; holds nothing
 * that runs per request.
 */
public abstract class NamedPolicy implements RequestPolicy {
    protected final String name;

    protected NamedPolicy(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }
}
