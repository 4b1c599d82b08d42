package io.paduraksa.server.cycle;

import io.paduraksa.policy.AsyncPolicy;
import io.paduraksa.policy.ForwardAuthPolicy;
import io.paduraksa.proxy.auth.ForwardAuthCall;
import java.util.Arrays;

/**
 * The starters of the asynchronous policy kinds, by the policy's class: built once at start, read
 * (never written) on the event loops when a gate returns NEEDS_ASYNC. A new kind of asynchronous
 * policy registers its starter in {@link #standard()}; the request cycle and the protocol handlers
 * stay as they are.
 */
public final class AsyncPolicies {
    private static final AsyncPolicies STANDARD = new AsyncPolicies(new Class<?>[0], new AsyncPolicyStarter<?>[0])
            .with(ForwardAuthPolicy.class, ForwardAuthCall::start);

    private final Class<?>[] kinds;
    private final AsyncPolicyStarter<?>[] starters;

    private AsyncPolicies(Class<?>[] kinds, AsyncPolicyStarter<?>[] starters) {
        this.kinds = kinds;
        this.starters = starters;
    }

    /** The server's kinds: forward-auth ({@link ForwardAuthCall}). */
    public static AsyncPolicies standard() {
        return STANDARD;
    }

    /** These starters and {@code starter} for policies of class {@code kind} (a kind already present keeps its first starter). */
    public <P extends AsyncPolicy> AsyncPolicies with(Class<P> kind, AsyncPolicyStarter<? super P> starter) {
        Class<?>[] k = Arrays.copyOf(kinds, kinds.length + 1);
        AsyncPolicyStarter<?>[] s = Arrays.copyOf(starters, starters.length + 1);
        k[kinds.length] = kind;
        s[starters.length] = starter;
        return new AsyncPolicies(k, s);
    }

    /** Whether a starter is registered for {@code policy}'s kind. */
    boolean has(AsyncPolicy policy) {
        return index(policy) >= 0;
    }

    /**
     * Starts {@code policy}'s I/O for the exchange's request through the starter of its kind (one
     * must be registered: {@link #has}); {@code done} gets the exchange back as its token.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void start(AsyncPolicy policy, ProtocolExchange exchange, AsyncPolicy.Decided done) {
        ((AsyncPolicyStarter) starters[index(policy)]).start(exchange.channel(), exchange.state(), policy, done, exchange);
    }

    private int index(AsyncPolicy policy) {
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i].isInstance(policy)) {
                return i;
            }
        }
        return -1;
    }
}
