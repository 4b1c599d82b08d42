package io.paduraksa.respond;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * The {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code RateLimit-Reset} response
 * fields (IETF draft "RateLimit header fields for HTTP", the three-field form of its drafts up to
 * -06). Limit is the reporting policy's burst (the most requests a key may send at once, the
 * quota Remaining counts down from); Remaining the requests the key may still send now; Reset the
 * whole seconds until its bucket is full again.
 *
 * <p>Per request: {@link #writeHttp1} formats the three numbers as digits into the output buffer,
 * 0 B; {@link #ascii} hands HTTP/2 writers a cached {@link AsciiString} for values below
 * {@value #CACHED} and allocates one above.
 */
public final class RateLimitFields {
    public static final AsciiString LIMIT = AsciiString.cached("ratelimit-limit");
    public static final AsciiString REMAINING = AsciiString.cached("ratelimit-remaining");
    public static final AsciiString RESET = AsciiString.cached("ratelimit-reset");

    private static final byte[] LIMIT_LINE = "RateLimit-Limit: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REMAINING_LINE = "RateLimit-Remaining: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESET_LINE = "RateLimit-Reset: ".getBytes(StandardCharsets.US_ASCII);
    private static final short CRLF = ('\r' << 8) | '\n';
    private static final int INT_DIGITS = 10;

    /** Most bytes {@link #writeHttp1} writes (three lines with ten-digit values). */
    public static final int MAX_HTTP1_LENGTH = LIMIT_LINE.length + REMAINING_LINE.length + RESET_LINE.length + 3 * (INT_DIGITS + 2);

    /** Values with a cached {@link AsciiString}: bursts and resets are mostly small. */
    static final int CACHED = 1024;
    private static final AsciiString[] SMALL = new AsciiString[CACHED];

    static {
        for (int i = 0; i < CACHED; i++) {
            SMALL[i] = AsciiString.cached(Integer.toString(i));
        }
    }

    private RateLimitFields() {
    }

    /** Writes the three fields as HTTP/1.1 lines, each ending in CRLF; non-negative values. 0 B. */
    public static void writeHttp1(ByteBuf out, int limit, int remaining, int resetSeconds) {
        line(out, LIMIT_LINE, limit);
        line(out, REMAINING_LINE, remaining);
        line(out, RESET_LINE, resetSeconds);
    }

    private static void line(ByteBuf out, byte[] name, int value) {
        out.writeBytes(name);
        AsciiNumbers.writeDecimal(out, value);
        out.writeShort(CRLF);
    }

    /** A non-negative value as an HTTP/2 field value: cached below {@value #CACHED}, else a new string. */
    public static AsciiString ascii(int value) {
        return value < CACHED ? SMALL[value] : AsciiString.of(Integer.toString(value));
    }

    /** True when {@code name} is one of the three fields (ASCII case folded), e.g. sent by an upstream. 0 B. */
    public static boolean isField(CharSequence name) {
        return LIMIT.contentEqualsIgnoreCase(name) || REMAINING.contentEqualsIgnoreCase(name) || RESET.contentEqualsIgnoreCase(name);
    }
}
