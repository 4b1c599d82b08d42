package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.util.Recycler;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.http1.Http1ResponseHead;
import io.paduraksa.proxy.http1.Http1ResponseTrailers;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.ResponseHeaderRules;

/**
 * One forwarded request, from the gate's hand-off to the end of its response: picks a
 * destination, takes an upstream connection from the event loop's pool, writes the request head
 * and streams the body up, streams the response back, retries what may be retried and turns
 * upstream failures into 502/503/504 answers. Recycled (Netty {@link Recycler}), so a request
 * costs no object of its own; every method runs on the client's event loop, which owns the
 * upstream connection too, so nothing here is shared between threads.
 *
 * <p>Retries: a request without a body whose method is idempotent (RFC 9110 9.2.2) is tried again
 * on another destination when the connection failed, or when a reused keep-alive connection closed
 * before any response byte (the upstream closed it while idle, a race every pooling proxy meets),
 * as long as the cluster's attempts and retry budget allow. Nothing else is retried: once a request
 * body was streamed or a response started, the bytes are gone.
 */
public final class ForwardCall {
    private static final Recycler<ForwardCall> RECYCLER = new Recycler<>() {
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
    /** The available destination the request's affinity cookie named, or -1. */
    private int cookieDestination;
    private boolean retryable;
    private Http1UpstreamHandler upstream;
    private boolean reusedConnection;
    private boolean chunkedUp;
    private long requestLength;
    private boolean requestDone;
    private boolean responseStarted;
    private boolean responseDone;
    private boolean finished;
    /** A pool holds this call (connecting, or waiting for a connection): it must not be recycled yet. */
    private boolean inPool;
    private boolean headRequest;
    private byte[] affinityLine;
    private Http1ResponseTrailers trailers;

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
        // Read once: on HTTP/2 the body may end before the upstream head is written, and the head's
        // framing must describe the body as it was announced, not as it looks later.
        call.requestLength = exchange.requestBodyLength();
        call.requestDone = call.requestLength == 0;
        call.retryable = call.requestDone && Idempotency.isIdempotent(state.view().method());
        call.retriesLeft = cluster.model().retry().attempts();
        call.affinityLine = null;
        call.headRequest = Idempotency.isHead(state.view().method());
        cluster.onRequest();
        exchange.attach(call);
        call.cookieDestination = cluster.affinityChoice(state);
        call.pickAndConnect(call.cookieDestination, -1);
    }

    private void pickAndConnect(int preferred, int exclude) {
        int d = preferred >= 0 ? preferred : cluster.choose(exclude);
        if (d < 0) {
            fail(503);
            return;
        }
        destination = d;
        affinityLine = cluster.affinityLine(d, d == cookieDestination);
        cluster.destination(d).requestStarted();
        inPool = true;
        cluster.pool(d, exchange.eventLoop()).acquire(this);
    }

    boolean isHeadRequest() {
        return headRequest;
    }

    // ---- from the pool ----

    /** The pool handed over a connection (fresh or reused); writes the request head and, if any, the body. */
    void connected(Http1UpstreamHandler connection, boolean reused) {
        inPool = false;
        if (finished) {
            connection.pool().release(connection, true);
            handle.recycle(this); // the client left while this call waited: end() left the recycling to us
            return;
        }
        if (!exchange.isOpen()) {
            connection.pool().release(connection, true);
            cluster.destination(destination).requestEnded();
            end(false);
            return;
        }
        upstream = connection;
        reusedConnection = reused;
        connection.begin(this, cluster.model().timeouts().responseHeaders().toNanos());
        writeHead(connection.channel());
    }

    /** Connecting failed (refused, unreachable, timed out): another destination, or 502. */
    void connectFailed() {
        inPool = false;
        if (finished) {
            handle.recycle(this);
            return;
        }
        cluster.destination(destination).requestEnded();
        cluster.destination(destination).onFailure(System.nanoTime());
        retryOrFail(502);
    }

    private void writeHead(Channel ch) {
        ByteBuf out = ch.alloc().ioBuffer(UpstreamRequestHead.estimate(state));
        long length = requestLength;
        chunkedUp = length < 0;
        UpstreamRequestHead.write(out, state, exchange, cluster.model(), cluster.endpointAuthority(destination), length);
        // Flushed at once even with a body to follow: a client that sent Expect: 100-continue waits
        // for the upstream's 100 before sending it.
        ch.writeAndFlush(out, ch.voidPromise());
        if (!requestDone) {
            exchange.requestBodyReady();
        }
    }

    // ---- request body, from the exchange ----

    /** A part of the request body (ownership passes here). */
    public void requestBody(ByteBuf chunk) {
        Http1UpstreamHandler u = upstream;
        if (finished || u == null) {
            chunk.release();
            return;
        }
        Channel ch = u.channel();
        int n = chunk.readableBytes();
        if (n == 0) {
            chunk.release();
            return;
        }
        if (chunkedUp) {
            ByteBuf size = ch.alloc().ioBuffer(12);
            ByteBufUtil.writeAscii(size, Integer.toHexString(n)); // rare path: only bodies without Content-Length
            size.writeShort(CRLF_SHORT);
            ch.write(size, ch.voidPromise());
            ch.write(chunk, ch.voidPromise());
            ch.writeAndFlush(ch.alloc().ioBuffer(2).writeShort(CRLF_SHORT), ch.voidPromise());
        } else {
            ch.writeAndFlush(chunk, ch.voidPromise());
        }
        if (!ch.isWritable()) {
            exchange.pauseRequestBody(true);
        }
    }

