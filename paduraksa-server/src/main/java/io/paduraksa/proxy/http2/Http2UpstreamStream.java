package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.proxy.ConnectionOptions;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.paduraksa.proxy.UpstreamCall;
import io.paduraksa.proxy.UpstreamStream;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * One forwarded request as a stream of an {@link Http2UpstreamHandler} connection. The request
 * head becomes an HTTP/2 header block (the connection's {@link Http2RequestHeaders}): {@code :method},
 * {@code :scheme} (the upstream's: https for h2, http for h2c), {@code :authority} (the client's when
 * the cluster preserves the host, else the destination's), {@code :path} from the NORMALISED path and
 * the client's query, then the client's surviving fields (lower case, no connection-specific ones),
 * {@code te: trailers} when the client's TE asked for trailers, and the forwarding fields
 * ({@link ForwardingFields}, shared with HTTP/1.1). The response comes back as HEADERS, DATA and
 * trailing HEADERS; while the client cannot take more, DATA is not consumed, so the upstream's
 * flow-control window closes (HTTP/2 flow control is the back-pressure).
 *
 * <p>One object per request (not pooled), on the connection's event loop.
 */
public final class Http2UpstreamStream implements UpstreamStream {
    private static final AsciiString HTTPS = AsciiString.cached("https");
    private static final AsciiString HTTP = AsciiString.cached("http");
    private static final AsciiString TE = AsciiString.cached("te");
    private static final AsciiString TRAILERS = AsciiString.cached("trailers");

    private final Http2UpstreamHandler connection;
    private final Http2ResponseFields fields = new Http2ResponseFields();
    private UpstreamCall call;
    private int id = -1;
    private boolean headRequest;
    private boolean headDone;
    private boolean paused;
    private int unconsumed;
    private long resetCode = -1;
    private long headersDeadline;
    private long lastActivity;

    Http2UpstreamStream(Http2UpstreamHandler connection) {
        this.connection = connection;
    }

    int id() {
        return id;
    }

    void id(int id) {
        this.id = id;
    }

    boolean isActive() {
        return call != null;
    }

    // ---- UpstreamStream, from the call

    @Override
    public void begin(UpstreamCall call, long headersTimeoutNanos, boolean headRequest, boolean upgradeRequest) {
        this.call = call;
        this.headRequest = headRequest;
        long now = System.nanoTime();
        lastActivity = now;
        headersDeadline = now + headersTimeoutNanos;
    }

    @Override
    public void writeHead(RequestState state, ForwardExchange exchange, UpstreamCluster cluster, AsciiString endpointAuthority,
                          long bodyLength) {
        RequestView view = state.view();
        ForwardingRules rules = state.snapshot().forwarding();
        CharSequence authority = view.authority();
        Http2RequestHeaders h = connection.requestHeaders();
        h.method(AsciiString.of(view.method()));
        h.scheme(cluster.protocol() == UpstreamCluster.Protocol.H2 ? HTTPS : HTTP);
        h.authority(cluster.preserveHost() && authority != null ? AsciiString.of(authority) : endpointAuthority);
        h.path(path(state, view));
        exchange.offerRequestFields(h, rules);
        CharSequence te = state.header(TE);
        if (te != null && ConnectionOptions.names(te, TRAILERS)) {
            h.add(TE, TRAILERS); // RFC 9113 8.2.2: the one TE value HTTP/2 carries (gRPC needs it)
        }
        ForwardingFields.write(h, state, state.isTls(), rules, authority); // the connection's fact, in ClientInfo
        if (bodyLength > 0) {
            h.contentLength(bodyLength);
        }
        boolean opened = connection.open(this, h, bodyLength == 0);
        h.clear(); // encoded by now (see Http2RequestHeaders)
        if (!opened && call != null) {
            UpstreamCall c = call;
            call = null;
            c.onUpstreamRefused(); // the connection could not open a stream after all (closing, limit)
        }
    }

    /** {@code /normalised/path[?query]} as the gate judged it. */
    private static AsciiString path(RequestState state, RequestView view) {
        int query = state.queryStart();
        int pathLength = state.pathLength();
        int length = pathLength + (query >= 0 ? 1 + state.queryEnd() - query : 0);
        byte[] b = new byte[length];
        System.arraycopy(state.path(), 0, b, 0, pathLength);
        if (query >= 0) {
            b[pathLength] = '?';
            CharSequence target = view.target();
            for (int i = query, j = pathLength + 1; i < state.queryEnd(); i++, j++) {
                b[j] = (byte) target.charAt(i);
            }
        }
        return new AsciiString(b, false);
    }

    @Override
    public boolean writeBody(ByteBuf chunk) {
        if (call == null || id < 0) {
            chunk.release();
            return true;
        }
        lastActivity = System.nanoTime();
        ChannelHandlerContext ctx = connection.context();
        connection.encoder().writeData(ctx, id, chunk, 0, false, ctx.voidPromise());
        connection.flushAll();
        return isWritable();
    }

    boolean isWritable() {
        Http2Stream s = connection.connection().stream(id);
        return s != null && connection.encoder().flowController().isWritable(s) && connection.context().channel().isWritable();
    }

    @Override
    public void endBody() {
        if (call == null || id < 0) {
            return;
        }
        ChannelHandlerContext ctx = connection.context();
        connection.encoder().writeData(ctx, id, Unpooled.EMPTY_BUFFER, 0, true, ctx.voidPromise());
        connection.flushAll();
    }

    @Override
    public void readResponse(boolean read) {
        paused = !read;
        if (read && unconsumed > 0) {
            int n = unconsumed;
            unconsumed = 0;
            Http2Stream s = connection.connection().stream(id);
            if (s != null) {
                try {
                    connection.decoder().flowController().consumeBytes(s, n);
                    connection.flushAll();
                } catch (Http2Exception e) {
                    connection.context().fireExceptionCaught(e);
                }
            }
        }
    }

    @Override
    public void finish() {
        call = null;
        fields.clear();
    }

    @Override
    public void abandon() {
        call = null;
        connection.abandoned();
    }

    @Override
    public void close() {
        call = null;
        fields.clear();
        if (id > 0 && connection.connection().stream(id) != null) {
            ChannelHandlerContext ctx = connection.context();
            connection.resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.voidPromise());
            connection.flushAll();
        }
    }

    @Override
    public void closeAfterFlush() {
        close(); // no tunnels over HTTP/2 upstreams
    }

    // ---- from the connection

    void onHeaders(Http2Headers headers, boolean endStream) {
        UpstreamCall c = call;
        if (c == null) {
            return;
        }
        lastActivity = System.nanoTime();
        if (headDone) {
            fields.trailers(headers);
            c.onTrailers(fields);
            if (endStream) {
                end(c);
            }
            return;
        }
        if (!fields.head(headers, endStream, headRequest)) {
            call = null;
            connection.resetStream(connection.context(), id, Http2Error.PROTOCOL_ERROR.code(), connection.context().voidPromise());
            c.onUpstreamError();
            return;
        }
        if (fields.isInterim()) {
            c.onInterim(fields);
            return;
        }
        headDone = true;
        headersDeadline = 0;
        c.onResponseHead(fields);
        if (endStream && call != null) {
            end(c);
        }
    }

    int onData(ByteBuf data, int padding, boolean endStream) {
        int n = data.readableBytes();
        UpstreamCall c = call;
        if (c == null || !headDone) {
            return n + padding;
        }
        lastActivity = System.nanoTime();
        if (n > 0) {
            c.onResponseBody(data.retain());
        }
        if (endStream && call != null) {
            end(c);
            return n + padding;
        }
        if (paused) {
            unconsumed += n;
            return padding;
        }
        return n + padding;
    }

    private void end(UpstreamCall c) {
        c.onResponseEnd();
        fields.clear();
    }

    void onReset(long errorCode) {
        resetCode = errorCode;
    }

    /** Netty closed the stream: a clean end was already reported; anything else fails the call. */
    void onClosed(boolean unprocessed) {
        UpstreamCall c = call;
        call = null;
        fields.clear();
        if (c == null) {
            return;
        }
        if (!headDone && (unprocessed || resetCode == Http2Error.REFUSED_STREAM.code())) {
            c.onUpstreamRefused(); // RFC 9113 8.7: the upstream did not process it, a retry is safe
        } else {
            c.onUpstreamClosed();
        }
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
        if (c == null) {
            return;
        }
        if (headersDeadline != 0 && now - headersDeadline >= 0) {
            headersDeadline = 0;
            c.onHeadersTimeout();
        } else if (headersDeadline == 0 && now - lastActivity >= idleNanos) {
            c.onIdleTimeout();
        }
    }
}
