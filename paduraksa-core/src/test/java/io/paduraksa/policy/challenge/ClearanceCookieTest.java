package io.paduraksa.policy.challenge;

import static io.paduraksa.policy.challenge.ChallengeFixtures.HOST;
import static io.paduraksa.policy.challenge.ChallengeFixtures.K1;
import static io.paduraksa.policy.challenge.ChallengeFixtures.K2;
import static io.paduraksa.policy.challenge.ChallengeFixtures.NOW;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_A;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_OTHER_24;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V4_SAME_24;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V6_HIGH;
import static io.paduraksa.policy.challenge.ChallengeFixtures.V6_OTHER_64;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClearanceCookieTest {
    private static final long TTL = 3600;
    private final ClearanceCookie byIp = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K1}, TTL, ClientBinding.IP, "challenge", true);
    private final ClearanceCookie byPrefix = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K1}, TTL, ClientBinding.PREFIX, "challenge", true);

    private static String header(String value) {
        return "pdk_clearance=" + value;
    }

    @Test
    void anIssuedCookieLooksLikeVersionKeyExpiryMac() {
        String value = byIp.issue(HOST, 0, V4_A, NOW);
        assertThat(value).matches("1\\.k1\\." + (NOW + TTL) + "\\.[0-9a-f]{32}");
    }

    @Test
    void anIssuedCookieIsValidForItsClientUntilItExpires() {
        String value = byIp.issue(HOST, 0, V4_A, NOW);
        assertThat(byIp.isValid(header(value), HOST, 0, V4_A, NOW)).isTrue();
        assertThat(byIp.isValid(header(value), HOST, 0, V4_A, NOW + TTL - 1)).isTrue();
        assertThat(byIp.isValid(header(value), HOST, 0, V4_A, NOW + TTL)).as("expired").isFalse();
    }

    @Test
    void anIpBoundCookieIsRefusedForAnyOtherAddress() {
        String value = byIp.issue(HOST, 0, V4_A, NOW);
        assertThat(byIp.isValid(header(value), HOST, 0, V4_SAME_24, NOW)).isFalse();
        assertThat(byIp.isValid(header(value), HOST, 0, V4_OTHER_24, NOW)).isFalse();
        String v6 = byIp.issue(HOST, V6_HIGH, 0x10, NOW);
        assertThat(byIp.isValid(header(v6), HOST, V6_HIGH, 0x11, NOW)).isFalse();
    }

    @Test
    void aPrefixBoundCookieHoldsWithinItsNetworkOnly() {
        String value = byPrefix.issue(HOST, 0, V4_A, NOW);
        assertThat(byPrefix.isValid(header(value), HOST, 0, V4_SAME_24, NOW)).isTrue();
        assertThat(byPrefix.isValid(header(value), HOST, 0, V4_OTHER_24, NOW)).isFalse();
        String v6 = byPrefix.issue(HOST, V6_HIGH, 0x10, NOW);
        assertThat(byPrefix.isValid(header(v6), HOST, V6_HIGH, 0xFFFF_0000_1234L, NOW)).isTrue();
        assertThat(byPrefix.isValid(header(v6), HOST, V6_OTHER_64, 0x10, NOW)).isFalse();
    }

    @Test
    void anIpCookieIsNoPrefixCookieAndTheOtherWayRound() {
        assertThat(byPrefix.isValid(header(byIp.issue(HOST, 0, V4_A, NOW)), HOST, 0, V4_A, NOW)).isFalse();
        assertThat(byIp.isValid(header(byPrefix.issue(HOST, 0, V4_A, NOW)), HOST, 0, V4_A, NOW)).isFalse();
    }

    @Test
    void aForgedMacOrAlteredExpiryIsRefused() {
        String value = byIp.issue(HOST, 0, V4_A, NOW);
        char last = value.charAt(value.length() - 1);
        String forged = value.substring(0, value.length() - 1) + (last == '0' ? '1' : '0');
        assertThat(byIp.isValid(header(forged), HOST, 0, V4_A, NOW)).isFalse();
        String later = value.replace("." + (NOW + TTL) + ".", "." + (NOW + TTL - 10) + ".");
        assertThat(byIp.isValid(header(later), HOST, 0, V4_A, NOW)).isFalse();
        assertThat(byIp.isValid(header(value.toUpperCase(java.util.Locale.ROOT).replace("K1", "k1")), HOST, 0, V4_A, NOW)).isFalse();
    }

    @Test
    void aCookieLastingLongerThanTheConfiguredLifetimeIsRefused() {
        ClearanceCookie longLived = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K1}, 30 * TTL, ClientBinding.IP, "challenge", true);
        String value = longLived.issue(HOST, 0, V4_A, NOW);
        assertThat(longLived.isValid(header(value), HOST, 0, V4_A, NOW)).isTrue();
        assertThat(byIp.isValid(header(value), HOST, 0, V4_A, NOW)).as("ttl shortened since").isFalse();
    }

    @Test
    void rotationKeepsOldCookiesWhileTheirKeyIsListed() {
        ClearanceCookie before = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K1}, TTL, ClientBinding.IP, "challenge", true);
        ClearanceCookie rotated = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K2, K1}, TTL, ClientBinding.IP, "challenge", true);
        ClearanceCookie removed = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {K2}, TTL, ClientBinding.IP, "challenge", true);
        String old = before.issue(HOST, 0, V4_A, NOW);
        String fresh = rotated.issue(HOST, 0, V4_A, NOW);
        assertThat(fresh).startsWith("1.k2.");
        assertThat(rotated.isValid(header(old), HOST, 0, V4_A, NOW)).isTrue();
        assertThat(rotated.isValid(header(fresh), HOST, 0, V4_A, NOW)).isTrue();
        assertThat(removed.isValid(header(old), HOST, 0, V4_A, NOW)).isFalse();
        assertThat(removed.isValid(header(fresh), HOST, 0, V4_A, NOW)).isTrue();
    }

    @Test
    void aKeyWithTheSameIdButAnotherSecretDoesNotVerify() {
        ChallengeKey impostor = new ChallengeKey("k1", "an attacker's guess at the secret, 32+ bytes".getBytes());
        ClearanceCookie other = new ClearanceCookie("pdk_clearance", new ChallengeKey[] {impostor}, TTL, ClientBinding.IP, "challenge", true);
        assertThat(byIp.isValid(header(other.issue(HOST, 0, V4_A, NOW)), HOST, 0, V4_A, NOW)).isFalse();
    }

    @Test
    void theCookieIsFoundAmongOthersAndEveryOccurrenceIsTried() {
        String value = byIp.issue(HOST, 0, V4_A, NOW);
        assertThat(byIp.isValid("a=1; pdk_clearance=" + value + "; b=2", HOST, 0, V4_A, NOW)).isTrue();
        assertThat(byIp.isValid("pdk_clearance=stale; pdk_clearance=" + value, HOST, 0, V4_A, NOW)).isTrue();
        assertThat(byIp.isValid("x_pdk_clearance=" + value, HOST, 0, V4_A, NOW)).isFalse();
        assertThat(byIp.isValid("PDK_CLEARANCE=" + value, HOST, 0, V4_A, NOW)).as("names are case-sensitive").isFalse();
        assertThat(byIp.isValid(null, HOST, 0, V4_A, NOW)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "pdk_clearance", "pdk_clearance=", "pdk_clearance=1", "pdk_clearance=1.k1.",
            "pdk_clearance=2.k1.1767229200.00000000000000000000000000000000",
            "pdk_clearance=1.k9.1767229200.00000000000000000000000000000000",
            "pdk_clearance=1..1767229200.00000000000000000000000000000000",
            "pdk_clearance=1.k1..00000000000000000000000000000000",
            "pdk_clearance=1.k1.17672x9200.00000000000000000000000000000000",
            "pdk_clearance=1.k1.1767229200.0000000000000000000000000000000g",
            "pdk_clearance=1.k1.1767229200.000000000000000000000000000000000",
            "pdk_clearance=1.k1.99999999999999.00000000000000000000000000000000",
            "pdk_clearance=1.k1.1767229200.0000000000000000000000000000000",
            ";;;", "pdk_clearance=;pdk_clearance=\t"})
    void malformedValuesAreRefused(String header) {
        assertThat(byIp.isValid(header, HOST, 0, V4_A, NOW)).isFalse();
    }
}