    private static final int CRLF_SHORT = ('\r' << 8) | '\n';
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n', '\r', '\n'};

    /** The request body ended. */
    public void requestEnd() {
        requestDone = true;
        Http1UpstreamHandler u = upstream;
        if (finished || u == null) {
            return;
        }
        if (chunkedUp) {
            Channel ch = u.channel();
            ch.writeAndFlush(ch.alloc().ioBuffer(LAST_CHUNK.length).writeBytes(LAST_CHUNK), ch.voidPromise());
        }
        if (responseDone) {
            release();
        }
    }

    /** The client can take response bytes again: resume reading the upstream. */
    public void clientWritable() {
        Http1UpstreamHandler u = upstream;
        if (u != null && !finished) {
            u.readResponse(true);
        }
    }

    /** The client went away: the upstream request is abandoned and its connection closed. */
    public void clientClosed() {
        if (finished) {
            return;
        }
        Http1UpstreamHandler u = upstream;
        upstream = null;
        if (u != null) {
            u.close();
        }
        cluster.destination(destination).requestEnded();
        end(false);
    }

    // ---- from the upstream connection ----

    void upstreamWritable(boolean writable) {
        if (!finished && !requestDone) {
            exchange.pauseRequestBody(!writable);
        }
    }

    void onInterim(Http1ResponseHead head) {
        exchange.interimResponse(head);
        head.release();
    }

    void onResponseHead(Http1ResponseHead head) {
        responseStarted = true;
        cluster.destination(destination).onSuccess();
        CompiledHost host = state.host();
        ResponseHeaderRules rules = host == null ? state.snapshot().defaultResponseHeaders() : host.responseHeaders();
        exchange.responseHead(head, rules, affinityLine);
        head.release();
    }

    void onResponseBody(ByteBuf chunk) {
        exchange.responseBody(chunk);
        if (!exchange.isWritable() && upstream != null) {
            upstream.readResponse(false);
        }
    }

    void onTrailers(Http1ResponseTrailers t) {
        trailers = t;
    }

    void onResponseEnd() {
        responseDone = true;
        Http1ResponseTrailers t = trailers;
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
            Http1UpstreamHandler u = upstream;
            upstream = null;
            u.close();
            end(true);
        }
    }

    void flushClient() {
        if (!finished) {
            exchange.flush();
        }
    }

    /** The upstream's response was malformed or smuggled extra bytes: 502 before the head, else abort. */
    void onUpstreamError() {
        dropConnection();
        cluster.destination(destination).onFailure(System.nanoTime());
        cluster.destination(destination).requestEnded();
        if (responseStarted) {
            exchange.abort();
            end(false);
        } else {
            fail(502);
        }
    }

    /** The upstream connection closed before the response ended. */
    void onUpstreamClosed() {
        upstream = null;
        cluster.destination(destination).requestEnded();
        if (responseStarted) {
            exchange.abort();
            end(false);
            return;
        }
        if (reusedConnection && retryable) {
            // A stale keep-alive connection: no response byte came, nothing of a body was sent.
            pickAndConnect(-1, -1);
            return;
        }
        cluster.destination(destination).onFailure(System.nanoTime());
        retryOrFail(502);
    }

    /** No response head within the cluster's response-headers timeout: 504. */
    void onHeadersTimeout() {
        dropConnection();
        cluster.destination(destination).onFailure(System.nanoTime());
        cluster.destination(destination).requestEnded();
        fail(504);
    }

    /** The upstream was silent longer than the idle timeout in the middle of a response. */
    void onIdleTimeout() {
        dropConnection();
        cluster.destination(destination).requestEnded();
        if (responseStarted) {
            exchange.abort();
            end(false);
        } else {
            fail(504);
        }
    }

    // ---- endings ----

    /** Tries another destination when the request may be retried and one is available; else answers {@code status}. */
    private void retryOrFail(int status) {
        if (retryable && retriesLeft > 0 && exchange.isOpen()) {
            int next = cluster.choose(destination);
            if (next >= 0 && cluster.tryRetry()) {
                retriesLeft--;
                pickAndConnect(next, -1);
                return;
            }
        }
        fail(status);
    }

    private void dropConnection() {
        Http1UpstreamHandler u = upstream;
        upstream = null;
        if (u != null) {
            u.close();
        }
    }

    private void fail(int status) {
        if (exchange.isOpen()) {
            exchange.answer(state.snapshot().statusAnswer(status));
        }
        end(false);
    }

    /** The response and the request both ended cleanly: the connection goes back to its pool. */
    private void release() {
        Http1UpstreamHandler u = upstream;
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
