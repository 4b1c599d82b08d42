package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * What one {@link ForwardCall} writes its request to and reads its response from: a pooled HTTP/1.1
 * connection for the length of one request ({@link Http1UpstreamHandler}), or one stream of a
 * multiplexed HTTP/2 connection ({@link io.paduraksa.proxy.http2.Http2UpstreamStream}). A pool
 * hands it over with {@link ForwardCall#connected}; from {@link #begin} on it reports the response
 * to the call ({@code onResponseHead}, {@code onResponseBody}, {@code onTrailers},
 * {@code onResponseEnd}, failures and timeouts). Every method runs on the call's event loop.
 */
public interface UpstreamStream {

    /** Takes the stream for {@code call}; its response head is due within {@code headersTimeoutNanos}. */
    void begin(ForwardCall call, long headersTimeoutNanos);

    /**
     * Writes the request head: the normalised path and query, the authority (the client's when the
     * cluster preserves it, else {@code endpointAuthority}), the client's surviving fields and the
     * forwarding fields. {@code bodyLength}: 0 none, -1 streamed without a declared length.
     */
    void writeHead(RequestState state, ForwardExchange exchange, UpstreamCluster cluster, AsciiString endpointAuthority,
                   long bodyLength);

    /** Writes a part of the request body (ownership passes); false when the upstream cannot take more now. */
    boolean writeBody(ByteBuf chunk);

    /** The request body ended. */
    void endBody();

    /** Back-pressure from the client: stop (false) or resume (true) reading the response. */
    void readResponse(boolean read);

    /** The call ended cleanly: the connection (or the stream's slot) goes back to its pool. */
    void finish();

    /** Handed over but never begun (the call ended while waiting): back to the pool unused. */
    void abandon();

    /** The request is abandoned mid-way: close the connection (HTTP/1.1) or reset the stream (HTTP/2). */
    void close();

    /** A tunnel ends: what was written goes out first, then the connection closes. */
    void closeAfterFlush();
}
