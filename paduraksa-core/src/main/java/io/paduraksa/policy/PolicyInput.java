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

    /*
     * Added for the rate-limit and request-rule policies. Defaults keep other implementations
     * compiling; they answer "unknown": no host or route, no target, no query.
     */

    /** Position of the matched host in the file ({@code hosts[i]}), or -1 when none matched. */
    default int hostIndex() {
        return -1;
    }

    /** Position of the matched route in its host ({@code routes[j]}), or -1 when none matched. */
    default int routeIndex() {
        return -1;
    }

    /** The request target as sent ({@code /path?query}), or null; the query is {@code [queryStart(), queryEnd())} of it. */
    default CharSequence target() {
        return null;
    }

    /** Start of the query in {@link #target()} (after {@code ?}), or -1 without a query. */
    default int queryStart() {
        return -1;
    }

    /** End of the query in {@link #target()}, or -1 without a query. */
    default int queryEnd() {
        return -1;
    }

    /*
     * Added for the challenge and country policies: facts of the connection (ClientInfo).
     */

    /**
     * The {@code Host} header (HTTP/1.1) or {@code :authority} (HTTP/2) as sent, or null when absent
     * (added for the challenge's {@code bind_host}). Read it before asking for another header.
     */
    default CharSequence authority() {
        return null;
    }

    /** True when the connection came in over TLS on our listener (a challenge cookie is then {@code Secure}). */
    default boolean isTls() {
        return false;
    }

    /** True when the direct peer is a trusted proxy ({@code client_ip.trusted_proxies}). */
    default boolean isPeerTrustedProxy() {
        return false;
    }

    /**
     * The peer address's country index (see {@code io.paduraksa.net.CountryCodes}) looked up once per
     * connection, 0 when unknown; not looked up (0) when the peer is a trusted proxy.
     */
    default int peerCountry() {
        return 0;
    }

    /*
     * Added for forward-auth: a policy's decision may add fields to the upstream request.
     */

    /**
     * Fields to add to the upstream request if the request is forwarded (the last call wins); the
     * object is shared and must stay immutable. Implementations that forward nothing ignore it.
     */
    default void upstreamFields(UpstreamFields fields) {
    }

    /*
     * Added for the RateLimit-* response fields.
     */

    /**
     * A rate-limit policy with {@code headers: true} checked the request: its burst, the requests
     * the key may still send and the whole seconds until its bucket is full. With several such
     * policies the one with the least {@code remaining} is reported. Implementations that write no
     * response ignore it. Per request; must not allocate.
     */
    default void rateLimit(int limit, int remaining, int resetSeconds) {
    }

    /*
     * Added for the attacks policy's body phase.
     */

    /**
     * What a policy matched, for the request's access-log line (the {@code attacks} policy's rule
     * ids, parts and escaped excerpts); set only on a match (it may allocate then), the last call
     * wins. Implementations that log nothing ignore it.
     */
    default void matches(CharSequence matches) {
    }

    /** Whether a request body follows the head (see {@code RequestView.hasBody}). */
    default boolean hasBody() {
        return false;
    }

    /*
     * Added for the attacks policy's inspect.all_headers.
     */

    /**
     * Number of header field lines of the request, in the order sent; pseudo-header fields are not
     * among them. 0 where the implementation cannot list them (then no field is listed).
     */
    default int headerCount() {
        return 0;
    }

    /**
     * The name of field line {@code index} (0 to {@link #headerCount()} - 1) as sent (HTTP/2 and
     * HTTP/3 names are lower case). A view that the next {@code headerName} call may re-point.
     */
    default CharSequence headerName(int index) {
        throw new IndexOutOfBoundsException(index);
    }

    /** The value of field line {@code index}; a view that the next {@code headerValue} call may re-point. */
    default CharSequence headerValue(int index) {
        throw new IndexOutOfBoundsException(index);
    }
}
