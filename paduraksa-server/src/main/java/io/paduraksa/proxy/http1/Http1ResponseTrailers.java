package io.paduraksa.proxy.http1;

import io.netty.buffer.ByteBuf;
import io.paduraksa.http1.Http1FieldSection;
import io.paduraksa.proxy.ResponseTrailers;

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
public final class Http1ResponseTrailers extends Http1FieldSection implements ResponseTrailers {
    private static final int INITIAL_CAPACITY = 4;

    Http1ResponseTrailers(int maxCount) {
        super(maxCount, INITIAL_CAPACITY);
    }

    @Override
    public int count() {
        return headerCount();
    }

    /** The name of field {@code index} as sent, through this object's name view. */
    @Override
    public CharSequence name(int index) {
        return headerName(index);
    }

    /** The OWS-trimmed value of field {@code index}, through this object's value view. */
    @Override
    public CharSequence value(int index) {
        return headerValue(index);
    }

    public int valueStart(int index) {
        return headerValueStart(index);
    }

    /** For logs and tests only: allocates. */
    @Override
    public String toString() {
        if (!isHeld()) {
            return "Http1ResponseTrailers(released)";
        }
        return appendFields(new StringBuilder("Http1ResponseTrailers("), "").append(')').toString();
    }

    // ---- written by the decoder

    void reset() {
        clearFields();
    }

    void buffer(ByteBuf buffer) {
        hold(buffer);
    }
}
