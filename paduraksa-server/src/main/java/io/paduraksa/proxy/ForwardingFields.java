package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.gate.RequestState;
import io.paduraksa.net.IpParser;
import io.paduraksa.policy.UpstreamFields;
import io.paduraksa.respond.AsciiNumbers;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.ForwardingRules;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The fields the forwarder adds to every upstream request, whatever protocol carries it:
 * X-Forwarded-For (replaced or appended), X-Real-IP, X-Forwarded-Proto, X-Forwarded-Host, the
 * request id, Via and W3C {@code traceparent}/{@code tracestate}, from the gate's client IP and the snapshot's {@link ForwardingRules}. Per
 * request on the event loop; allocates nothing itself (the IP text and the request id go through a
 * per-thread scratch array), what the sink does with the parts is the sink's cost.
 */
public final class ForwardingFields {
    private static final AsciiString XFF = AsciiString.cached("X-Forwarded-For");
    private static final AsciiString XFF_LOWER = AsciiString.cached("x-forwarded-for");
    private static final AsciiString XRI = AsciiString.cached("X-Real-IP");
    private static final AsciiString XRI_LOWER = AsciiString.cached("x-real-ip");
    private static final AsciiString XFP = AsciiString.cached("X-Forwarded-Proto");
    private static final AsciiString XFP_LOWER = AsciiString.cached("x-forwarded-proto");
    private static final AsciiString XFH = AsciiString.cached("X-Forwarded-Host");
    private static final AsciiString XFH_LOWER = AsciiString.cached("x-forwarded-host");
    private static final AsciiString VIA = AsciiString.cached("Via");
    private static final AsciiString VIA_LOWER = AsciiString.cached("via");
    private static final AsciiString HTTPS = AsciiString.cached("https");
    private static final AsciiString HTTP = AsciiString.cached("http");
    private static final AsciiString TRACEPARENT = AsciiString.cached("traceparent");
    private static final AsciiString TRACESTATE = AsciiString.cached("tracestate");
    private static final byte[] COMMA_SPACE = {',', ' '};
    private static final int CRLF = ('\r' << 8) | '\n';
    /** Longest client-supplied request id that is propagated. */
    static final int MAX_REQUEST_ID = 128;
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[Math.max(IpParser.MAX_TEXT_LENGTH + 1, TraceParent.LENGTH)];
        }
    };
    private static final FastThreadLocal<long[]> IDS = new FastThreadLocal<>() {
        @Override
        protected long[] initialValue() {
            return new long[4];
        }
    };

    private ForwardingFields() {
    }

    /**
     * Whether the client's field {@code name} goes on to the upstream as far as {@code rules} say: they
     * do not remove it (hop-by-hop fields, Host, framing, configured removals, identity fields unless
     * they come from a trusted proxy: {@code trustedPeer}). An HTTP/1.1 request also drops what its
     * Connection fields name ({@code Http1FieldSection.isConnectionOption}). Per field; allocates nothing.
     */
    public static boolean isForwarded(CharSequence name, ForwardingRules rules, boolean trustedPeer) {
        return isForwarded(name, rules, trustedPeer, true);
    }

    /**
     * {@link #isForwarded(CharSequence, ForwardingRules, boolean)} for a name of a message whose parser noted
     * that none of its names has a {@code _} ({@code underscores} false), so that it is not searched for one.
     */
    public static boolean isForwarded(CharSequence name, ForwardingRules rules, boolean trustedPeer, boolean underscores) {
        return !rules.isRemovedRequestHeader(name, trustedPeer, underscores);
    }

    /**
     * Puts the forwarding fields into {@code sink}. {@code tls}: the client connection is TLS;
     * {@code authority}: the client's Host or :authority, or null.
     */
    public static void write(FieldSink sink, RequestState state, boolean tls, ForwardingRules rules, CharSequence authority) {
        byte[] scratch = SCRATCH.get();
        int ipLength = IpParser.formatTo(state.clientIpHigh(), state.clientIpLow(), scratch);
        if (rules.xForwardedFor() != ForwardingRules.XForwardedFor.OFF) {
            sink.name(XFF, XFF_LOWER);
            // Appended to only when a trusted proxy sent it: from anyone else the list is the client's
            // own invention, and an upstream reading its first entry would believe it.
            CharSequence earlier = rules.xForwardedFor() == ForwardingRules.XForwardedFor.APPEND && state.isPeerTrustedProxy()
                    ? state.header(XFF_LOWER) : null;
            if (earlier != null && earlier.length() > 0) {
                sink.value(earlier);
                sink.value(COMMA_SPACE, 0, 2);
            }
            sink.value(scratch, 0, ipLength);
            sink.end();
        }
        if (rules.xRealIp()) {
            sink.name(XRI, XRI_LOWER);
            sink.value(scratch, 0, ipLength);
            sink.end();
        }
        if (rules.xForwardedProto()) {
            sink.name(XFP, XFP_LOWER);
            sink.value(tls ? HTTPS : HTTP);
            sink.end();
        }
        if (rules.xForwardedHost() && authority != null) {
            sink.name(XFH, XFH_LOWER);
            sink.value(authority);
            sink.end();
        }
        writeRequestId(sink, state, rules, scratch);
        UpstreamFields extra = state.upstreamFields();
        if (extra != null) {
            // A forward-auth's copied answer headers (the client's own were removed by the rules).
            for (int i = 0; i < extra.size(); i++) {
                sink.name(extra.name(i), extra.lowerName(i));
                sink.value(extra.value(i));
                sink.end();
            }
        }
        AsciiString via = rules.viaValue();
        if (via != null) {
            sink.name(VIA, VIA_LOWER);
            sink.value(via);
            sink.end();
        }
        if (rules.traces()) {
            writeTrace(sink, state, rules, scratch);
        }
    }

    /**
     * W3C Trace Context: a client's valid traceparent is continued (same trace id and flags) with
     * the request id as our span id, the new parent id; its tracestate passes unchanged. Otherwise,
     * when configured, a trace starts with a random 128-bit id. The trace id is kept in the state for
     * the access log. Written as hex from longs: no allocation.
     */
    private static void writeTrace(FieldSink sink, RequestState state, ForwardingRules rules, byte[] scratch) {
        long[] ids = IDS.get();
        CharSequence incoming = rules.propagateTrace() ? state.header(TRACEPARENT) : null;
        boolean continued = incoming != null && TraceParent.parse(incoming, ids);
        long high;
        long low;
        int flags;
        if (continued) {
            high = ids[0];
            low = ids[1];
            flags = (int) ids[3];
        } else if (rules.startTrace()) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            high = random.nextLong();
            low = random.nextLong() | 1; // never the invalid all-zero id
            flags = rules.newTraceFlags();
        } else {
            return;
        }
        long span = state.requestId() == 0 ? 1 : state.requestId();
        state.trace(high, low);
        sink.name(TRACEPARENT, TRACEPARENT);
        sink.value(scratch, 0, TraceParent.write(scratch, 0, high, low, span, flags));
        sink.end();
        CharSequence traceState = continued ? state.header(TRACESTATE) : null;
        if (traceState != null && TraceParent.isUsableState(traceState)) {
            sink.name(TRACESTATE, TRACESTATE);
            sink.value(traceState);
            sink.end();
        }
    }

    /**
     * The request id: the client's own when propagation is on and it is usable, else ours (the
     * gate's 64-bit id as 16 hex digits, the same as in error pages). While the id is forwarded the
     * client's field never passes through the exchange's header copy: {@link ForwardingRules#isRemovedRequestHeader}
     * removes it whether propagation is on or off, so there is exactly one. With {@code request_id.forward} off
     * nothing is written here and the client's field, if any, passes as any other field.
     */
    private static void writeRequestId(FieldSink sink, RequestState state, ForwardingRules rules, byte[] scratch) {
        if (!rules.forwardRequestId()) {
            return;
        }
        AsciiString name = rules.requestIdHeader();
        CharSequence incoming = propagatedId(state, rules);
        sink.name(name, name);
        if (incoming != null) {
            sink.value(incoming);
        } else {
            AsciiNumbers.writeHex16(scratch, 0, state.requestId());
            sink.value(scratch, 0, 16);
        }
        sink.end();
    }

    /** The client's request id when propagation is on and it is usable, else null (ours is sent). */
    public static CharSequence propagatedId(RequestState state, ForwardingRules rules) {
        CharSequence incoming = rules.propagateRequestId() ? state.header(rules.requestIdHeader()) : null;
        return incoming != null && isUsableId(incoming) ? incoming : null;
    }

    /**
     * Writes the request id a forwarded response echoes ({@code forwarding.request_id.echo}) as an
     * HTTP/1.1 line: the id the upstream got (the client's propagated one, or ours as 16 hex digits).
     * Per request on the event loop; allocates nothing.
     */
    public static void writeEchoLine(ByteBuf out, RequestState state, ForwardingRules rules) {
        out.writeBytes(rules.requestIdLinePrefix());
        CharSequence incoming = propagatedId(state, rules);
        if (incoming != null) {
            ByteBufUtil.writeAscii(out, incoming);
        } else {
            PrecomputedResponse.writeHex(out, state.requestId());
        }
        out.writeShort(CRLF);
    }

    /** The longest line {@link #writeEchoLine} writes. */
    public static int maxEchoLineLength(ForwardingRules rules) {
        return rules.requestIdLinePrefix().length + MAX_REQUEST_ID + 2;
    }

    /** As {@link #writeEchoLine}, as an HTTP/3 field value (Netty's QPACK headers); allocates the value. */
    public static AsciiString echoValue(RequestState state, ForwardingRules rules) {
        CharSequence incoming = propagatedId(state, rules);
        if (incoming != null) {
            return AsciiString.of(incoming);
        }
        byte[] hex = new byte[16];
        long id = state.requestId();
        for (int i = 0; i < 16; i++) {
            int d = (int) (id >>> (60 - 4 * i)) & 0xF;
            hex[i] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
        }
        return new AsciiString(hex, false);
    }

    /** A propagated id: 1 to 128 visible ASCII characters, nothing that could break the head. */
    static boolean isUsableId(CharSequence id) {
        int n = id.length();
        if (n == 0 || n > MAX_REQUEST_ID) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            if (c <= ' ' || c >= 0x7F) {
                return false;
            }
        }
        return true;
    }
}
