package io.paduraksa.policy.challenge;

import io.netty.buffer.ByteBuf;
import io.paduraksa.respond.PrecomputedResponse;

/**
 * The challenge a page carries and the proof that solves it. Token:
 * {@code <key id>.<issued, unix seconds, 10 digits>.<MAC>}, the MAC being 128 bits of
 * HMAC-SHA-256 in hex over {@code "P"}, the text before it, the issuing policy's scope
 * ({@link ChallengeKey#scope}: a proof solved for one policy's difficulty is refused by another)
 * and the client binding: the server
 * keeps no state, yet a token is good only for the address (or network) it was issued to, and
 * only for {@code solveWithin} seconds. Proof: {@code <token>.<nonce>} with a decimal nonce such
 * that SHA-256 of that text starts with {@code difficulty} zero bits.
 *
 * <p>As the page's {@link PrecomputedResponse.BodySlot}, {@link #write} runs on the event loop for
 * every challenge page: 0 B, fixed length. {@link #verifyProof} runs on the rare submit path.
 */
public final class ChallengeToken implements PrecomputedResponse.BodySlot {
    private static final int ISSUED_DIGITS = 10;
    private static final int MAC_HEX = 32;
    private static final int MAX_NONCE_DIGITS = 16;
    /** A token issued by a box whose clock runs slightly ahead is still accepted. */
    private static final long SKEW_SECONDS = 60;

    private final ChallengeKey[] keys;
    private final ClientBinding binding;
    private final int difficulty;
    private final long solveWithinSeconds;
    private final Clock clock;
    private final byte[] scope;
    private final SpentProofs spent = new SpentProofs();

    /** Seconds since the epoch; a field so that tests can move time. */
    public interface Clock {
        long nowSeconds();
    }

    /** The wall clock: {@code System.currentTimeMillis() / 1000}, 0 B. */
    public static final Clock SYSTEM = () -> System.currentTimeMillis() / 1000;

    /** @param policy the issuing policy's name: its tokens are solved and redeemed only at a policy of that name */
    public ChallengeToken(ChallengeKey[] keys, ClientBinding binding, int difficulty, long solveWithinSeconds, Clock clock,
            String policy) {
        if (keys.length == 0 || difficulty < 1 || difficulty > 32 || solveWithinSeconds <= 0) {
            throw new IllegalArgumentException("a challenge needs a key, a difficulty from 1 to 32 and a positive time to solve");
        }
        this.keys = keys.clone();
        this.binding = binding;
        this.difficulty = difficulty;
        this.solveWithinSeconds = solveWithinSeconds;
        this.clock = clock;
        this.scope = ChallengeKey.scope(policy);
    }

    public int difficulty() {
        return difficulty;
    }

    @Override
    public int length() {
        return keys[0].id().length() + 1 + ISSUED_DIGITS + 1 + MAC_HEX;
    }

    /** Writes a fresh token for this client, signed with the first key. 0 B. */
    @Override
    public void write(ByteBuf out, long requestId, long clientIpHigh, long clientIpLow) {
        ChallengeKey key = keys[0];
        String id = key.id();
        long issued = clock.nowSeconds();
        ChallengeHmac hmac = ChallengeHmac.get();
        hmac.put((byte) 'P');
        hmac.put(id, 0, id.length());
        hmac.put((byte) '.');
        hmac.putDigits(issued, ISSUED_DIGITS);
        hmac.put(scope);
        hmac.putBinding(clientIpHigh, clientIpLow, binding.bits(clientIpHigh, clientIpLow));
        byte[] mac = hmac.mac(key);
        for (int i = 0; i < id.length(); i++) {
            out.writeByte(id.charAt(i));
        }
        out.writeByte('.');
        for (long div = 1_000_000_000L; div > 0; div /= 10) {
            out.writeByte('0' + (int) (issued / div % 10));
        }
        out.writeByte('.');
        for (int i = 0; i < MAC_HEX / 2; i++) {
            out.writeByte(ChallengeHmac.hexDigit(mac[i] >> 4));
            out.writeByte(ChallengeHmac.hexDigit(mac[i]));
        }
    }

