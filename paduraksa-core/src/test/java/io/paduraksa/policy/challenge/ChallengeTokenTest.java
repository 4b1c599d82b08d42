package io.paduraksa.policy.challenge;

import static io.paduraksa.policy.challenge.ChallengeFixtures.HOST;
import static io.paduraksa.policy.challenge.ChallengeFixtures.K1;
import static io.paduraksa.policy.challenge.ChallengeFixtures.K2;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_A;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_SAME_24;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_OTHER_24;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ChallengeTokenTest {
    private static final int DIFFICULTY = 8;
    private final ChallengeFixtures.FixedClock clock = new ChallengeFixtures.FixedClock();
    private final ChallengeToken tokens = new ChallengeToken(new ChallengeKey[] {K1}, ClientBinding.IP, DIFFICULTY, 300, clock, "challenge");

    private static String solved(String token) {
        return token + "." + ChallengeFixtures.nonce(token, DIFFICULTY, true);
    }

    private boolean verify(ChallengeToken t, String proof, long low) {
        return t.verifyProof(proof, 0, proof.length(), 0, low);
    }

    @Test
    void aTokenHasTheAdvertisedFixedLength() {
        String token = tokens.issue(0, V4_A);
        assertThat(token).hasSize(tokens.length()).matches("k1\\.\\d{10}\\.[0-9a-f]{32}");
    }

    @Test
    void aSolvedTokenIsAcceptedFromItsClient() {
        assertThat(verify(tokens, solved(tokens.issue(0, V4_A)), V4_A)).isTrue();
    }

    @Test
    void aNonceWithTooFewZeroBitsIsRefused() {
        String token = tokens.issue(0, V4_A);
        String weak = token + "." + ChallengeFixtures.nonce(token, DIFFICULTY, false);
        assertThat(verify(tokens, weak, V4_A)).isFalse();
    }

    @Test
    void aProofReplayedFromAnotherAddressIsRefused() {
        String proof = solved(tokens.issue(0, V4_A));
        assertThat(verify(tokens, proof, V4_SAME_24)).isFalse();
        assertThat(verify(tokens, proof, V4_OTHER_24)).isFalse();
        ChallengeToken byPrefix = new ChallengeToken(new ChallengeKey[] {K1}, ClientBinding.PREFIX, DIFFICULTY, 300, clock, "challenge");
        String prefixProof = solved(byPrefix.issue(0, V4_A));
        assertThat(verify(byPrefix, prefixProof, V4_SAME_24)).isTrue();
        assertThat(verify(byPrefix, prefixProof, V4_OTHER_24)).isFalse();
    }

    @Test
    void aProofIsRefusedAfterTheTimeToSolve() {
        String proof = solved(tokens.issue(0, V4_A));
        clock.now += 300;
        assertThat(verify(tokens, proof, V4_A)).isTrue();
        clock.now += 1;
        assertThat(verify(tokens, proof, V4_A)).isFalse();
    }

    @Test
    void aForgedTokenIsRefusedEvenWithAGoodNonce() {
        String token = tokens.issue(0, V4_A);
        String later = token.substring(0, 3) + (Long.parseLong(token.substring(3, 13)) + 100) + token.substring(13);
        assertThat(verify(tokens, solved(later), V4_A)).isFalse();
        ChallengeToken otherKey = new ChallengeToken(new ChallengeKey[] {K2}, ClientBinding.IP, DIFFICULTY, 300, clock, "challenge");
        String foreign = solved(otherKey.issue(0, V4_A).replace("k2.", "k1."));
        assertThat(verify(tokens, foreign, V4_A)).isFalse();
    }

    @Test
    void aCookieIsNoToken() {
        ClearanceCookie cookie = new ClearanceCookie("c", new ChallengeKey[] {K1}, 3600, ClientBinding.IP, "challenge", true);
        String value = cookie.issue(HOST, 0, V4_A, clock.now);
        assertThat(verify(tokens, value + ".1", V4_A)).isFalse();
    }

    @Test
    void malformedProofsAreRefused() {
        String token = tokens.issue(0, V4_A);
        for (String proof : new String[] {"", ".", token, token + ".", token + ".x1", token + ".12345678901234567",
                "." + token.substring(3) + ".1", "k1." + token.substring(3, 13) + ".1"}) {
            assertThat(verify(tokens, proof, V4_A)).as(proof).isFalse();
        }
    }

    @Test
    void leadingZeroBitsAreCountedAcrossBytes() {
        assertThat(ChallengeToken.leadingZeroBits(new byte[] {0, 0, 0x10, 0})).isEqualTo(19);
        assertThat(ChallengeToken.leadingZeroBits(new byte[] {(byte) 0x80})).isZero();
        assertThat(ChallengeToken.leadingZeroBits(new byte[] {0, 0})).isEqualTo(16);
    }
}
