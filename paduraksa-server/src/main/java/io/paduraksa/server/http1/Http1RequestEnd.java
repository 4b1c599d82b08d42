package io.paduraksa.server.http1;

/**
 * Marks the end of a request body: {@link Http1RequestDecoder} emits {@link #INSTANCE} after the last
 * body {@link io.netty.buffer.ByteBuf} of a request whose head said {@link Http1RequestHead#hasBody()}.
 * A request without a body gets no marker (the head is the whole request), which saves one pipeline
 * event per GET. A singleton: nothing to release, nothing allocated.
 */
public final class Http1RequestEnd {
    public static final Http1RequestEnd INSTANCE = new Http1RequestEnd();

    private Http1RequestEnd() {
    }

    @Override
    public String toString() {
        return "Http1RequestEnd";
    }
}