    /** A token as {@link #write} makes it, as text (tests, tools). */
    public String issue(long clientIpHigh, long clientIpLow) {
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer(length());
        try {
            write(buf, 0, clientIpHigh, clientIpLow);
            return buf.toString(java.nio.charset.StandardCharsets.US_ASCII);
        } finally {
            buf.release();
        }
    }

    /**
     * Whether {@code s[from, to)} is {@code <token>.<nonce>} with a token issued to this client,
     * not older than the time to solve, and a nonce that meets the difficulty. 0 B, but it runs
     * only for submitted proofs.
     */
    public boolean verifyProof(CharSequence s, int from, int to, long clientIpHigh, long clientIpLow) {
        int nonceDot = lastIndexOf(s, '.', from, to);
        int macStart = nonceDot - MAC_HEX;
        int issuedStart = macStart - 1 - ISSUED_DIGITS;
        if (nonceDot < 0 || to - nonceDot - 1 < 1 || to - nonceDot - 1 > MAX_NONCE_DIGITS || issuedStart - 1 <= from
                || s.charAt(macStart - 1) != '.' || s.charAt(issuedStart - 1) != '.'
                || ClearanceCookie.parseSeconds(s, nonceDot + 1, to) < 0) {
            return false;
        }
        ChallengeKey key = ClearanceCookie.key(keys, s, from, issuedStart - 1);
        long issued = ClearanceCookie.parseSeconds(s, issuedStart, macStart - 1);
        long now = clock.nowSeconds();
        if (key == null || issued < 0 || issued > now + SKEW_SECONDS || now - issued > solveWithinSeconds) {
            return false;
        }
        ChallengeHmac hmac = ChallengeHmac.get();
        hmac.put((byte) 'P');
        hmac.put(s, from, macStart - 1);
        hmac.put(scope);
        hmac.putBinding(clientIpHigh, clientIpLow, binding.bits(clientIpHigh, clientIpLow));
        if (!ChallengeHmac.hexEquals(s, macStart, hmac.mac(key), MAC_HEX)) {
            return false;
        }
        ChallengeHmac work = ChallengeHmac.get();
        work.put(s, from, to);
        return leadingZeroBits(work.sha256()) >= difficulty;
    }

    /**
     * Whether {@code s[from, to)} is a valid proof ({@link #verifyProof}) that has not been redeemed
     * before at this policy while its token is accepted; a true answer records it, so the same
     * proof is refused next time ({@link SpentProofs}). 0 B; the rare submit path.
     */
    public boolean redeemProof(CharSequence s, int from, int to, long clientIpHigh, long clientIpLow) {
        if (!verifyProof(s, from, to, clientIpHigh, clientIpLow)) {
            return false;
        }
        int issuedStart = lastIndexOf(s, '.', from, to) - MAC_HEX - 1 - ISSUED_DIGITS;
        long issued = ClearanceCookie.parseSeconds(s, issuedStart, issuedStart + ISSUED_DIGITS);
        ChallengeHmac work = ChallengeHmac.get();
        work.put(s, from, to);
        byte[] digest = work.sha256();
        // verifyProof accepts while now - issued <= solveWithin: the entry counts until the second after.
        return spent.spend(longAt(digest, 0), longAt(digest, 8), issued + solveWithinSeconds + 1, clock.nowSeconds());
    }

    private static long longAt(byte[] b, int from) {
        long v = 0;
        for (int i = from; i < from + 8; i++) {
            v = v << 8 | (b[i] & 0xFF);
        }
        return v;
    }

    static int leadingZeroBits(byte[] digest) {
        int bits = 0;
        for (int i = 0; i < digest.length; i++) {
            int b = digest[i] & 0xFF;
            if (b != 0) {
                return bits + Integer.numberOfLeadingZeros(b) - 24;
            }
            bits += 8;
        }
        return bits;
    }

    private static int lastIndexOf(CharSequence s, char c, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }
}
