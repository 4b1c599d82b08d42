package io.paduraksa.server.cycle;

import io.netty.channel.Channel;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.respond.PrecomputedResponse;

/**
 * What a protocol offers the {@link RequestCycle} for one request: the HTTP/1.1 connection (its
 * one request at a time) or an HTTP/2 stream. The cycle decides; the protocol only writes, drops,
 * hands over and pauses. Every method runs on the connection's event loop; the ones of the common
 * path ({@link #writeAnswer}, {@link #drop}, {@link #forward}) allocate nothing.
 */
public interface ProtocolExchange {

    /** The request's recycled state, which the gate fills. */
    RequestState state();

    /** The client connection: an asynchronous policy's I/O runs on its event loop, with its transport. */
    Channel channel();

    /** What decided the request, for its access-log line ({@code AccessLog.REFUSED}, {@code FORWARD}, ...). */
    void logDecision(int decision);

    /** Writes a precomputed answer and ends the request. */
    void writeAnswer(PrecomputedResponse response);

    /** Ends the request without an answer: HTTP/1.1 closes the connection, HTTP/2 resets the stream. */
    void drop();

    /** Hands the request to the forwarder (for {@link RequestState#cluster()}); the forwarder counts it. */
    void forward();

    /** An asynchronous policy starts its I/O: stop passing the request's body on, hold what arrives. */
    void pauseReads();

    /**
     * The asynchronous policy decided and the gate went on to {@code outcome}: read again; a held
     * body is dropped unless the request is forwarded (then {@link #forward} passes it on) or another
     * policy waits ({@code NEEDS_ASYNC}).
     */
    void resumeReads(GateOutcome outcome);

    /** Whether the request that started an asynchronous policy with {@code requestId} still waits for it. */
    boolean awaits(long requestId);

    /** The resumed request was dispatched outside the read that brought it: flush, decode what is pipelined. */
    void resumed(GateOutcome outcome);

    /**
     * A policy reads the request's body ({@code BodyPolicy}): hold the body as for {@link #pauseReads},
     * but keep reading; hand each chunk, once held, to {@link RequestCycle#bodyChunk} and the body's
     * end to {@link RequestCycle#bodyEnd}. The decision comes through {@link #resumeReads} as for any
     * asynchronous policy.
     */
    void inspectBody();

    /**
     * The most body bytes this protocol can hold for the request before the client must wait for us:
     * unbounded for HTTP/1.1 (its body limit applies), the stream's flow-control window for HTTP/2
     * (held DATA is not credited). 0 B.
     */
    long bodyHoldLimit();
}
