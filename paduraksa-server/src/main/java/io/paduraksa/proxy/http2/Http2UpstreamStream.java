package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.http2.Http2ErrorCodes;
import io.paduraksa.proxy.Activity;
import io.paduraksa.proxy.ConnectionOptions;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.paduraksa.proxy.UpstreamCall;
import io.paduraksa.proxy.UpstreamStream;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * One forwarded request as a stream of an {@link Http2UpstreamHandler} connection. The request
 * head is HPACK-encoded into the connection's {@link Http2RequestBlock}: {@code :method},
 * {@code :scheme} (the upstream's: https for h2, http for h2c), {@code :authority} (the client's when
 * the cluster preserves the host, else the destination's), {@code :path} from the NORMALISED path and
 * the client's query, then the client's surviving fields (lower case, no connection-specific ones),
 * {@code te: trailers} when the client's TE asked for trailers, and the forwarding fields
 * ({@link ForwardingFields}, shared with HTTP/1.1). The response comes back as HEADERS (decoded
 * into {@link Http2ResponseFields}), DATA and trailing HEADERS; DATA is given back to the codec's
 * flow control as the client takes it, and not while the client cannot take more
 * ({@link #readResponse}), so the upstream's window closes (HTTP/2 flow control is the back-pressure).
 *
 * <p>A WebSocket ({@code upgradeRequest} in {@link #begin}) goes as an extended CONNECT (RFC 8441
 * 4), and only to an upstream that sent SETTINGS_ENABLE_CONNECT_PROTOCOL = 1 (else the call hears
 * {@link UpstreamCall#onUpgradeUnsupported} and nothing is sent): the stream stays open after the
 * head, a 2xx makes it a tunnel whose DATA are the WebSocket's bytes both ways, and our side's end is
 * an END_STREAM (when the client leaves or the call finishes) that the upstream answers with its
 * own; a stream the upstream keeps half open is reset after the idle timeout.
 *
 * <p>Recycled by its connection: it goes back once its call let go of it ({@link #call} null: the
 * call finished, closed or abandoned it, or it reported the call's end) and its slot is free. Every
 * path that calls the call and then goes on checks {@link #generation} first, since the call may
 * have ended the stream and the pool handed it out again meanwhile. On the connection's event loop.
 */
public final class Http2UpstreamStream implements UpstreamStream {
    private static final AsciiString TE = AsciiString.cached("te");
    private static final AsciiString TRAILERS = AsciiString.cached("trailers");

    private final Http2UpstreamHandler connection;
    private final Http2ResponseFields fields = new Http2ResponseFields();
    private UpstreamCall call;
    private int slot = -1;
    private int generation;
    private boolean handedOut;
    private boolean wasOpened;
    private boolean headRequest;
    /** An extended CONNECT (RFC 8441): a 2xx opens a tunnel of DATA both ways. */
    private boolean webSocket;
    /** Our END_STREAM was written. */
    private boolean localEnded;
    /** A tunnel our side ended while the call let go: the upstream's END_STREAM is awaited, up to the idle timeout. */
    private boolean lingering;
    private boolean headDone;
    private boolean paused;
    private int unconsumed;
    private long headersDeadline;
    private final Activity activity = new Activity();

    Http2UpstreamStream(Http2UpstreamHandler connection) {
        this.connection = connection;
    }

    // ---- life cycle, from the connection

    void handedOut() {
        handedOut = true;
        wasOpened = false;
        call = null;
        slot = -1;
        headDone = false;
        webSocket = false;
        localEnded = false;
        lingering = false;
        paused = false;
        unconsumed = 0;
        headersDeadline = 0;
    }

    void opened(int slot) {
        this.slot = slot;
        this.wasOpened = true;
    }

    void closedSlot() {
        slot = -1;
    }

    void recycled() {
        handedOut = false;
        generation++;
        fields.clear();
    }

    int slot() {
        return slot;
    }

    boolean isHandedOut() {
        return handedOut;
    }

    boolean wasOpened() {
        return wasOpened;
    }

    boolean isActive() {
        return call != null;
    }

    Http2ResponseFields fields() {
        fields.reset();
        return fields;
    }

    // ---- UpstreamStream, from the call

    @Override
    public void begin(UpstreamCall call, long now, long headersTimeoutNanos, boolean headRequest, boolean upgradeRequest) {
        this.call = call;
        this.headRequest = headRequest;
        this.webSocket = upgradeRequest;
        activity.at(now);
        headersDeadline = now + headersTimeoutNanos;
    }

    @Override
    public void writeHead(RequestState state, ForwardExchange exchange, UpstreamCluster cluster, AsciiString endpointAuthority,
                          long bodyLength) {
        if (!connection.isOpen()) {
            refused(); // closed since it handed this stream out
            return;
        }
        RequestView view = state.view();
        ForwardingRules rules = state.snapshot().forwarding();
        CharSequence authority = view.authority();
        if (webSocket && !connection.connection().peerConnectProtocol()) {
            UpstreamCall c = call;
            call = null;
            connection.notOpened(this);
            c.onUpgradeUnsupported(); // RFC 8441 3: no extended CONNECT without the upstream's setting
            return;
        }
        Http2RequestBlock b = connection.requestBlock();
        if (webSocket) {
            b.extendedConnect();
        } else {
            b.method(view.method());
        }
        b.scheme(cluster.protocol() == UpstreamCluster.Protocol.H2);
        b.authority(cluster.preserveHost() && authority != null ? authority : endpointAuthority);
        b.path(state.path(), state.pathLength(), view.target(), state.queryStart(), state.queryEnd());
        exchange.offerRequestFields(b, rules);
        CharSequence te = state.header(TE);
        if (te != null && ConnectionOptions.names(te, TRAILERS)) {
            b.add(TE, TRAILERS); // RFC 9113 8.2.2: the one TE value HTTP/2 carries (gRPC needs it)
        }
        ForwardingFields.write(b, state, state.isTls(), rules, authority); // the connection's fact, in ClientInfo
        if (!webSocket && (bodyLength > 0 || bodyLength == 0 && b.hadContentLength())) {
            b.contentLength(bodyLength);
        }
        localEnded = bodyLength == 0 && !webSocket; // a tunnel's request side stays open for its bytes
        if (!connection.open(this, localEnded)) {
            refused(); // the connection could not open a stream after all (closing, limit)
        }
    }

    private void refused() {
        UpstreamCall c = call;
        call = null;
        connection.notOpened(this);
        if (c != null) {
            c.onUpstreamRefused();
        }
    }

    @Override
    public boolean writeBody(ByteBuf chunk) {
        if (call == null || slot < 0) {
            chunk.release();
            return true;
        }
        activity.touch();
        connection.connection().writeData(slot, chunk, false);
        connection.flush();
        return slot >= 0 && connection.connection().isWritable(slot);
    }

    @Override
    public void endBody() {
        if (call == null || slot < 0) {
            return;
        }
        endLocal();
    }

    private void endLocal() {
        if (localEnded || slot < 0) {
            return;
        }
        localEnded = true;
        connection.connection().writeData(slot, Unpooled.EMPTY_BUFFER, true);
        connection.flush();
    }

    @Override
    public void readResponse(boolean read) {
        if (call == null) {
            return;
        }
        paused = !read;
        if (read && unconsumed > 0 && slot >= 0) {
            int n = unconsumed;
            unconsumed = 0;
            connection.connection().consumed(slot, n);
            connection.flush();
        }
    }

    @Override
    public void finish() {
        call = null;
        if (webSocket) {
            endLocal(); // the upstream ended (a tunnel, or a refusal) while our side was still open
        }
        connection.recycle(this); // now, or when the slot closes
    }

    @Override
    public void abandon() {
        call = null;
        connection.notOpened(this);
    }

    @Override
    public void close() {
        call = null;
        if (!wasOpened) {
            connection.notOpened(this);
            return;
        }
        if (slot >= 0) {
            connection.reset(this, Http2ErrorCodes.CANCEL);
        }
        connection.recycle(this);
    }

    @Override
    public void closeAfterFlush() {
        if (!webSocket || slot < 0) {
            close();
            return;
        }
        call = null;
        lingering = true;
        activity.touch();
        endLocal(); // the client left the tunnel: what it sent goes first, then END_STREAM; the upstream ends its side
        connection.recycle(this); // when the slot closes
    }

    // ---- from the connection

    /** A decoded field block: the response head (interim or final) or, with {@code trailers}, the trailers. */
    void onHeaders(boolean endStream, boolean trailers) {
        UpstreamCall c = call;
        if (c == null) {
            return;
        }
        activity.touch();
        if (trailers) {
            c.onTrailers(fields);
            end(c);
            return;
        }
        if (!fields.endHead(endStream, headRequest) || fields.isInterim() && endStream) {
            fail(c); // no valid :status, or an interim head that ends the stream (RFC 9113 8.1)
            return;
        }
        if (fields.isInterim()) {
            connection.connection().interim(slot);
            c.onInterim(fields);
            return;
        }
        headDone = true;
        headersDeadline = 0;
        if (!webSocket && fields.hasBody() && fields.contentLength() >= 0) {
            connection.connection().expectLength(slot, fields.contentLength()); // section 8.1.1
        }
        int g = generation;
        c.onResponseHead(fields);
        if (endStream && generation == g && call != null) {
            end(c);
        }
    }

    /** A malformed response: the stream is reset (PROTOCOL_ERROR) and the call fails as for an invalid response. */
    private void fail(UpstreamCall c) {
        call = null;
        connection.reset(this, Http2ErrorCodes.PROTOCOL_ERROR);
        int g = generation;
        c.onUpstreamError(); // closes its stream: already reset
        if (generation == g) {
            connection.recycle(this);
        }
    }

    void onData(ByteBuf buf, int index, int length, boolean endStream) {
        UpstreamCall c = call;
        int s = slot;
        if (c == null || !headDone) {
            connection.connection().consumed(s, length);
            return;
        }
        activity.touch();
        int g = generation;
        if (length > 0) {
            c.onResponseBody(buf.retainedSlice(index, length));
            if (generation != g || call == null) {
                return; // the call ended the stream meanwhile (its slot's bytes went back with it)
            }
        }
        if (paused) {
            unconsumed += length;
        } else {
            connection.connection().consumed(s, length);
        }
        if (endStream) {
            end(c);
        }
    }

    private void end(UpstreamCall c) {
        call = null;
        c.onResponseEnd(); // the call finishes the stream (or closes it, its request still under way)
    }

    /**
     * The codec freed the stream's slot: both sides ended it (a clean end was already reported),
     * the upstream reset it, the connection ended, or we reset it for a protocol error ({@code local}).
     */
    void onClosed(long errorCode, boolean local, boolean aboveGoAway) {
        slot = -1;
        UpstreamCall c = call;
        call = null;
        if (c != null) {
            int g = generation;
            if (local && errorCode != Http2ErrorCodes.CANCEL) {
                c.onUpstreamError(); // a malformed response (bad DATA length, window overrun, a bad field block)
            } else if (!headDone && (aboveGoAway || errorCode == Http2ErrorCodes.REFUSED_STREAM)) {
                c.onUpstreamRefused(); // RFC 9113 8.7: the upstream did not process it, a retry is safe
            } else {
                c.onUpstreamClosed();
            }
            if (generation != g) {
                return;
            }
        }
        connection.recycle(this);
    }

    void onWritabilityChanged(boolean writable) {
        UpstreamCall c = call;
        if (c != null) {
            c.upstreamWritable(writable);
        }
    }

    void flushClient() {
        UpstreamCall c = call;
        if (c != null) {
            c.flushClient();
        }
    }

    /** The connection's sweep: response-headers and idle timeouts of this stream. */
    void sweep(long now, long idleNanos) {
        UpstreamCall c = call;
        long idle = activity.idleAt(now);
        if (c == null) {
            if (lingering && slot >= 0 && idle >= idleNanos) {
                lingering = false;
                connection.reset(this, Http2ErrorCodes.CANCEL); // the upstream never ended its side of the tunnel
                connection.recycle(this);
            }
            return;
        }
        if (headersDeadline != 0 && now - headersDeadline >= 0) {
            headersDeadline = 0;
            c.onHeadersTimeout();
        } else if (headersDeadline == 0 && idle >= idleNanos) {
            c.onIdleTimeout();
        }
    }
}
