package io.paduraksa.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.net.IpParser;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * Writes the HTTP/1.1 request head an upstream receives: the request line with the NORMALISED path
 * (the path routes and policies judged, so the upstream cannot read a different one) and the
 * client's query, Host, the client's surviving fields, the forwarding fields from the gate's client
 * IP, and the body framing. Per request on the event loop; allocates nothing (the IP text and the
 * request id go through a per-thread scratch array).
 */
final class UpstreamRequestHead {
    private static final byte[] HTTP_1_1_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n'};
    private static final byte[] HOST = ascii("Host: ");
    private static final byte[] XFF = ascii("X-Forwarded-For: ");
    private static final byte[] XFP_HTTPS = ascii("X-Forwarded-Proto: https\r\n");
    private static final byte[] XFP_HTTP = ascii("X-Forwarded-Proto: http\r\n");
    private static final byte[] XFH = ascii("X-Forwarded-Host: ");
    private static final byte[] XRI = ascii("X-Real-IP: ");
    private static final byte[] CONTENT_LENGTH = ascii("Content-Length: ");
    private static final byte[] CHUNKED = ascii("Transfer-Encoding: chunked\r\n");
    private static final byte[] COMMA_SPACE = {',', ' '};
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    private static final int CRLF = ('\r' << 8) | '\n';
    /** Longest client-supplied request id that is propagated. */
    static final int MAX_REQUEST_ID = 128;
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[IpParser.MAX_TEXT_LENGTH + 1];
        }
    };

    private UpstreamRequestHead() {
    }

    /** A first guess at the head's size, so that most heads fit the first buffer. */
    static int estimate(RequestState state) {
        return 512 + state.pathLength() + state.view().target().length();
    }

    static void write(ByteBuf out, RequestState state, ForwardExchange exchange, UpstreamCluster cluster,
                      AsciiString endpointAuthority, long bodyLength) {
        ForwardingRules rules = state.snapshot().forwarding();
        RequestView view = state.view();
        ByteBufUtil.writeAscii(out, view.method());
        out.writeByte(' ');
        out.writeBytes(state.path(), 0, state.pathLength());
        if (state.queryStart() >= 0) {
            out.writeByte('?');
            writeRange(out, view.target(), state.queryStart(), state.queryEnd());
        }
        out.writeBytes(HTTP_1_1_CRLF);
        CharSequence authority = view.authority();
        out.writeBytes(HOST);
        ByteBufUtil.writeAscii(out, cluster.preserveHost() && authority != null ? authority : endpointAuthority);
        out.writeShort(CRLF);
        exchange.writeRequestHeaders(out, rules);
        writeForwarding(out, state, exchange, rules, authority);
        if (bodyLength > 0) {
            out.writeBytes(CONTENT_LENGTH);
            writeDecimal(out, bodyLength);
            out.writeShort(CRLF);
        } else if (bodyLength < 0) {
            out.writeBytes(CHUNKED);
        }
        out.writeShort(CRLF);
    }

    private static void writeForwarding(ByteBuf out, RequestState state, ForwardExchange exchange, ForwardingRules rules,
                                        CharSequence authority) {
        byte[] scratch = SCRATCH.get();
        int ipLength = IpParser.formatTo(state.clientIpHigh(), state.clientIpLow(), scratch);
        if (rules.xForwardedFor() != ForwardingRules.XForwardedFor.OFF) {
            out.writeBytes(XFF);
            CharSequence earlier = rules.xForwardedFor() == ForwardingRules.XForwardedFor.APPEND
                    ? state.header(X_FORWARDED_FOR) : null;
            if (earlier != null && earlier.length() > 0) {
                ByteBufUtil.writeAscii(out, earlier);
                out.writeBytes(COMMA_SPACE);
            }
            out.writeBytes(scratch, 0, ipLength).writeShort(CRLF);
        }
        if (rules.xRealIp()) {
            out.writeBytes(XRI).writeBytes(scratch, 0, ipLength).writeShort(CRLF);
        }
        if (rules.xForwardedProto()) {
            out.writeBytes(exchange.isTls() ? XFP_HTTPS : XFP_HTTP);
        }
        if (rules.xForwardedHost() && authority != null) {
            out.writeBytes(XFH);
            ByteBufUtil.writeAscii(out, authority);
            out.writeShort(CRLF);
        }
        writeRequestId(out, state, rules, scratch);
        out.writeBytes(rules.viaLine());
    }

    /**
     * The request id: the client's own when propagation is on and it is usable, else ours (the
     * gate's 64-bit id as 16 hex digits, the same as in error pages). The client's field never
     * passes through {@code writeRequestHeaders}: {@link ForwardingRules#isRemovedRequestHeader}
     * removes it in both modes, so there is exactly one.
     */
    private static void writeRequestId(ByteBuf out, RequestState state, ForwardingRules rules, byte[] scratch) {
        AsciiString name = rules.requestIdHeader();
        if (name == null) {
            return;
        }
        CharSequence incoming = rules.propagateRequestId() ? state.header(name) : null;
        if (incoming != null && !isUsableId(incoming)) {
            incoming = null;
        }
        out.writeBytes(name.array(), name.arrayOffset(), name.length());
        out.writeByte(':').writeByte(' ');
        if (incoming != null) {
            ByteBufUtil.writeAscii(out, incoming);
        } else {
            long id = state.requestId();
            for (int i = 0; i < 16; i++) {
                int d = (int) (id >>> (60 - 4 * i)) & 0xF;
                scratch[i] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
            }
            out.writeBytes(scratch, 0, 16);
        }
        out.writeShort(CRLF);
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

    private static void writeRange(ByteBuf out, CharSequence text, int from, int to) {
        for (int i = from; i < to; i++) {
            out.writeByte(text.charAt(i));
        }
    }

    static void writeDecimal(ByteBuf out, long value) {
        if (value >= 10) {
            writeDecimal(out, value / 10);
        }
        out.writeByte((int) ('0' + value % 10));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
