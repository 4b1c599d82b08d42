package io.paduraksa.server.connection;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Socket addresses to the two longs the core uses: the high and low 64 bits of an IPv6 address, with
 * IPv4 mapped as {@code ::ffff:a.b.c.d} (high = 0, low = {@code 0x0000_FFFF_0000_0000 | v4}), the same
 * shape as {@link io.paduraksa.gate.ClientInfo}.
 *
 * <p>Runs once per connection. Reads {@link InetAddress#getAddress()} (one small array copy), never
 * a host name, so no DNS lookup can happen.
 */
public final class ClientAddresses {
    /** The low word's prefix of an IPv4-mapped IPv6 address ({@code ::ffff:0:0/96}). */
    public static final long IPV4_MAPPED_PREFIX = 0x0000_FFFF_0000_0000L;
    /** Index of the high 64 bits in the {@code out} arrays. */
    public static final int HIGH = 0;
    /** Index of the low 64 bits in the {@code out} arrays. */
    public static final int LOW = 1;

    private ClientAddresses() {
    }

    /**
     * Writes the address of {@code address} into {@code out[HIGH]} and {@code out[LOW]}.
     *
     * @return false (and {@code out} untouched) when it is not an IP socket address, e.g. a Unix socket
     */
    public static boolean toLongs(SocketAddress address, long[] out) {
        if (!(address instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return false;
        }
        toLongs(inet.getAddress(), out);
        return true;
    }

    /** Writes {@code address} into {@code out[HIGH]} and {@code out[LOW]}. */
    public static void toLongs(InetAddress address, long[] out) {
        // getAddress() copies 4 or 16 bytes; getHostName() would be a reverse DNS lookup.
        toLongs(address.getAddress(), out);
    }

    /**
     * Writes a 4-byte (IPv4) or 16-byte (IPv6) network-order address into {@code out}.
     *
     * @throws IllegalArgumentException for any other length
     */
    public static void toLongs(byte[] address, long[] out) {
        if (address.length == 4) {
            out[HIGH] = 0;
            out[LOW] = IPV4_MAPPED_PREFIX | (readInt(address, 0) & 0xFFFF_FFFFL);
        } else if (address.length == 16) {
            out[HIGH] = readLong(address, 0);
            out[LOW] = readLong(address, 8);
        } else {
            throw badLength(address.length);
        }
    }

    /** True when {@code high}/{@code low} is an IPv4 address mapped into {@code ::ffff:0:0/96}. */
    public static boolean isIpv4Mapped(long high, long low) {
        return high == 0 && (low & 0xFFFF_FFFF_0000_0000L) == IPV4_MAPPED_PREFIX;
    }

    /** The address in its usual text form ({@code 192.0.2.1}, {@code 2001:db8::1}); for logs only. */
    public static String toString(long high, long low) {
        if (isIpv4Mapped(high, low)) {
            return ((low >>> 24) & 0xFF) + "." + ((low >>> 16) & 0xFF) + "." + ((low >>> 8) & 0xFF) + "."
                    + (low & 0xFF);
        }
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (high >>> (56 - 8 * i));
            b[i + 8] = (byte) (low >>> (56 - 8 * i));
        }
        return io.netty.util.NetUtil.bytesToIpAddress(b);
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    private static long readLong(byte[] b, int at) {
        return (readInt(b, at) & 0xFFFF_FFFFL) << 32 | (readInt(b, at + 4) & 0xFFFF_FFFFL);
    }

    private static IllegalArgumentException badLength(int length) {
        return new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + length);
    }
}
