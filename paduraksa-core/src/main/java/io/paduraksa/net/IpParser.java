package io.paduraksa.net;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.text.AsciiText;
import java.util.Arrays;

/**
 * Parses IP address text into 128 bits held in two longs, in place and without allocating.
 *
 * <p>Runs per request (a trusted proxy's {@code CF-Connecting-IP}, an IPv6 {@code Host} literal)
 * and allocates nothing. IPv4 is stored IPv4-mapped ({@code ::ffff:a.b.c.d}, RFC 4291 section
 * 2.5.5.2), so one 128-bit space holds both families.
 *
 * <p>Accepted: a dotted quad of exactly four decimal parts 0-255 without leading zeros; IPv6 text
 * (RFC 4291 section 2.2) with groups of 1-4 hex digits in any case, at most one {@code ::} (which
 * may stand for a single zero group, as RFC 4291 allows) and an optional dotted-quad tail in the
 * last 32 bits only. The deprecated IPv4-compatible form {@code ::a.b.c.d} stays {@code ::a.b.c.d}
 * (not mapped), as in the JDK.
 *
 * <p>Rejected, where the JDK is more lenient: leading zeros in a dotted-quad part ({@code 010}
 * means 8 to inet_aton but 10 to others: ambiguous, so refused), dotted forms with fewer than four
 * parts, and hex groups of more than four digits such as {@code 00001}. Also rejected: zone ids,
 * brackets, ports, whitespace, non-ASCII and empty input. Callers strip brackets and ports first.
 */
public final class IpParser {
    /** The low 64 bits of {@code ::ffff:0.0.0.0}; OR an IPv4 address into it to map it. */
    public static final long MAPPED_IPV4_PREFIX = 0x0000_FFFF_0000_0000L;

