package io.paduraksa.proxy;

/**
 * The trailer fields that ended an upstream response (HTTP/1.1 chunked trailers or HTTP/2
 * trailing HEADERS), as the client side writes them. {@link #name} and {@link #value} may re-point
 * one view each. The forwarder calls {@link #release()} once the client side wrote them.
 */
public interface ResponseTrailers {

    int count();

    CharSequence name(int index);

    CharSequence value(int index);

    /** Gives back what holds the fields' bytes; idempotent. */
    void release();
}
