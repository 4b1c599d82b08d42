package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.util.Recycler;
import io.paduraksa.gate.RequestRecycler;
import io.paduraksa.gate.RequestState;
import io.paduraksa.ops.UpstreamMetrics;
import io.paduraksa.proxy.balance.LoadBalancer;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.ResponseHeaderRules;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * One forwarded request, from the gate's hand-off to the end of its response: picks a
 * destination, takes an upstream connection from the event loop's pool, writes the request head
 * and streams the body up, streams the response back, retries what may be retried and turns
 * upstream failures into 502/503/504 answers. Recycled (Netty {@link Recycler}), so a request
 * costs no object of its own; every method runs on the client's event loop, which owns the
 * upstream connection too, so nothing here is shared between threads.
 *
 * <p>Retries: a request without a body whose method is idempotent (RFC 9110 9.2.2) is tried again
 * on an untried destination when the connection failed, or when a reused keep-alive connection closed
 * before any response byte (the upstream closed it while idle, a race every pooling proxy meets),
 * as long as the cluster's attempts and retry budget allow. Nothing else is retried: once a request
 * body was streamed or a response started, the bytes are gone. An HTTP/2 upstream's refusal
 * (REFUSED_STREAM, or a stream above a GOAWAY's last stream id) is retried the same way.
 *
 * <p>The upstream side is an {@link UpstreamStream} (an HTTP/1.1 connection or an HTTP/2 stream)
 * taken from a {@link ConnectionPool}; both report to this call as an {@link UpstreamCall}, the only
 * part of it the protocol packages see. The public methods outside that interface are the client
 * side's ({@link ForwardExchange} implementations report the request body and the client's state).
 *
 * <p>WebSocket: a request with {@link ForwardExchange#isUpgradeRequest()} that gets {@code 101}
 * from an HTTP/1.1 upstream, or a 2xx to the extended CONNECT (RFC 8441) an HTTP/2 upstream gets
 * instead ({@link #isExtendedConnect}), turns the call into a tunnel: raw bytes both ways through
 * the same request-body and response-body paths (with the same back-pressure), until either side
 * closes; the other side is then closed (or its stream ended) after what was written to it is
 * flushed. An HTTP/2 upstream that did not advertise SETTINGS_ENABLE_CONNECT_PROTOCOL gets nothing:
 * the client gets 502.
 */
public final class ForwardCall implements UpstreamCall {
    /**
     * Every call kept for reuse ({@link RequestRecycler}), as the exchanges are: with Netty's default
     * pool (one new object in eight kept) each new peak of calls in flight is garbage.
     */
    private static final Recycler<ForwardCall> RECYCLER = new RequestRecycler<>() {
        @Override
        protected ForwardCall newObject(Handle<ForwardCall> handle) {
            return new ForwardCall(handle);
        }
    };

    private final Recycler.Handle<ForwardCall> handle;
    private RequestState state;
    private ForwardExchange exchange;
    private ClusterRuntime cluster;
    private int destination;
    private int retriesLeft;
    /** Destinations this request was sent to ({@link LoadBalancer#bit} mask): a retry goes elsewhere. */
    private long tried;
    /** The available destination the request's affinity cookie named, or -1. */
    private int cookieDestination;
    private boolean retryable;
    /** Whether an HTTP/2 upstream already refused this request's stream: one more try, not a loop. */
    private boolean refusedOnce;
    private UpstreamStream upstream;
    private boolean reusedConnection;
    private long requestLength;
    private boolean requestDone;
    private boolean responseStarted;
    private boolean responseDone;
    private boolean finished;
    /** A pool holds this call (connecting, or waiting for a connection): it must not be recycled yet. */
    private boolean inPool;
    private boolean headRequest;
    private boolean upgradeRequest;
    /** An upgrade request to an HTTP/2 cluster: it goes as an extended CONNECT, and a 2xx opens the tunnel. */
    private boolean extendedConnect;
    /** 101 came: bytes flow both ways until a close. */
    private boolean tunnel;
    private byte[] affinityLine;
    private ResponseTrailers trailers;
    /** When the current attempt's request head was written (System.nanoTime). */
    private long sentNanos;
    /** When the current attempt picked its destination; {@code acquiring}: its pool is being asked (a connection handed over now was sent at that time). */
    private long pickNanos;
    private boolean acquiring;

    private ForwardCall(Recycler.Handle<ForwardCall> handle) {
        this.handle = handle;
    }

    /** Starts forwarding {@code state}'s request to {@code cluster}; the call ends itself. */
    static void start(ClusterRuntime cluster, RequestState state, ForwardExchange exchange) {
        ForwardCall call = RECYCLER.get();
        call.state = state;
        call.exchange = exchange;
        call.cluster = cluster;
        call.finished = false;
        call.responseStarted = false;
        call.responseDone = false;
        call.tunnel = false;
        // Read once: on HTTP/2 the body may end before the upstream head is written, and the head's
        // framing must describe the body as it was announced, not as it looks later.
        call.requestLength = exchange.requestBodyLength();
        call.requestDone = call.requestLength == 0;
        call.retryable = call.requestDone && Idempotency.isIdempotent(state.view().method());
        call.retriesLeft = cluster.model().retry().attempts();
        call.refusedOnce = false;
        call.tried = 0;
        call.affinityLine = null;
        call.headRequest = Idempotency.isHead(state.view().method());
        // An HTTP/1.1 upstream takes an Upgrade; an HTTP/2 one an extended CONNECT (RFC 8441), if it advertises it.
        call.upgradeRequest = exchange.isUpgradeRequest();
        call.extendedConnect = call.upgradeRequest && cluster.model().protocol() != UpstreamCluster.Protocol.HTTP1;
        long now = System.nanoTime(); // one clock read for the budget, the pick and, from an idle connection, the send
        cluster.onRequest(now);
        exchange.attach(call);
        if (call.extendedConnect && !exchange.hasWebSocketKey()) {
            call.fail(400); // no key to compute the client's Sec-WebSocket-Accept from: nothing goes upstream
            return;
        }
        call.cookieDestination = cluster.affinityChoice(state, now);
        call.pickAndConnect(call.cookieDestination, -1, now);
    }

    private void pickAndConnect(int preferred, int exclude, long now) {
        int d = preferred >= 0 ? preferred : cluster.choose(now, exclude);
        if (d < 0) {
            fail(503);
            return;
        }
        destination = d;
        tried |= LoadBalancer.bit(d);
        affinityLine = cluster.affinityLine(d, d == cookieDestination);
        cluster.destination(d).requestStarted();
        inPool = true;
        pickNanos = now;
        acquiring = true; // connected() now, from an idle connection, sends at the pick's time
        cluster.pool(d, exchange.eventLoop()).acquire(this);
        acquiring = false;
    }

    /** Whether the WebSocket goes to an HTTP/2 upstream as an extended CONNECT (no Sec-WebSocket-Key, a 2xx opens it). */
    public boolean isExtendedConnect() {
        return extendedConnect;
    }

    // ---- UpstreamCall, from the pool ----

    /** The pool handed over a stream (on a fresh or reused connection); writes the request head and, if any, the body. */
    @Override
    public void connected(UpstreamStream stream, boolean reused) {
        inPool = false;
        if (finished) {
            stream.abandon();
            handle.recycle(this); // the client left while this call waited: end() left the recycling to us
            return;
        }
        if (!exchange.isOpen()) {
            stream.abandon();
            cluster.destination(destination).requestEnded();
            end(false);
            return;
        }
        upstream = stream;
        reusedConnection = reused;
        sentNanos = acquiring ? pickNanos : System.nanoTime();
        cluster.meter(destination).request();
        state.upstream(destination, -1);
        state.upstreamError(-1); // a new attempt: what failed before it was retried
        stream.begin(this, sentNanos, cluster.model().timeouts().responseHeaders().toNanos(), headRequest, upgradeRequest);
        stream.writeHead(state, exchange, cluster.model(), cluster.endpointAuthority(destination), requestLength);
        if (!requestDone && upstream == stream) {
            exchange.requestBodyReady();
        }
    }

    /**
     * The call waited for a connection longer than the connect timeout because every connection of
     * the pool was busy: 503 (the service is overloaded here; the upstream did nothing wrong, so no
     * passive-health failure and no retry elsewhere).
     */
    @Override
    public void queueTimedOut() {
        inPool = false;
        if (finished) {
            handle.recycle(this);
            return;
        }
        cluster.destination(destination).requestEnded();
        fail(503);
    }

    /** Connecting failed (refused, unreachable, timed out, TLS or ALPN refused): another destination, or 502. */
    @Override
    public void connectFailed() {
        inPool = false;
        if (finished) {
            handle.recycle(this);
            return;
        }
        cluster.destination(destination).requestEnded();
        // Counts at once: the balancer skips this destination from the next pick on.
        cluster.destination(destination).onConnectionFailure(System.nanoTime());
        cluster.meter(destination).request(); // a request tried, though its connection failed
        upstreamFailed(UpstreamMetrics.CONNECT);
        state.upstream(destination, -1);
        retryOrFail(502);
    }

    // ---- request body, from the exchange ----

    /** A part of the request body, or tunnel bytes from the client (ownership passes here). */
    public void requestBody(ByteBuf chunk) {
        UpstreamStream u = upstream;
        if (finished || u == null) {
            chunk.release();
            return;
        }
        if (!u.writeBody(chunk)) {
            exchange.pauseRequestBody(true);
        }
    }

    /** The request body ended. */
    public void requestEnd() {
        requestDone = true;
        UpstreamStream u = upstream;
        if (finished || u == null) {
            return;
        }
        u.endBody();
        if (responseDone) {
            release();
        }
    }

    /**
     * The request body broke a limit ({@code limits.max_body_size}): the exchange stopped passing it
     * on, so the upstream holds at most the limit. The upstream request is abandoned mid-body (its
     * connection closed, or its HTTP/2 stream reset: never reused), and the client gets
     * {@code status} when no response started, else the response is cut off.
     */
    public void requestRefused(int status) {
        if (finished) {
            return;
        }
        dropConnection();
        cluster.destination(destination).requestEnded();
        if (responseStarted) {
            exchange.abort();
            end(false);
        } else {
            fail(status);
        }
    }

    /** The client can take response bytes again: resume reading the upstream. */
    public void clientWritable() {
        UpstreamStream u = upstream;
        if (u != null && !finished) {
            u.readResponse(true);
        }
    }

    /** The client went away: the upstream request is abandoned (a tunnel's upstream gets what was sent first). */
    public void clientClosed() {
        if (finished) {
            return;
        }
        UpstreamStream u = upstream;
        upstream = null;
        if (u != null) {
            if (tunnel) {
                u.closeAfterFlush();
            } else {
                u.close();
            }
        }
        cluster.destination(destination).requestEnded();
        end(false);
    }

    // ---- UpstreamCall, from the upstream stream ----

    /** The upstream can take more request bytes (true) or not (false). */
    @Override
    public void upstreamWritable(boolean writable) {
        if (!finished && (!requestDone || tunnel)) {
            exchange.pauseRequestBody(!writable);
        }
    }

    /** An interim response (1xx other than 101); the caller keeps ownership of {@code head}. */
    @Override
    public void onInterim(ResponseHead head) {
        exchange.interimResponse(head);
    }

    /** The final response head; the caller keeps ownership of {@code head}. */
    @Override
    public void onResponseHead(ResponseHead head) {
        responseStarted = true;
        long now = System.nanoTime();
        long latency = now - sentNanos;
        cluster.meter(destination).response(head.status(), latency / 1_000);
        state.upstream(destination, latency);
        cluster.destination(destination).onResponse(head.status(), now);
        CompiledHost host = state.host();
        ResponseHeaderRules rules = host == null ? state.snapshot().defaultResponseHeaders() : host.responseHeaders();
        if (extendedConnect) {
            webSocketHead(head, rules);
            return;
        }
        if (upgradeRequest && !exchange.acceptsUpgradeResponse(head)) {
            // A 101 with a wrong Sec-WebSocket-Accept, or a 2xx an HTTP/2 client would take for an open tunnel.
            dropConnection();
            cluster.destination(destination).requestEnded();
            upstreamFailed(UpstreamMetrics.INVALID_RESPONSE);
            fail(502);
            return;
        }
        if (head.status() == 101 && upgradeRequest) {
            tunnel = true;
            requestDone = true;
            exchange.responseHead(head, rules, null);
            exchange.upgraded();
            return;
        }
        exchange.responseHead(head, rules, affinityLine);
    }

    /** An HTTP/2 upstream's answer to the extended CONNECT: a 2xx opens the tunnel, anything else passes as it is. */
    private void webSocketHead(ResponseHead head, ResponseHeaderRules rules) {
        if (head.status() < 200 || head.status() > 299) {
            exchange.responseHead(head, rules, affinityLine);
            return;
        }
        tunnel = true;
        requestDone = true;
        exchange.webSocketAccepted(head, rules);
        exchange.upgraded();
    }

    /** A part of the response body, or tunnel bytes from the upstream (ownership passes here). */
    @Override
    public void onResponseBody(ByteBuf chunk) {
        exchange.responseBody(chunk);
        if (!exchange.isWritable() && upstream != null) {
            upstream.readResponse(false);
        }
    }

    /** Trailers of the response; released by this call once written. */
    @Override
    public void onTrailers(ResponseTrailers t) {
        trailers = t;
    }

    /** The response ended completely. */
    @Override
    public void onResponseEnd() {
        responseDone = true;
        ResponseTrailers t = trailers;
        trailers = null;
        exchange.responseEnd(t);
        if (t != null) {
            t.release();
        }
        cluster.destination(destination).requestEnded();
        if (requestDone) {
            release();
        } else {
            // The upstream answered before the request body was sent (an early 413, a redirect):
            // the connection is mid-request and cannot be reused.
            UpstreamStream u = upstream;
            upstream = null;
            u.close();
            end(true);
        }
    }

    /** The upstream's read ended: the client's queued writes go out. */
    @Override
    public void flushClient() {
        if (!finished) {
            exchange.flush();
        }
    }

    /** The upstream's response was malformed or smuggled extra bytes: 502 before the head, else abort. */
    @Override
    public void onUpstreamError() {
        dropConnection();
        cluster.destination(destination).onFailure(System.nanoTime());
        cluster.destination(destination).requestEnded();
        upstreamFailed(UpstreamMetrics.INVALID_RESPONSE);
        if (responseStarted) {
            exchange.abort();
            end(false);
        } else {
            fail(502);
        }
    }

    /** The upstream connection closed (or the HTTP/2 stream was reset) before the response ended. */
    @Override
    public void onUpstreamClosed() {
        upstream = null;
        cluster.destination(destination).requestEnded();
        if (tunnel) {
            // Either side of a tunnel may end it: the client gets what came before the close.
            exchange.responseEnd(null);
            end(true);
            return;
        }
        upstreamFailed(UpstreamMetrics.RESET);
        if (responseStarted) {
            exchange.abort();
            end(false);
            return;
        }
        if (reusedConnection && retryable) {
            // A stale keep-alive connection: no response byte came, nothing of a body was sent.
            pickAndConnect(-1, -1, System.nanoTime());
            return;
        }
        // Closed or reset on a fresh connection before any response byte: counts at once, as a refused connect.
        cluster.destination(destination).onConnectionFailure(System.nanoTime());
        retryOrFail(502);
    }

    /**
     * An HTTP/2 upstream did not process the stream (REFUSED_STREAM, or above a GOAWAY's last
     * stream id, RFC 9113 8.7): retried once, like a stale connection, when the request may be
     * retried or is a WebSocket's extended CONNECT (nothing of the tunnel went up or reached the
     * client before the upstream's 2xx); a second refusal is a 502.
     */
    @Override
    public void onUpstreamRefused() {
        upstream = null;
        cluster.destination(destination).requestEnded();
        upstreamFailed(UpstreamMetrics.RESET);
        if (!responseStarted && !refusedOnce && (retryable || extendedConnect) && exchange.isOpen()) {
            refusedOnce = true;
            pickAndConnect(-1, -1, System.nanoTime());
            return;
        }
        if (responseStarted) {
            exchange.abort();
            end(false);
            return;
        }
        fail(502);
    }

    /** No response head within the cluster's response-headers timeout: 504. */
    @Override
    public void onHeadersTimeout() {
        dropConnection();
        cluster.destination(destination).onFailure(System.nanoTime());
        cluster.destination(destination).requestEnded();
        upstreamFailed(UpstreamMetrics.TIMEOUT);
        fail(504);
    }

    /** The upstream was silent longer than the idle timeout in the middle of a response (or tunnel). */
    @Override
    public void onIdleTimeout() {
        dropConnection();
        cluster.destination(destination).requestEnded();
        if (!tunnel) {
            upstreamFailed(UpstreamMetrics.TIMEOUT);
        }
        if (tunnel) {
            exchange.responseEnd(null);
            end(true);
        } else if (responseStarted) {
            exchange.abort();
            end(false);
        } else {
            fail(504);
        }
    }

    /**
     * The HTTP/2 upstream cannot take an extended CONNECT: 502, as when no tunnel can be had, and
     * no retry (every connection of the cluster's destination says the same in its SETTINGS).
     */
    @Override
    public void onUpgradeUnsupported() {
        upstream = null;
        cluster.destination(destination).requestEnded();
        upstreamFailed(UpstreamMetrics.UPGRADE_UNSUPPORTED);
        fail(502);
    }

    // ---- endings ----

    /**
     * Tries a destination this request has not tried yet when the request may be retried, one is
     * available and the budget allows; else answers {@code status}.
     */
    private void retryOrFail(int status) {
        if (retryable && retriesLeft > 0 && exchange.isOpen()) {
            int next = cluster.chooseRetry(tried, destination);
            if (next >= 0 && cluster.tryRetry()) {
                retriesLeft--;
                pickAndConnect(next, -1, System.nanoTime());
                return;
            }
        }
        fail(status);
    }

    /**
     * Counts {@code kind} ({@link UpstreamMetrics#CONNECT} ...) for the destination and keeps it in the
     * request's state, so the access log names the same failure the metric counts.
     */
    private void upstreamFailed(int kind) {
        cluster.meter(destination).error(kind);
        state.upstreamError(kind);
    }

    private void dropConnection() {
        UpstreamStream u = upstream;
        upstream = null;
        if (u != null) {
            u.close();
        }
    }

    private void fail(int status) {
        if (exchange.isOpen()) {
            exchange.answer(state.statusAnswer(status));
        }
        end(false);
    }

    /** The response and the request both ended cleanly: the connection goes back to its pool. */
    private void release() {
        UpstreamStream u = upstream;
        upstream = null;
        if (u != null) {
            u.finish();
        }
        end(true);
    }

    private void end(boolean ok) {
        if (finished) {
            return;
        }
        finished = true;
        if (trailers != null) {
            trailers.release();
            trailers = null;
        }
        state = null;
        exchange = null;
        cluster = null;
        upstream = null;
        affinityLine = null;
        if (!inPool) {
            handle.recycle(this);
        }
    }

    /** For tests and logs. */
    @Override
    public String toString() {
        return "ForwardCall{destination=" + destination + ", finished=" + finished + '}';
    }
}
