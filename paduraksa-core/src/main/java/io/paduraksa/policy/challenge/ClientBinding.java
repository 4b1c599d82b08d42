package io.paduraksa.policy.challenge;

/**
 * What a cookie or challenge is bound to: the whole client address ({@code bind: ip}) or its
 * network ({@code bind: prefix}, by default /24 for IPv4 and /64 for IPv6, so that a visitor whose
 * address changes within its network keeps its clearance). Immutable.
 *
 * @param v4Bits leading bits of an IPv4 address that count (1-32)
 * @param v6Bits leading bits of an IPv6 address that count (1-128)
 */
public record ClientBinding(int v4Bits, int v6Bits) {
    public static final ClientBinding IP = new ClientBinding(32, 128);
    public static final ClientBinding PREFIX = new ClientBinding(24, 64);

    public ClientBinding {
        if (v4Bits < 1 || v4Bits > 32 || v6Bits < 1 || v6Bits > 128) {
            throw new IllegalArgumentException("prefix lengths " + v4Bits + "/" + v6Bits + " (expected 1-32 for IPv4 and 1-128 for IPv6)");
        }
    }

    /** Bits of the 128-bit form that count; an IPv4 address is stored mapped ({@code ::ffff:a.b.c.d}). */
    int bits(long high, long low) {
        return high == 0 && (low >>> 32) == 0xFFFFL ? 96 + v4Bits : v6Bits;
    }
}
