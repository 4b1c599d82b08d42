package io.paduraksa.server.connection;

import io.netty.buffer.ByteBuf;

/**
 * Matches a connection's first bytes against the PROXY protocol signatures ({@code PROXY} for v1, the
 * 12-byte binary prefix for v2), across as many reads as they take to arrive, without buffering: it
 * remembers only how many bytes it has seen and which signatures are still possible. One per connection.
 */
final class SignatureMatcher {
    /** The bytes so far cannot start a signature. */
    static final int NOT_A_SIGNATURE = 0;
    /** The bytes so far start a signature; more are needed. */
    static final int NEED_MORE = 1;
    /** A whole signature has been seen. */
    static final int SIGNATURE_FOUND = 2;

    private static final byte[] V1 = {'P', 'R', 'O', 'X', 'Y'};
    private static final byte[] V2 = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    /** Length of the longer signature: no more bytes than this are ever needed to decide. */
    static final int LONGEST = V2.length;

    private int seen;
    private boolean v1 = true;
    private boolean v2 = true;

    /** Looks at {@code in}'s readable bytes (without consuming them) after those offered before. */
    int offer(ByteBuf in) {
        if (!v1 && !v2) {
            return NOT_A_SIGNATURE;
        }
        if (v1 && seen == V1.length || v2 && seen == V2.length) {
            return SIGNATURE_FOUND;
        }
        int start = in.readerIndex();
        int end = in.writerIndex();
        for (int i = start; i < end; i++) {
            byte b = in.getByte(i);
            v1 = v1 && b == V1[seen];
            v2 = v2 && b == V2[seen];
            seen++;
            if (v1 && seen == V1.length || v2 && seen == V2.length) {
                return SIGNATURE_FOUND;
            }
            if (!v1 && !v2) {
                return NOT_A_SIGNATURE;
            }
        }
        return NEED_MORE;
    }
}
