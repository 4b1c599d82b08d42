package io.paduraksa.proxy.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.http1.FieldPositions;

/**
 * The trailer fields of one chunked response (RFC 9112 section 7.1.2), kept so that the forwarder
 * can pass them on (gRPC status travels there and becomes HTTP/2 trailers). One instance per
 * {@link Http1ResponseDecoder}, emitted only when the trailer section has at least one field, just
 * before {@link Http1ResponseEnd}; nothing here allocates per response.
 *
 * <p>{@link #buffer()} is a retained slice holding exactly the trailer field lines and the final
 * CRLF; positions index into it. The consumer calls {@link #release()}; the decoder does not parse
 * the next trailer section while this one is held. Fields are validated like header fields (no
 * obs-fold, no CTL, names are tokens) and values are OWS-trimmed; which fields may be forwarded as
 * trailers (RFC 9110 section 6.5.1) is the consumer's decision. {@link #name} and {@link #value}
 * re-point one view each, valid until called again or released.
 */
public final class Http1ResponseTrailers implements ResponseTrailers {
    private static final int INITIAL_CAPACITY = 4;

    private final FieldPositions fields;
    private ByteBuf buffer;

    Http1ResponseTrailers(int maxCount) {
        this.fields = new FieldPositions(maxCount, INITIAL_CAPACITY);
    }

    public int count() {
        return fields.count();
    }

    public int nameStart(int index) {
        return fields.nameStart(index);
    }

    public int nameEnd(int index) {
        return fields.nameEnd(index);
    }

    public int valueStart(int index) {
        return fields.valueStart(index);
    }

    public int valueEnd(int index) {
        return fields.valueEnd(index);
    }

    /** The name of field {@code index} as sent, through this object's name view. */
    public CharSequence name(int index) {
        return fields.name(buffer, index);
    }

    /** The OWS-trimmed value of field {@code index}, through this object's value view. */
    public CharSequence value(int index) {
        return fields.value(buffer, index);
    }

    /** Whether field {@code index} is named {@code lowerCaseName}, ignoring ASCII case. */
    public boolean nameEquals(int index, AsciiString lowerCaseName) {
        return fields.nameEquals(buffer, index, lowerCaseName);
    }

    /** The trailer section's bytes (a retained slice); {@code null} once released. */
    public ByteBuf buffer() {
        return buffer;
    }

    /** Releases the bytes; idempotent. */
    public void release() {
        ByteBuf b = buffer;
        if (b != null) {
            buffer = null;
            b.release();
        }
    }

    public boolean isHeld() {
        return buffer != null;
    }

    /** For logs and tests only: allocates. */
    @Override
    public String toString() {
        if (buffer == null) {
            return "Http1ResponseTrailers(released)";
        }
        StringBuilder sb = new StringBuilder("Http1ResponseTrailers(");
        for (int i = 0, n = fields.count(); i < n; i++) {
            sb.append(i == 0 ? "" : ", ").append(name(i)).append(": ").append(value(i));
        }
        return sb.append(')').toString();
    }

    // ---- written by the decoder

    void reset() {
        fields.reset();
    }

    /** Adds a field's positions; false when the count limit is reached. */
    boolean add(int nameStart, int nameEnd, int valueStart, int valueEnd) {
        return fields.add(nameStart, nameEnd, valueStart, valueEnd);
    }

    void buffer(ByteBuf buffer) {
        this.buffer = buffer;
    }
}