    /**
     * Longest text that can be an address: six groups of four hex digits and a dotted-quad tail
     * ({@code ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255}). Longer text is refused unread.
     */
    public static final int MAX_PARSE_LENGTH = 45;

    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[MAX_PARSE_LENGTH];
        }
    };
    private static final long MAPPED_IPV4_MASK = 0xFFFF_FFFF_0000_0000L;
    /** The value of a hex digit for every byte value, -1 for the rest, so a byte indexes it without a range check. */
    private static final byte[] HEX_BYTES = hexBytes();

    private IpParser() {
    }

    /**
     * Parses {@code text[from, to)} as an IPv4 or IPv6 address into {@code out[0]} (high 64 bits)
     * and {@code out[1]} (low 64 bits). Returns false, and leaves {@code out} untouched, when the
     * range is not an address (including {@code from >= to}).
     */
    public static boolean parse(CharSequence text, int from, int to, long[] out) {
        if (text instanceof AsciiString a) {
            int base = a.arrayOffset();
            return parse(a.array(), base + from, base + to, out);
        }
        int n = to - from;
        if (n <= 0 || n > MAX_PARSE_LENGTH) {
            return false;
        }
        byte[] bytes = SCRATCH.get();
        if (text instanceof AsciiText t) {
            t.copyTo(from, bytes, 0, n);
        } else {
            for (int i = 0; i < n; i++) {
                char c = text.charAt(from + i);
                bytes[i] = c < 128 ? (byte) c : (byte) 0xFF; // 0xFF is no digit, dot or colon: refused as any non-ASCII
            }
        }
        return parse(bytes, 0, n, out);
    }

    /**
     * The parser itself, over bytes {@code text[from, to)}, one char per byte. An {@link AsciiString}
     * (the HTTP/3 view's and the benchmarks' header values) is read here from its array; an
     * {@link AsciiText} (the HTTP/1.1 and HTTP/2 views) is copied out in bulk, any other text char by
     * char, into a per-thread scratch of {@link #MAX_PARSE_LENGTH} bytes ({@code IpParserDifferentialTest}
     * holds the ways in together).
     */
    public static boolean parse(byte[] text, int from, int to, long[] out) {
        long v4 = mayBeIpv4(text, from, to) ? ipv4(text, from, to) : -1;
        if (v4 >= 0) {
            out[0] = 0;
            out[1] = MAPPED_IPV4_PREFIX | v4;
            return true;
        }
        return ipv6(text, from, to, out);
    }

    /**
     * Whether {@code text[from, to)} can be a dotted quad at all: seven bytes or more, and a dot after the
     * first part's one to three digits. An IPv6 address (its first group ends in a colon) skips the IPv4 attempt.
     */
    private static boolean mayBeIpv4(byte[] text, int from, int to) {
        return to - from >= 7 && (text[from + 1] == '.' | text[from + 2] == '.' | text[from + 3] == '.');
    }

    /** {@link #parse(CharSequence, int, int, long[])} over the whole of {@code text}. */
    public static boolean parse(CharSequence text, long[] out) {
        return parse(text, 0, text.length(), out);
    }

    /** True for {@code ::ffff:0:0/96}, the IPv4-mapped range that dotted quads parse into. */
    public static boolean isMappedIpv4(long high, long low) {
        return high == 0 && (low & MAPPED_IPV4_MASK) == MAPPED_IPV4_PREFIX;
    }

    /** Longest canonical text: eight groups of four hex digits and seven colons. */
    public static final int MAX_TEXT_LENGTH = 39;

    /**
     * Canonical text, off the hot path: a dotted quad for an IPv4-mapped address, otherwise RFC 5952
     * (lower case, no leading zeros, the longest run of two or more zero groups shortened to
     * {@code ::}, the first such run on a tie). Other embedded-IPv4 forms are written in hex.
     */
    public static String format(long high, long low) {
        byte[] text = new byte[MAX_TEXT_LENGTH];
        return new String(text, 0, formatTo(high, low, text), java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * The canonical text of {@link #format} as ASCII bytes into {@code out} (at least
     * {@link #MAX_TEXT_LENGTH} long) from index 0; returns the length. Allocates nothing: the
     * forwarder writes the client IP into every upstream request with it.
     */
    public static int formatTo(long high, long low, byte[] out) {
        if (isMappedIpv4(high, low)) {
            return formatIpv4To((int) low, out);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; i++) {
            int length = 0;
            while (i + length < 8 && group(high, low, i + length) == 0) {
                length++;
            }
            if (length > bestLength) {
                bestStart = i;
                bestLength = length;
            }
            i += length;
        }
        int n = 0;
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out[n++] = ':';
                out[n++] = ':';
                i += bestLength - 1;
                continue;
            }
            if (n > 0 && out[n - 1] != ':') {
                out[n++] = ':';
            }
            n = hexTo(group(high, low, i), out, n);
        }
        return n;
    }

    private static int group(long high, long low, int i) {
        return (int) ((i < 4 ? high : low) >>> (48 - 16 * (i & 3))) & 0xFFFF;
    }

    private static int hexTo(int value, byte[] out, int at) {
        int n = at;
        boolean started = false;
        for (int shift = 12; shift >= 0; shift -= 4) {
            int d = (value >>> shift) & 0xF;
            if (d != 0 || started || shift == 0) {
                out[n++] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
                started = true;
            }
        }
        return n;
    }

    private static int formatIpv4To(int ipv4, byte[] out) {
        int n = 0;
        for (int shift = 24; shift >= 0; shift -= 8) {
            if (shift != 24) {
                out[n++] = '.';
            }
            int octet = (ipv4 >>> shift) & 0xFF;
            if (octet >= 100) {
                out[n++] = (byte) ('0' + octet / 100);
            }
            if (octet >= 10) {
                out[n++] = (byte) ('0' + octet / 10 % 10);
            }
            out[n++] = (byte) ('0' + octet % 10);
        }
        return n;
    }

    /**
     * The dotted quad in {@code text[from, to)} as an unsigned 32-bit value, or -1. The up to three
     * digits of a part are read without an inner loop: C2 guards inner loops with predicates built
     * from the trip counts it has seen, and a part of a new length then deoptimises the caller.
     */
    private static long ipv4(byte[] text, int from, int to) {
        long value = 0;
        int i = from;
        for (int part = 0; part < 4; part++) {
            if (part > 0) {
                if (i >= to || text[i] != '.') {
                    return -1;
                }
                i++;
            }
            int octet = digitAt(text, i, to);
            if (octet < 0) {
                return -1;
            }
            int d = digitAt(text, ++i, to);
            if (d >= 0) {
                if (octet == 0) {
                    return -1; // a leading zero: octal to inet_aton, decimal to others
                }
                octet = octet * 10 + d;
                d = digitAt(text, ++i, to);
                if (d >= 0) {
                    octet = octet * 10 + d;
                    i++;
                    if (octet > 255) {
                        return -1;
                    }
                }
            }
            value = (value << 8) | octet;
        }
        return i == to ? value : -1;
    }

    /**
     * IPv6 text. Groups are shifted into (hi, lo) as they come; at {@code ::} the groups so far
     * are set aside as the head, and at the end the head is shifted left past the zeros the
     * {@code ::} stands for and joined with the groups that followed it.
     */
    private static boolean ipv6(byte[] text, int from, int to, long[] out) {
        if (to - from < 2) {
            return false;
        }
        long hi = 0;
        long lo = 0;
        long headHi = 0;
        long headLo = 0;
        int groups = 0;
        int gap = -1;
        int i = from;
        if (text[i] == ':') {
            if (text[i + 1] != ':') {
                return false;
            }
            gap = 0;
            i += 2;
        }
        while (i < to) {
            int start = i;
            int group = 0;
            int h = hexAt(text, i, to);
            if (h >= 0) { // one to four hex digits, unrolled for the reason given at ipv4
                group = h;
                h = hexAt(text, ++i, to);
                if (h >= 0) {
                    group = (group << 4) | h;
                    h = hexAt(text, ++i, to);
                    if (h >= 0) {
                        group = (group << 4) | h;
                        h = hexAt(text, ++i, to);
                        if (h >= 0) {
                            group = (group << 4) | h;
                            if (hexAt(text, ++i, to) >= 0) {
                                return false; // five hex digits: neither a group nor a dotted-quad part
                            }
                        }
                    }
                }
            }
            if (i < to && text[i] == '.') {
                // A dotted-quad tail: it must run to the end, so it can only fill the last 32 bits.
                long v4 = groups > 6 ? -1 : ipv4(text, start, to);
                if (v4 < 0) {
                    return false;
                }
                hi = (hi << 32) | (lo >>> 32);
                lo = (lo << 32) | v4;
                groups += 2;
                break;
            }
            if (i == start || groups == 8) {
                return false;
            }
            hi = (hi << 16) | (lo >>> 48);
            lo = (lo << 16) | group;
            groups++;
            if (i == to) {
                break;
            }
            if (text[i] != ':' || ++i == to) {
                return false;
            }
            if (text[i] == ':') {
                if (gap >= 0) {
                    return false;
                }
                gap = groups;
                headHi = hi;
                headLo = lo;
                hi = 0;
                lo = 0;
                i++;
            }
        }
        if (gap < 0) {
            if (groups != 8) {
                return false;
            }
            out[0] = hi;
            out[1] = lo;
            return true;
        }
        if (groups > 7) {
            return false;
        }
        int shift = 16 * (8 - gap);
        if (gap == 0) {
            headHi = 0;
            headLo = 0;
        } else if (shift >= 64) {
            headHi = headLo << (shift - 64);
            headLo = 0;
        } else {
            headHi = (headHi << shift) | (headLo >>> (64 - shift));
            headLo <<= shift;
        }
        out[0] = headHi | hi;
        out[1] = headLo | lo;
        return true;
    }

    private static int digitAt(byte[] text, int i, int to) {
        if (i >= to) {
            return -1;
        }
        int digit = text[i] - '0';
        return digit >= 0 && digit <= 9 ? digit : -1;
    }

    private static int hexAt(byte[] text, int i, int to) {
        return i >= to ? -1 : HEX_BYTES[text[i] & 0xFF];
    }

    private static byte[] hexBytes() {
        byte[] values = new byte[256];
        Arrays.fill(values, (byte) -1);
        for (int i = 0; i < 10; i++) {
            values['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            values['a' + i] = (byte) (10 + i);
            values['A' + i] = (byte) (10 + i);
        }
        return values;
    }
}
