package io.paduraksa.policy.challenge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpentProofsTest {
    private static final long NOW = ChallengeFixtures.NOW;

    @Test
    void aProofCountsUntilItsTokenExpires() {
        SpentProofs spent = new SpentProofs();
        assertThat(spent.spend(1, 2, NOW + 300, NOW)).isTrue();
        assertThat(spent.spend(1, 2, NOW + 300, NOW + 299)).as("replayed within the window").isFalse();
        assertThat(spent.spend(1, 3, NOW + 300, NOW)).as("another proof").isTrue();
        assertThat(spent.spend(2, 2, NOW + 300, NOW)).as("another proof").isTrue();
        assertThat(spent.spend(1, 2, NOW + 300, NOW + 300)).as("after the window its token is refused anyway").isTrue();
    }

    @Test
    void whenFullTheOldestIsForgotten() {
        SpentProofs spent = new SpentProofs();
        for (int i = 0; i <= SpentProofs.CAPACITY; i++) {
            assertThat(spent.spend(7, i, NOW + 300, NOW)).isTrue();
        }
        assertThat(spent.spend(7, SpentProofs.CAPACITY, NOW + 300, NOW)).as("the newest is remembered").isFalse();
        assertThat(spent.spend(7, 1, NOW + 300, NOW)).as("the second oldest still is").isFalse();
        assertThat(spent.spend(7, 0, NOW + 300, NOW)).as("the oldest was overwritten").isTrue();
    }
}
