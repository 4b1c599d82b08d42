package io.paduraksa.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Distributed mode of a {@link RateLimiter}: where the boxes share their counts and what a box
 * does while it cannot. Compile time only; {@link RateLimitSync} (installed by the server) acts on it.
 *
 * @param redis                the store's URI ({@code redis://[:password@]host:port/db} or {@code rediss://})
 * @param syncEveryNanos       how often a box pushes its admits and pulls the keys' shared state
 * @param share                while the store is unreachable and {@code denyWhenUnreachable} is false, each
 *                             box limits every key at this share of the rate and burst (1: each box its full rate)
 * @param denyWhenUnreachable  true: every request of the policy is refused while the store is unreachable
 * @param keyPrefix            prefix of the store's keys, before the policy name
 */
public record DistributedLimit(String redis, long syncEveryNanos, double share, boolean denyWhenUnreachable, String keyPrefix) {
    public DistributedLimit {
        if (redis == null || keyPrefix == null || syncEveryNanos <= 0 || !(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("rate limit: distributed needs redis, a positive sync_every and a share above 0 up to 1");
        }
    }

    /**
     * The fingerprint seed every box derives alike (a per-process random seed would give each box
     * other store keys): SHA-256 of the prefix and the policy name. Anyone who knows both can aim
     * two keys at one fingerprint, which merges their limits and nothing more.
     */
    long seed(String policy) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest((keyPrefix + '\0' + policy).getBytes(StandardCharsets.UTF_8));
            long s = 0;
            for (int i = 0; i < 8; i++) {
                s = (s << 8) | (d[i] & 0xFF);
            }
            return s;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The store key of one fingerprint: {@code <prefix><policy>:<16 hex digits>}. */
    public String storeKey(String policy, long fingerprint) {
        return keyPrefix + policy + ':' + String.format("%016x", fingerprint);
    }

    /** Without the password: this record is printed in logs and {@code /config}. */
    @Override
    public String toString() {
        return "DistributedLimit[" + redacted(redis) + ", sync every " + syncEveryNanos / 1_000_000 + " ms, share " + share
                + ", when unreachable " + (denyWhenUnreachable ? "deny" : "allow") + ", prefix " + keyPrefix + ']';
    }

    /** The URI with any user info replaced by {@code ***}. */
    public static String redacted(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? uri.substring(0, scheme + 3) + "***" + uri.substring(at) : uri;
    }
}
