package io.paduraksa.respond;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Non-negative numbers written as ASCII digits straight into a buffer: Content-Length values,
 * chunk sizes, RateLimit fields. Per call on the event loop; allocates nothing (no String, no
 * {@code Integer.toHexString}).
 */
public final class AsciiNumbers {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private AsciiNumbers() {
    }

    /** {@code value} (0 or more) in decimal, no leading zeros. */
    public static void writeDecimal(ByteBuf out, long value) {
        long divisor = 1;
        while (divisor <= value / 10) {
            divisor *= 10;
        }
        for (; divisor > 0; divisor /= 10) {
            out.writeByte((int) ('0' + value / divisor % 10));
        }
    }

    /** {@code value} (0 or more) in lower-case hexadecimal, no leading zeros (a chunk size, RFC 9112 7.1). */
    public static void writeHex(ByteBuf out, long value) {
        int shift = 60;
        while (shift > 0 && (value >>> shift) == 0) {
            shift -= 4;
        }
        for (; shift >= 0; shift -= 4) {
            int d = (int) (value >>> shift) & 0xF;
            out.writeByte(d < 10 ? '0' + d : 'a' + d - 10);
        }
    }

    /**
     * {@code value} as exactly 16 lower-case hexadecimal digits (a request id), written as two
     * 8-byte stores instead of 16 one-byte writes with their bounds checks.
     */
    public static void writeHex16(ByteBuf out, long value) {
        out.writeLong(hex8((int) (value >>> 32)));
        out.writeLong(hex8((int) value));
    }

    /**
     * {@code value} as exactly 16 lower-case hexadecimal digits into {@code out} at {@code at} (a
     * request id, a trace id's half), as two 8-byte stores. Throws when the 16 bytes do not fit.
     */
    public static void writeHex16(byte[] out, int at, long value) {
        Objects.checkFromIndexSize(at, 16, out.length);
        LONGS.set(out, at, hex8((int) (value >>> 32)));
        LONGS.set(out, at + 8, hex8((int) value));
    }

    /**
     * The 8 hex digits of {@code v}, the first in the most significant byte (as {@link ByteBuf#writeLong}
     * writes), without a loop or a branch: the nibbles are spread one to a byte, then each byte n
     * becomes '0' + n, plus 39 more ('a' - '0' - 10) when n is 10 or more (n + 6 carries into bit 4).
     */
    private static long hex8(int v) {
        long x = v & 0xFFFF_FFFFL;
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFFL;
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FFL;
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0FL;
        long letters = (x + 0x0606_0606_0606_0606L) >>> 4 & 0x0101_0101_0101_0101L;
        return x + 0x3030_3030_3030_3030L + letters * 39;
    }
}
