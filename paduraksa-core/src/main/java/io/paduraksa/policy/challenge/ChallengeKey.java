package io.paduraksa.policy.challenge;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * One HMAC-SHA-256 key with its id (which cookies and tokens name, so that a rotated-out key can
 * still verify while it is listed). The key's inner and outer pad blocks (RFC 2104) are computed
 * once here, so signing starts from them. Built at compile time; immutable.
 */
public final class ChallengeKey {
    /** Secrets shorter than this are refused: an HMAC key should have the hash's strength (RFC 2104 section 3). */
    public static final int MIN_SECRET_BYTES = 32;
    static final int BLOCK = 64;

    private final String id;
    private final byte[] innerPad = new byte[BLOCK];
    private final byte[] outerPad = new byte[BLOCK];

    public ChallengeKey(String id, byte[] secret) {
        this(id, secret, MIN_SECRET_BYTES);
    }

    /** Tests: RFC 4231's vectors use keys shorter than the configuration accepts. */
    ChallengeKey(String id, byte[] secret, int minSecretBytes) {
        if (!isId(id)) {
            throw new IllegalArgumentException("key id '" + id + "' is not 1 to 16 letters, digits, '-' or '_'");
        }
        if (secret.length < minSecretBytes) {
            throw new IllegalArgumentException("key '" + id + "' has a " + secret.length + "-byte secret (expected at least "
                    + MIN_SECRET_BYTES + " bytes)");
        }
        this.id = id;
        byte[] k = secret.length > BLOCK ? sha256(secret) : secret;
        for (int i = 0; i < BLOCK; i++) {
            byte b = i < k.length ? k[i] : 0;
            innerPad[i] = (byte) (b ^ 0x36);
            outerPad[i] = (byte) (b ^ 0x5c);
        }
    }

    public String id() {
        return id;
    }

    byte[] innerPad() {
        return innerPad;
    }

    byte[] outerPad() {
        return outerPad;
    }

    /** Whether {@code s[from, to)} is this key's id (ids are ASCII; not secret, so no constant time). */
    boolean idEquals(CharSequence s, int from, int to) {
        if (to - from != id.length()) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (s.charAt(from + i) != id.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Key ids travel in cookies and URLs: short, and only characters that need no escaping there. */
    public static boolean isId(String id) {
        if (id == null || id.isEmpty() || id.length() > 16) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /**
     * The 16 bytes that bind a MAC to the challenge policy named {@code policy}: the start of
     * SHA-256 over a fixed label and the name. A name is unchanged across reloads, so cookies and
     * tokens of an unchanged policy stay valid; a policy of another name refuses them.
     */
    public static byte[] scope(String policy) {
        byte[] digest = sha256(("paduraksa challenge policy\0" + policy).getBytes(StandardCharsets.UTF_8));
        return Arrays.copyOf(digest, 16);
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "ChallengeKey[" + id + "]"; // never the secret
    }

    /** The secret as written in the configuration (UTF-8 text, surrounding whitespace of a file removed). */
    public static byte[] secretBytes(String text) {
        return text.strip().getBytes(StandardCharsets.UTF_8);
    }
}
