package io.paduraksa.respond;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The HTTP {@code Date} value (IMF-fixdate, RFC 9110 section 5.6.7), formatted once a second and
 * shared by every event loop. Readers copy 29 bytes from an immutable array behind one volatile
 * field: 0 B per request. {@link #refresh(long)} runs once a second off the event loops (the
 * server schedules it); it allocates the next array there.
 */
public final class DateHeader {
    /** Length of an IMF-fixdate: {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
    public static final int LENGTH = 29;

    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private volatile Value value;

    public DateHeader() {
        refresh(System.currentTimeMillis());
    }

    /** Reformats when the second changed; cheap to call more often than once a second. */
    public void refresh(long epochMillis) {
        long second = Math.floorDiv(epochMillis, 1000L);
        Value current = value;
        if (current == null || current.second != second) {
            byte[] bytes = format(second);
            value = new Value(second, bytes, new AsciiString(bytes, false));
        }
    }

    /** Appends the 29 date bytes to {@code out}. */
    public void writeTo(ByteBuf out) {
        out.writeBytes(value.bytes);
    }

    /** The current value as an {@link AsciiString} (for HTTP/2 header blocks); 0 B per call. */
    public AsciiString ascii() {
        return value.ascii;
    }

    /** The current value as text (for tests and tools, not the request path). */
    public String text() {
        return new String(value.bytes, StandardCharsets.US_ASCII);
    }

    static byte[] format(long epochSecond) {
        return IMF_FIXDATE.format(Instant.ofEpochSecond(epochSecond)).getBytes(StandardCharsets.US_ASCII);
    }

    private record Value(long second, byte[] bytes, AsciiString ascii) {
    }
}
