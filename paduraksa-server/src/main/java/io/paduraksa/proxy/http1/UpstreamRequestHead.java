package io.paduraksa.proxy.http1;

import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.respond.AsciiNumbers;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * Writes the HTTP/1.1 request head an upstream receives: the request line with the NORMALISED path
 * (the path routes and policies judged, so the upstream cannot read a different one) and the
 * client's query, Host, the client's surviving fields, the forwarding fields from the gate's client
 * IP ({@link ForwardingFields}), and the body framing. Per request on the event loop; allocates
 * nothing (the forwarding fields go through a per-thread line writer).
 */
final class UpstreamRequestHead {
    private static final byte[] HTTP_1_1_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n'};
    private static final byte[] HOST = ascii("Host: ");
    private static final byte[] CONTENT_LENGTH = ascii("Content-Length: ");
    private static final byte[] CHUNKED = ascii("Transfer-Encoding: chunked\r\n");
    /** RFC 6455 4.1: the upgrade fields are hop-by-hop; a forwarded WebSocket handshake carries them again. */
    private static final byte[] UPGRADE_WEBSOCKET = ascii("Connection: Upgrade\r\nUpgrade: websocket\r\n");
    private static final int CRLF = ('\r' << 8) | '\n';
    private static final FastThreadLocal<Lines> LINES = new FastThreadLocal<>() {
        @Override
        protected Lines initialValue() {
            return new Lines();
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
        if (exchange.isUpgradeRequest()) {
            out.writeBytes(UPGRADE_WEBSOCKET);
        }
        Lines lines = LINES.get();
        lines.out = out;
        ForwardingFields.write(lines, state, state.isTls(), rules, authority); // the connection's fact, in ClientInfo
        lines.out = null;
        if (bodyLength > 0) {
            out.writeBytes(CONTENT_LENGTH);
            AsciiNumbers.writeDecimal(out, bodyLength);
            out.writeShort(CRLF);
        } else if (bodyLength < 0) {
            out.writeBytes(CHUNKED);
        }
        out.writeShort(CRLF);
    }

    /** Forwarding fields as {@code Name: value\r\n} lines; one per thread, pointed at the head being written. */
    private static final class Lines implements FieldSink {
        ByteBuf out;

        @Override
        public void name(AsciiString http1Name, AsciiString lowerName) {
            out.writeBytes(http1Name.array(), http1Name.arrayOffset(), http1Name.length());
            out.writeByte(':').writeByte(' ');
        }

        @Override
        public void value(CharSequence text) {
            ByteBufUtil.writeAscii(out, text);
        }

        @Override
        public void value(byte[] bytes, int from, int length) {
            out.writeBytes(bytes, from, length);
        }

        @Override
        public void end() {
            out.writeShort(CRLF);
        }
    }

    private static void writeRange(ByteBuf out, CharSequence text, int from, int to) {
        for (int i = from; i < to; i++) {
            out.writeByte(text.charAt(i));
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
