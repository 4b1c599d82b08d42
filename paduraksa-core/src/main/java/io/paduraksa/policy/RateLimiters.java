package io.paduraksa.policy;

import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps rate-limit state across reloads. The policy compiler asks {@link #shared} for the limiter
 * of a policy; when a limiter with the same policy name, key and {@link RateLimiter.Settings} is
 * still alive (the running snapshot uses it), that one is returned and the clients' counts carry
 * over. A changed rate, burst, key, max_keys, when_full or idle_after gets a fresh limiter;
 * changing only the policy's answer keeps the state.
 *
 * <p>Entries hold their limiter weakly: once no snapshot uses a limiter (the old snapshot is
 * retired, or the compilation that made it failed), the garbage collector may take it and its
 * table. A new distributed limiter is handed to the installed {@link RateLimitSync}, so a reload
 * that keeps the limiter keeps its sync too. Compile time only (synchronized; never on an event loop).
 */
public final class RateLimiters {
    private record Identity(String policy, String key, RateLimiter.Settings settings) {
    }

    private static final Logger log = LoggerFactory.getLogger(RateLimiters.class);
    private static final Map<Identity, WeakReference<RateLimiter>> LIVE = new HashMap<>();
    private static RateLimitSync sync;

    private RateLimiters() {
    }

    /** The live limiter for this policy, key and settings, or a new one. */
    public static synchronized RateLimiter shared(String policy, String key, RateLimiter.Settings settings) {
        LIVE.values().removeIf(ref -> ref.get() == null);
        Identity id = new Identity(policy, key, settings);
        WeakReference<RateLimiter> ref = LIVE.get(id);
        RateLimiter limiter = ref == null ? null : ref.get();
        if (limiter == null) {
            limiter = new RateLimiter(policy, settings);
            LIVE.put(id, new WeakReference<>(limiter));
            if (settings.distributed() != null) {
                attach(limiter);
            }
        }
        return limiter;
    }

    /**
     * Installs what connects distributed limiters to their store (the server does, at start-up,
     * before compiling the first snapshot). Limiters made before keep limiting locally.
     */
    public static synchronized void syncWith(RateLimitSync sync) {
        RateLimiters.sync = sync;
    }

    private static void attach(RateLimiter limiter) {
        if (sync == null) {
            log.info("rate limit '{}': distributed, but no sync is installed here (check or test run); limiting locally", limiter.name());
        } else {
            sync.attach(limiter);
        }
    }
}
