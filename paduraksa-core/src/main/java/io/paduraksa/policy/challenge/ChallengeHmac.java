package io.paduraksa.policy.challenge;

import io.netty.util.concurrent.FastThreadLocal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * HMAC-SHA-256 (RFC 2104) over a per-thread {@link MessageDigest}, reused for every key and
 * message: the message is gathered in a scratch array, then hashed from the key's precomputed
 * pad blocks. 0 B per MAC after the thread's first call.
 *
 * <p>Why not {@code javax.crypto.Mac}: its {@code doFinal(byte[], int)} computes into a new array
 * and copies it ({@code Mac.doFinal()} inside, and {@code HmacCore} allocates the inner digest),
 * so every MAC would allocate (measured on JDK 25: 48 B per {@code update} + {@code doFinal(out, 0)},
 * against 0 B for the two {@code MessageDigest} passes here); {@code MessageDigest.digest(byte[], int,
 * int)} writes in place. {@code ChallengeHmacTest} checks this class against RFC 4231 and {@code Mac}.
 * Not thread-safe by design: one instance per thread ({@link #get()}), used by one call at a time.
 */
final class ChallengeHmac {
    static final int MAC_BYTES = 32;
    /**
     * Longest message: a cookie or token prefix (at most ~40 chars), the 16-byte policy scope, the
     * 18-byte client binding and, with {@code bind_host}, a flag byte and a host name of at most
     * {@value #MAX_HOST} bytes.
     */
    private static final int MAX_MESSAGE = 384;
    /** Longest host name bound into a cookie (RFC 1035: 253 characters, plus brackets of an IPv6 literal). */
    static final int MAX_HOST = 255;

    private static final FastThreadLocal<ChallengeHmac> LOCAL = new FastThreadLocal<>() {
        @Override
        protected ChallengeHmac initialValue() {
            return new ChallengeHmac();
        }
    };

    private final MessageDigest sha;
    private final byte[] message = new byte[MAX_MESSAGE];
    private final byte[] inner = new byte[MAC_BYTES];
    private final byte[] mac = new byte[MAC_BYTES];
    private int length;

    private ChallengeHmac() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    /** This thread's engine, cleared. */
    static ChallengeHmac get() {
        ChallengeHmac h = LOCAL.get();
        h.length = 0;
        return h;
    }

    /** False when the message would not fit (the caller treats it as invalid input). */
    boolean put(byte b) {
        if (length == MAX_MESSAGE) {
            return false;
        }
        message[length++] = b;
        return true;
    }

    /** Appends {@code s[from, to)} as bytes (callers pass ASCII); false when it would not fit. */
    boolean put(CharSequence s, int from, int to) {
        if (to - from > MAX_MESSAGE - length) {
            return false;
        }
        for (int i = from; i < to; i++) {
            message[length++] = (byte) s.charAt(i);
        }
        return true;
    }

    /** Appends all of {@code bytes} (a policy scope); false when they would not fit. */
    boolean put(byte[] bytes) {
        if (bytes.length > MAX_MESSAGE - length) {
            return false;
        }
        System.arraycopy(bytes, 0, message, length, bytes.length);
        length += bytes.length;
        return true;
    }

    /**
     * Appends the host a cookie is bound to: a marker byte, then the host name of the
     * {@code Host}/{@code :authority} value as the host table reads it (port and one trailing dot
     * removed, ASCII letters lower-cased; an IPv6 literal keeps its brackets). A missing authority
     * binds to the empty name. False when the name is longer than {@value #MAX_HOST} or would not fit.
     */
    boolean putHost(CharSequence authority) {
        if (length == MAX_MESSAGE) {
            return false;
        }
        message[length++] = 'H';
        if (authority == null) {
            return true;
        }
        int end = hostEnd(authority);
        if (end > MAX_HOST || end > MAX_MESSAGE - length) {
            return false;
        }
        for (int i = 0; i < end; i++) {
            char c = authority.charAt(i);
            message[length++] = (byte) (c >= 'A' && c <= 'Z' ? c | 0x20 : c);
        }
        return true;
    }

    /** Where the host name in {@code authority} ends: before {@code :port} and one trailing dot. */
    static int hostEnd(CharSequence authority) {
        int end = authority.length();
        if (end > 0 && authority.charAt(0) == '[') {
            int close = ClearanceCookie.indexOf(authority, ']', 0, end);
            return close < end ? close + 1 : end;
        }
        int i = end;
        while (i > 0 && authority.charAt(i - 1) >= '0' && authority.charAt(i - 1) <= '9') {
            i--;
        }
        if (i > 0 && authority.charAt(i - 1) == ':') {
            end = i - 1;
        }
        if (end > 0 && authority.charAt(end - 1) == '.') {
            end--;
        }
        return end;
    }

    /** Appends the last {@code digits} decimal digits of {@code value}, zero-padded. */
    void putDigits(long value, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            message[length + i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        length += digits;
    }

    /**
     * Appends what a MAC is bound to: the client address masked to {@code bits} leading bits of its
     * 128-bit form (IPv4 mapped), then the bit count, so that an /ip and a /prefix binding differ.
     */
    void putBinding(long high, long low, int bits) {
        long maskHigh = bits >= 64 ? -1L : bits == 0 ? 0 : -1L << (64 - bits);
        long maskLow = bits <= 64 ? 0 : bits >= 128 ? -1L : -1L << (128 - bits);
        putLong(high & maskHigh);
        putLong(low & maskLow);
        message[length++] = (byte) bits;
    }

    private void putLong(long v) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            message[length++] = (byte) (v >>> shift);
        }
    }

    /** HMAC-SHA-256 of the gathered message under {@code key}; the array is reused by the next call. */
    byte[] mac(ChallengeKey key) {
        try {
            sha.reset();
            sha.update(key.innerPad(), 0, ChallengeKey.BLOCK);
            sha.update(message, 0, length);
            sha.digest(inner, 0, MAC_BYTES);
            sha.update(key.outerPad(), 0, ChallengeKey.BLOCK);
            sha.update(inner, 0, MAC_BYTES);
            sha.digest(mac, 0, MAC_BYTES);
            return mac;
        } catch (java.security.DigestException e) {
            throw new IllegalStateException("a 32-byte array holds a SHA-256 digest", e);
        }
    }

    /** SHA-256 of the gathered message (no key), for checking a proof of work; reused array. */
    byte[] sha256() {
        try {
            sha.reset();
            sha.update(message, 0, length);
            sha.digest(mac, 0, MAC_BYTES);
            return mac;
        } catch (java.security.DigestException e) {
            throw new IllegalStateException("a 32-byte array holds a SHA-256 digest", e);
        }
    }

    /**
     * Compares {@code hexDigits} lower-case hex digits at {@code s[from]} with the first
     * {@code hexDigits / 2} bytes of {@code expected}, in time independent of where they differ.
     */
    static boolean hexEquals(CharSequence s, int from, byte[] expected, int hexDigits) {
        int diff = 0;
        for (int i = 0; i < hexDigits; i += 2) {
            int hi = hexValue(s.charAt(from + i));
            int lo = hexValue(s.charAt(from + i + 1));
            diff |= (hi | lo) & 0x100; // an invalid digit is a mismatch, checked without a branch
            diff |= (((hi << 4) | lo) & 0xFF) ^ (expected[i >> 1] & 0xFF);
        }
        return diff == 0;
    }

    /** 0-15 for a lower-case hex digit, 0x100 for anything else. */
    private static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return 0x100;
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** The lower-case hex digit of {@code nibble}'s low four bits. */
    static byte hexDigit(int nibble) {
        return HEX[nibble & 0xF];
    }
}
