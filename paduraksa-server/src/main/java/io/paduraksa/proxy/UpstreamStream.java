package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * What one call writes its request to and reads its response from: a pooled HTTP/1.1 connection
 * for the length of one request ({@code proxy.http1.Http1UpstreamHandler}), or one stream of a
 * multiplexed HTTP/2 connection ({@code proxy.http2.Http2UpstreamStream}). A pool hands it over with
 * {@link UpstreamCall#connected}; from {@link #begin} on it reports the response to that
 * {@link UpstreamCall} ({@code onResponseHead}, {@code onResponseBody}, {@code onTrailers},
 * {@code onResponseEnd}, failures and timeouts). Every method runs on the call's event loop.
 */
public interface UpstreamStream {

    /**
     * Takes the stream for {@code call} at {@code now} (System.nanoTime, read by the caller); its
     * response head is due within {@code headersTimeoutNanos}.
     * {@code headRequest}: the response has no body whatever it declares; {@code upgradeRequest}: a
     * WebSocket handshake forwarded with its Upgrade fields (HTTP/1.1 only).
     */
    void begin(UpstreamCall call, long now, long headersTimeoutNanos, boolean headRequest, boolean upgradeRequest);

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
