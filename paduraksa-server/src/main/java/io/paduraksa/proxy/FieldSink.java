package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/**
 * Where the fields of an upstream request head go, in the upstream's protocol: HTTP/1.1 lines in the
 * head's buffer ({@code proxy.http1.UpstreamRequestHead}) or an HTTP/2 header block
 * ({@code proxy.http2.Http2RequestBlock}, HPACK-encoded as written). The upstream side owns the writing; the client side
 * only offers its fields ({@link ForwardExchange#offerRequestFields}), each in the form it holds:
 * <ul>
 * <li>{@link #line}: a field line of an HTTP/1.1 client's head, by positions in its bytes. An
 * HTTP/1.1 upstream copies the line's bytes as they came (the raw-line fast path, no view, no
 * String); an HTTP/2 one takes the name lower-cased (RFC 9113 8.2.1) and the value.</li>
 * <li>{@link #field}: a field of an HTTP/2 client as its HPACK decoder made it (lower-case name,
 * value), immutable, so a header block may keep both.</li>
 * </ul>
 * Fields the forwarder computes ({@link ForwardingFields}) come as {@link #name}, one or more value
 * parts, then {@link #end}. Per request on the event loop; no sink allocates per client field once
 * warm (Http1ToHttp2FieldsAllocationTest, UpstreamRequestHeadAllocationTest).
 */
public interface FieldSink {

    /**
     * A client's HTTP/1.1 field line in {@code head}: the name is {@code [nameStart, nameEnd)}, the
     * value (OWS trimmed) {@code [valueStart, valueEnd)}. The bytes of {@code head} (the request's own)
     * stay as they are while the upstream request head is written, so a sink may copy lines that
     * follow one another in one go once it knows where the run ends.
     */
    void line(ByteBuf head, int nameStart, int nameEnd, int valueStart, int valueEnd);

    /** A client's HTTP/2 field as decoded: lower-case {@code name}, {@code value}; both immutable. */
    void field(CharSequence name, CharSequence value);

    /** Starts a computed field; {@code http1Name} as written on HTTP/1.1, {@code lowerName} its lower-case form. */
    void name(AsciiString http1Name, AsciiString lowerName);

    void value(CharSequence text);

    void value(byte[] bytes, int from, int length);

    void end();
}
