package io.paduraksa.policy;

import io.netty.util.AsciiString;

/**
 * What a policy may read about the request being decided. The gate's recycled request state
 * implements it; every value is valid only while the policy runs (the state is reused by the next
 * request on the connection or stream).
 */
public interface PolicyInput {

    /** High 64 bits of the client IP (IPv4 is stored mapped, {@code ::ffff:a.b.c.d}). */
    long clientIpHigh();

    /** Low 64 bits of the client IP. */
    long clientIpLow();

    /** The normalised path (no query), as the upstream will receive it; read {@code [0, pathLength())}. */
    byte[] path();

    int pathLength();

    /** The request method, as sent (methods are case-sensitive). */
    CharSequence method();

    /**
     * The first value of a request header, or null when absent. The returned sequence may be a
     * view that the next {@code header} call re-points: read it before asking for another header.
     */
    CharSequence header(AsciiString lowerCaseName);
}
