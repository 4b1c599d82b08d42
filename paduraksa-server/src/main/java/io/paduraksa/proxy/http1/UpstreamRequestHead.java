package io.paduraksa.proxy.http1;

import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.http1.Http1LineRun;
import io.paduraksa.respond.AsciiNumbers;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.UpstreamCluster;
import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes the HTTP/1.1 request head an upstream receives: the request line with the NORMALISED path
 * (the path routes and policies judged, so the upstream cannot read a different one) and the
 * client's query, Host, the client's surviving fields, the forwarding fields from the gate's client
 * IP ({@link ForwardingFields}), and the body framing. An HTTP/1.1 client's fields are copied as the
 * raw bytes of their lines; an HTTP/2 client's are written {@code name: value}, its {@code cookie}
 * fields joined into one line after the others (RFC 9113 8.2.3). Per request on the event loop;
 * allocates nothing (every field goes through a per-thread line writer, {@link Lines}).
 */
final class UpstreamRequestHead {
    private static final byte[] HTTP_1_1_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n'};
    private static final byte[] HOST = ascii("Host: ");
    private static final byte[] CONTENT_LENGTH = ascii("Content-Length: ");
    private static final byte[] CHUNKED = ascii("Transfer-Encoding: chunked\r\n");
    /** RFC 6455 4.1: the upgrade fields are hop-by-hop; a forwarded WebSocket handshake carries them again. */
    private static final byte[] UPGRADE_WEBSOCKET = ascii("Connection: Upgrade\r\nUpgrade: websocket\r\n");
    private static final byte[] COOKIE_LINE = ascii("cookie: ");
    private static final AsciiString COOKIE = AsciiString.cached("cookie");
    private static final int CRLF = ('\r' << 8) | '\n';
    private static final int COLON_SPACE = (':' << 8) | ' ';
    private static final int SEMICOLON_SPACE = (';' << 8) | ' ';
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
        // a browser's fields are about 1 KB (951 B reach the e2e upstream); a head that outgrows the
        // buffer is copied into a bigger one
        return 2048 + state.pathLength() + state.view().target().length();
    }

    static void write(ByteBuf out, RequestState state, ForwardExchange exchange, UpstreamCluster cluster,
                      AsciiString endpointAuthority, long bodyLength) {
        ForwardingRules rules = state.snapshot().forwarding();
        RequestView view = state.view();
        TextBytes.write(out, view.method());
        out.writeByte(' ');
        out.writeBytes(state.path(), 0, state.pathLength());
        if (state.queryStart() >= 0) {
            out.writeByte('?');
            TextBytes.write(out, view.target(), state.queryStart(), state.queryEnd());
        }
        out.writeBytes(HTTP_1_1_CRLF);
        CharSequence authority = view.authority();
        out.writeBytes(HOST);
        TextBytes.write(out, cluster.preserveHost() && authority != null ? authority : endpointAuthority);
        out.writeShort(CRLF);
        Lines lines = LINES.get();
        lines.begin(out);
        exchange.offerRequestFields(lines, rules);
        lines.writeCookies();
        if (exchange.isUpgradeRequest()) {
            out.writeBytes(UPGRADE_WEBSOCKET);
        }
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

    /**
     * Every field as a {@code Name: value\r\n} line; one per thread, pointed at the head being
     * written. A client's field lines that lie one after the other in its bytes, each ended by CRLF
     * (an HTTP/1.1 head's lines, an HTTP/2 request's stored fields), are copied as one run when the
     * first line that does not continue the run, or any other field, comes. An HTTP/2 client's
     * {@code cookie} values wait in {@code cookies} (references to its decoded, immutable values) for
     * {@link #writeCookies}.
     */
    static final class Lines implements FieldSink {
        ByteBuf out;
        private CharSequence[] cookies = new CharSequence[4];
        private int cookieCount;
        private final Http1LineRun run = new Http1LineRun();

        void begin(ByteBuf out) {
            this.out = out;
            run.reset(); // a head written before may have ended by an exception
        }

        @Override
        public void line(ByteBuf head, int nameStart, int nameEnd, int valueStart, int valueEnd) {
            run.add(out, head, nameStart, valueEnd); // the client's bytes, as they came
        }

        @Override
        public void field(CharSequence name, CharSequence value) {
            run.flush(out);
            if (COOKIE.contentEqualsIgnoreCase(name)) {
                if (cookieCount == cookies.length) {
                    cookies = Arrays.copyOf(cookies, cookieCount * 2);
                }
                cookies[cookieCount++] = value;
                return;
            }
            TextBytes.write(out, name);
            out.writeShort(COLON_SPACE);
            TextBytes.write(out, value);
            out.writeShort(CRLF);
        }

        /** Ends the client's fields: the lines not yet copied, then the cookie fields an HTTP/2 client split, as one line in the order sent (forgets them). */
        void writeCookies() {
            run.flush(out);
            int n = cookieCount;
            if (n == 0) {
                return;
            }
            out.writeBytes(COOKIE_LINE);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    out.writeShort(SEMICOLON_SPACE);
                }
                TextBytes.write(out, cookies[i]);
                cookies[i] = null;
            }
            cookieCount = 0;
            out.writeShort(CRLF);
        }

        @Override
        public void name(AsciiString http1Name, AsciiString lowerName) {
            run.flush(out);
            out.writeBytes(http1Name.array(), http1Name.arrayOffset(), http1Name.length());
            out.writeShort(COLON_SPACE);
        }

        @Override
        public void value(CharSequence text) {
            TextBytes.write(out, text);
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

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
