package io.paduraksa.proxy.cache;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardCall;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;
import java.nio.charset.StandardCharsets;

/**
 * The client side of a background refresh (stale-while-revalidate): the request that found its
 * entry stale is answered from the stale copy at once, and this copy of it goes upstream behind a
 * {@link CacheFill}, which stores the fresh response. Nobody reads its answer: the head and body
 * are dropped as they come, an upstream failure leaves the stale copy in place until its window
 * ends.
 *
 * <p>The copy is taken before the client is answered, while its head is still held: the fields
 * that go upstream (as the client's protocol offers them under the snapshot's forwarding rules),
 * plus the few the forwarder reads from the request without forwarding them
 * ({@code X-Forwarded-For} from a trusted proxy, the trace and request-id fields, {@code Cookie}
 * for affinity), and the gate's decision ({@link RequestState#detachedCopy}). One per refresh, at
 * most one refresh per key at a time: allocates, off the hit path.
 */
final class Revalidation implements ForwardExchange, FieldSink {
    private static final AsciiString XFF = AsciiString.cached("x-forwarded-for");
    private static final AsciiString TRACEPARENT = AsciiString.cached("traceparent");
    private static final AsciiString TRACESTATE = AsciiString.cached("tracestate");
    private static final AsciiString COOKIE = AsciiString.cached("cookie");

    private final StaticRequestView view = new StaticRequestView();
    private final EventLoop loop;
    private RequestState state;
    /** The first {@code forwarded} fields of the view go upstream; the rest are read only. */
    private int forwarded;
    private boolean overflow;
    private boolean ended;

    private Revalidation(EventLoop loop) {
        this.loop = loop;
    }

    /**
     * A copy of the client's request, or null when it has more fields than a copy holds
     * ({@link StaticRequestView#MAX_HEADERS}): then the request refreshes in the foreground.
     */
    static Revalidation capture(RequestState client, ForwardExchange exchange) {
        Revalidation r = new Revalidation(exchange.eventLoop());
        RequestView v = client.view();
        r.view.client(v.client()).method(v.method()).target(v.target()).authority(v.authority());
        ForwardingRules rules = client.snapshot().forwarding();
        exchange.offerRequestFields(r, rules);
        r.forwarded = r.view.headerCount();
        r.alsoRead(client, XFF);
        r.alsoRead(client, TRACEPARENT);
        r.alsoRead(client, TRACESTATE);
        r.alsoRead(client, COOKIE);
        if (rules.requestIdHeader() != null) {
            r.alsoRead(client, rules.requestIdHeader());
        }
        if (r.overflow) {
            return null;
        }
        r.state = client.detachedCopy(r.view);
        return r;
    }

    /** The copy's request state, for the forwarder. */
    RequestState state() {
        return state;
    }

    private void alsoRead(RequestState client, AsciiString lowerName) {
        if (view.header(lowerName) != null) {
            return;
        }
        CharSequence value = client.header(lowerName);
        if (value != null) {
            add(lowerName, value);
        }
    }

    private void add(CharSequence lowerName, CharSequence value) {
        if (view.headerCount() == StaticRequestView.MAX_HEADERS) {
            overflow = true;
            return;
        }
        view.header(lowerName, value);
    }

    // ---- FieldSink: the client's fields as its protocol offers them, copied ----

    @Override
    public void line(ByteBuf head, int nameStart, int nameEnd, int valueStart, int valueEnd) {
        add(AsciiString.of(head.toString(nameStart, nameEnd - nameStart, StandardCharsets.ISO_8859_1)).toLowerCase(),
                head.toString(valueStart, valueEnd - valueStart, StandardCharsets.ISO_8859_1));
    }

    @Override
    public void field(CharSequence name, CharSequence value) {
        add(name, value);
    }

    @Override
    public void name(AsciiString http1Name, AsciiString lowerName) {
        throw new UnsupportedOperationException("a client offers its own fields only");
    }

    @Override
    public void value(CharSequence text) {
        throw new UnsupportedOperationException("a client offers its own fields only");
    }

    @Override
    public void value(byte[] bytes, int from, int length) {
        throw new UnsupportedOperationException("a client offers its own fields only");
    }

    @Override
    public void end() {
        throw new UnsupportedOperationException("a client offers its own fields only");
    }

    // ---- ForwardExchange: a client that only listens for the end ----

    @Override
    public void offerRequestFields(FieldSink sink, ForwardingRules rules) {
        for (int i = 0; i < forwarded; i++) {
            sink.field(view.headerName(i), view.headerValue(i));
        }
    }

    @Override
    public void answer(PrecomputedResponse response) {
        ended = true; // the forwarder's own 502/503/504: the stale copy stays until its window ends
    }

    @Override
    public boolean isOpen() {
        return !ended;
    }

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public long requestBodyLength() {
        return 0;
    }

    @Override
    public boolean isUpgradeRequest() {
        return false;
    }

    @Override
    public void attach(ForwardCall call) {
        // nobody goes away: the refresh ends with the upstream's response
    }

    @Override
    public void requestBodyReady() {
        // never called: no body
    }

    @Override
    public void pauseRequestBody(boolean pause) {
        // no body
    }

    @Override
    public void interimResponse(ResponseHead head) {
        // dropped
    }

    @Override
    public void responseHead(ResponseHead head, ResponseHeaderRules rules, byte[] extraLine) {
        // dropped: the fill in front has taken its copy
    }

    @Override
    public void upgraded() {
        ended = true; // never asked for
    }

    @Override
    public void responseBody(ByteBuf chunk) {
        chunk.release();
    }

    @Override
    public boolean isWritable() {
        return true;
    }

    @Override
    public void flush() {
        // nothing is written
    }

    @Override
    public void responseEnd(ResponseTrailers trailers) {
        ended = true;
    }

    @Override
    public void abort() {
        ended = true;
    }
}
