package io.paduraksa.policy.challenge;

import java.nio.charset.StandardCharsets;

/** Keys, addresses and a movable clock for the challenge tests. */
final class ChallengeFixtures {
    static final ChallengeKey K1 = new ChallengeKey("k1", "first secret, long enough for HMAC-SHA-256!".getBytes(StandardCharsets.UTF_8));
    static final ChallengeKey K2 = new ChallengeKey("k2", "second secret, also at least thirty-two bytes".getBytes(StandardCharsets.UTF_8));
    static final String HOST = "shop.example";
    static final long V4_HIGH = 0;
    /** 198.51.100.7 and neighbours, mapped. */
    static final long V4_A = 0xFFFF_C633_6407L;
    static final long V4_SAME_24 = 0xFFFF_C633_64C8L; // 198.51.100.200
    static final long V4_OTHER_24 = 0xFFFF_C633_6507L; // 198.51.101.7
    /** 2001:db8:1:2::10 and a neighbour in the same /64, and one outside it. */
    static final long V6_HIGH = 0x2001_0db8_0001_0002L;
    static final long V6_OTHER_64 = 0x2001_0db8_0001_0003L;
    static final long NOW = 1_767_225_600L; // 2026-01-01T00:00:00Z

    private ChallengeFixtures() {
    }

    static final class FixedClock implements ChallengeToken.Clock {
        long now = NOW;

        @Override
        public long nowSeconds() {
            return now;
        }
    }

    /** Finds the first nonce for {@code token} that meets (or, with {@code meets} false, misses) the difficulty. */
    static long nonce(String token, int difficulty, boolean meets) {
        for (long n = 0; ; n++) {
            ChallengeHmac h = ChallengeHmac.get();
            String proof = token + "." + n;
            h.put(proof, 0, proof.length());
            boolean ok = ChallengeToken.leadingZeroBits(h.sha256()) >= difficulty;
            if (ok == meets) {
                return n;
            }
        }
    }
}
