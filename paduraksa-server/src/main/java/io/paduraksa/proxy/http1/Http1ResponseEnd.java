package io.paduraksa.proxy.http1;

/**
 * Marks the end of one final response: {@link Http1ResponseDecoder} emits {@link #INSTANCE} after
 * the last body {@link io.netty.buffer.ByteBuf} (and after {@link Http1ResponseTrailers}, if any),
 * and right after the head of a response without a body. Interim (1xx) heads and 101 get none. A
 * singleton: nothing to release, nothing allocated.
 */
public final class Http1ResponseEnd {
    public static final Http1ResponseEnd INSTANCE = new Http1ResponseEnd();

    private Http1ResponseEnd() {
    }

    @Override
    public String toString() {
        return "Http1ResponseEnd";
    }
}
