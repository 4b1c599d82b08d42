package io.paduraksa.policy;

import io.paduraksa.respond.PrecomputedResponse;

/**
 * A policy's verdict. Instances are built when the snapshot is compiled (one per policy and
 * outcome) and returned by reference, so deciding allocates nothing.
 */
public final class PolicyDecision {

    /** What the gate does next. */
    public enum Action {
        /** Run the next policy, then the route's own action. */
        CONTINUE,
        /** Answer with {@link #response()} (a denial page, a redirect, a 429...). */
        RESPOND,
        /** Answer with a challenge page ({@link #response()}); the client may retry with proof. */
        CHALLENGE,
        /** Close the connection (HTTP/1.1) or reset the stream (HTTP/2) without an answer. */
        DROP,
        /** The policy needs I/O (e.g. a forward-auth cache miss); the caller continues asynchronously. */
        NEEDS_ASYNC
    }

    public static final PolicyDecision CONTINUE = new PolicyDecision(Action.CONTINUE, null);
    public static final PolicyDecision DROP = new PolicyDecision(Action.DROP, null);
    public static final PolicyDecision NEEDS_ASYNC = new PolicyDecision(Action.NEEDS_ASYNC, null);

    private final Action action;
    private final PrecomputedResponse response;

    private PolicyDecision(Action action, PrecomputedResponse response) {
        this.action = action;
        this.response = response;
    }

    /** A decision that answers with {@code response}; call at compile time and keep the result. */
    public static PolicyDecision respond(PrecomputedResponse response) {
        return new PolicyDecision(Action.RESPOND, requireResponse(response));
    }

    /** A challenge answered with {@code page}; call at compile time and keep the result. */
    public static PolicyDecision challenge(PrecomputedResponse page) {
        return new PolicyDecision(Action.CHALLENGE, requireResponse(page));
    }

    public Action action() {
        return action;
    }

    /** The answer for RESPOND and CHALLENGE, null otherwise. */
    public PrecomputedResponse response() {
        return response;
    }

    public boolean isContinue() {
        return action == Action.CONTINUE;
    }

    @Override
    public String toString() {
        return response == null ? action.name() : action.name() + ' ' + response.status();
    }

    private static PrecomputedResponse requireResponse(PrecomputedResponse response) {
        if (response == null) {
            throw new IllegalArgumentException("a RESPOND or CHALLENGE decision needs a response");
        }
        return response;
    }
}
