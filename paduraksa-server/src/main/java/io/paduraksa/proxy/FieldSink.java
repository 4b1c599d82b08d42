package io.paduraksa.proxy;

import io.netty.util.AsciiString;

/**
 * Where {@link ForwardingFields} puts the fields it computes: HTTP/1.1 lines in a buffer, or an
 * HTTP/2 header block. A field is {@link #name}, one or more value parts, then {@link #end}.
 */
public interface FieldSink {

    /** Starts a field; {@code http1Name} as written on HTTP/1.1, {@code lowerName} its lower-case form. */
    void name(AsciiString http1Name, AsciiString lowerName);

    void value(CharSequence text);

    void value(byte[] bytes, int from, int length);

    void end();
}
