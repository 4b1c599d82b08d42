package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;

/**
 * The client side of one forwarded request, as a protocol handler (HTTP/1.1 connection or HTTP/2
 * stream) offers it to the forwarder. Every method runs on the client connection's event loop,
 * which is also the upstream connection's. The forwarder ends the exchange exactly once: with
 * {@link #answer}, with {@link #responseEnd}, or with {@link #abort}.
 *
 * <p>Per request these allocate nothing on HTTP/1.1 (bytes are copied from the client's head into
 * the upstream buffer); on HTTP/2 the response head becomes Netty header objects.
 */
public interface ForwardExchange {

    /** Answers the client with a precomputed response (502, 503, 504 ...) and ends the request. */
    void answer(PrecomputedResponse response);

    /** True when the client is still connected and the request has not ended. */
    boolean isOpen();

    /** The client connection's event loop: the upstream connection is taken from its pool. */
    EventLoop eventLoop();

    // ---- request side ----

    /** The request body's length: 0 without a body, -1 when it is streamed without a declared length. */
    long requestBodyLength();

    /** Whether the request asks for a protocol upgrade (WebSocket). */
    boolean isUpgradeRequest();

    /**
     * Whether this side can open a WebSocket whose upstream handshake is not the client's own (an
     * extended CONNECT to an HTTP/2 upstream): an HTTP/1.1 client must have sent a
     * {@code Sec-WebSocket-Key} of 16 bytes in base64 (RFC 6455 4.1: 24 characters), since the
     * {@code Sec-WebSocket-Accept} it gets is computed here from it; else the answer is 400
     * (RFC 6455 4.2.1). An HTTP/2 client's extended CONNECT has no key to check.
     */
    default boolean hasWebSocketKey() {
        return true;
    }

    /**
     * Whether the upstream's final answer to an upgrade request may go to the client: a 101 the
     * client side has checked (an HTTP/2 client cannot check {@code Sec-WebSocket-Accept} itself),
     * or a refusal it passes on. False turns it into a 502 and closes the upstream connection.
     */
    default boolean acceptsUpgradeResponse(ResponseHead head) {
        return true;
    }

    /**
     * Offers the client's header fields that go on to the upstream ({@link ForwardingFields#isForwarded}
     * under {@code rules}) to {@code sink}, in the order the client sent them: an HTTP/1.1 client's as
     * field lines ({@link FieldSink#line}), an HTTP/2 client's as decoded fields ({@link FieldSink#field},
     * pseudo-header fields left out). The upstream side writes them in its protocol and adds the
     * request line or pseudo-header fields, Host, framing, {@code te: trailers} and the forwarding
     * fields itself. Per request; allocates nothing per field.
     */
    void offerRequestFields(FieldSink sink, ForwardingRules rules);

    /**
     * Called once when forwarding starts: from now on the exchange reports the client going away
     * ({@link ForwardCall#clientClosed}) and becoming writable again ({@link ForwardCall#clientWritable}).
     */
    void attach(ForwardCall call);

    /**
     * The upstream head is written: request body chunks and the end go to the attached call from now
     * on (at once for whatever already arrived). Called only when {@link #requestBodyLength()} is not 0.
     */
    void requestBodyReady();

    /** Stops (true) or resumes (false) reading the request body: back-pressure from the upstream connection. */
    void pauseRequestBody(boolean pause);

    // ---- response side ----

    /** Relays an interim response (100 Continue, 103 Early Hints) when the protocol can carry it. */
    void interimResponse(ResponseHead head);

    /**
     * Writes the response head: the upstream's status and fields minus what {@code rules} removes,
     * plus {@code rules}' own fields and {@code extraLine} (an affinity cookie line, or null).
     */
    void responseHead(ResponseHead head, ResponseHeaderRules rules, byte[] extraLine);

    /**
     * The upstream accepted the WebSocket upgrade and its 101 head was written: from now on the
     * client's bytes go unparsed to {@link ForwardCall#requestBody}, the upstream's go out as they
     * come ({@link #responseBody}), and {@link #responseEnd} closes the connection after a flush.
     */
    void upgraded();

    /**
     * An HTTP/2 upstream answered the WebSocket's extended CONNECT (RFC 8441) with a 2xx: writes the
     * head that opens the client's tunnel ({@link #upgraded} follows): an HTTP/1.1 client's
     * {@code 101} with the {@code Sec-WebSocket-Accept} for its own key, an HTTP/2 client's
     * {@code :status 200}; with the upstream's {@code Sec-WebSocket-Protocol} and {@code -Extensions}.
     */
    default void webSocketAccepted(ResponseHead head, ResponseHeaderRules rules) {
        responseHead(head, rules, null);
    }

    /** Writes a part of the response body (ownership passes to the exchange). */
    void responseBody(ByteBuf chunk);

    /** Whether the client can take more response bytes now; when not, it calls {@link ForwardCall#clientWritable()} later. */
    boolean isWritable();

    /** Flushes what the response writes queued (called once per upstream read). */
    void flush();

    /** Ends the response, with trailers (or null); ends the exchange. */
    void responseEnd(ResponseTrailers trailers);

    /** The response cannot be completed (upstream failed mid-way): close (HTTP/1.1) or reset the stream (HTTP/2). */
    void abort();

    /**
     * Writes a whole response known at once (a cache hit: {@code body} is a stored buffer, read
     * only, or null) and ends the exchange. By default the head, a retained duplicate of the body
     * and the end, as {@link #responseHead}, {@link #responseBody} and {@link #responseEnd} would;
     * a protocol may write it more cheaply (HTTP/1.1: one buffer, as a gate answer).
     */
    default void storedResponse(ResponseHead head, ResponseHeaderRules rules, ByteBuf body) {
        responseHead(head, rules, null);
        if (!isOpen()) {
            return; // HTTP/2 ended the stream with the head (no body, or HEAD)
        }
        if (body != null) {
            responseBody(body.retainedDuplicate());
        }
        responseEnd(null);
    }
}
