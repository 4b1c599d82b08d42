package io.paduraksa.http1;

import io.netty.buffer.ByteBuf;

/**
 * Copies received field lines into a head being written, a run of lines at a time: lines offered in
 * order that follow one another in their buffer, each ended by CRLF, go out in one copy when the
 * first line that does not continue the run comes, or at {@link #flush}. Each line is written as its
 * bytes from the name to the end of the value, then CRLF, exactly as one copy per line would write
 * it (a line ended by a bare LF, or with whitespace after its value, ends the run). The offered
 * buffers must not change until the run is flushed. Event-loop confined; allocates nothing.
 */
public final class Http1LineRun {
    private static final int CRLF = ('\r' << 8) | '\n';

    private ByteBuf src;
    private int start;
    private int end;

    /** Forgets a run left by a head whose writing stopped (an exception), without copying it. */
    public void reset() {
        src = null;
    }

    /** Adds the line {@code [lineStart, lineEnd)} of {@code in} (name to the end of the value), copying the run before it to {@code out} when it does not continue it. */
    public void add(ByteBuf out, ByteBuf in, int lineStart, int lineEnd) {
        if (in == src && lineStart == end + 2 && in.getShort(end) == CRLF) {
            end = lineEnd;
            return;
        }
        flush(out);
        src = in;
        start = lineStart;
        end = lineEnd;
    }

    /** Copies the lines added and not yet copied, each ended by CRLF. */
    public void flush(ByteBuf out) {
        if (src != null) {
            out.writeBytes(src, start, end - start);
            out.writeShort(CRLF);
            src = null;
        }
    }
}
