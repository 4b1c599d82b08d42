package io.paduraksa.server.connection;

import io.paduraksa.net.IpParser;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Socket addresses to the two longs the core uses: the high and low 64 bits of an IPv6 address, with
 * IPv4 mapped as {@code ::ffff:a.b.c.d} (high = 0, low = {@link IpParser#MAPPED_IPV4_PREFIX} | v4), the
 * shape {@link IpParser} parses text into and {@link io.paduraksa.gate.ClientInfo} holds; for text use
 * {@link IpParser#format}.
 *
 * <p>Runs once per connection. Reads {@link InetAddress#getAddress()} (one small array copy), never
 * a host name, so no DNS lookup can happen.
 */
public final class ClientAddresses {
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
            out[LOW] = IpParser.MAPPED_IPV4_PREFIX | (readInt(address, 0) & 0xFFFF_FFFFL);
        } else if (address.length == 16) {
            out[HIGH] = readLong(address, 0);
            out[LOW] = readLong(address, 8);
        } else {
            throw badLength(address.length);
        }
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
