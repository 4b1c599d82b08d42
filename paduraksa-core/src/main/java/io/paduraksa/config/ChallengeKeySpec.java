package io.paduraksa.config;

/**
 * One signing key of a {@code type: challenge} policy: an {@code id} (carried in cookies and
 * tokens, so that rotation knows which key signed) and exactly one of {@code secret} (the text,
 * at least 32 bytes) or {@code secret_file} (a file holding it, read when the configuration is
 * compiled; surrounding whitespace removed).
 */
public record ChallengeKeySpec(String id, String secret, String secretFile) {
    @Override
    public String toString() {
        return "ChallengeKeySpec[" + id + (secretFile != null ? ", file " + secretFile : ", inline secret") + ']'; // never the secret
    }
}
