package io.paduraksa.server.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.paduraksa.proxy.ResponseTrailers;
import io.paduraksa.text.TextBytes;

/** Number and trailer writing for forwarded HTTP/1.1 responses; allocates nothing. */
final class Http1ResponseWriting {
    private static final int CRLF = ('\r' << 8) | '\n';
    /** Trailer fields a client must not receive: framing, routing and authentication (RFC 9110 6.5.1). */
    private static final AsciiString[] FORBIDDEN_TRAILERS = {
        AsciiString.cached("content-length"), AsciiString.cached("transfer-encoding"), AsciiString.cached("host"),
        AsciiString.cached("connection"), AsciiString.cached("keep-alive"), AsciiString.cached("te"),
        AsciiString.cached("trailer"), AsciiString.cached("upgrade"), AsciiString.cached("set-cookie"),
        AsciiString.cached("content-type"), AsciiString.cached("content-encoding"), AsciiString.cached("cache-control"),
    };

    private Http1ResponseWriting() {
    }

    static void writeStatus(ByteBuf out, int status) {
        out.writeByte('0' + status / 100).writeByte('0' + status / 10 % 10).writeByte('0' + status % 10);
    }

    static void writeTrailers(ByteBuf out, ResponseTrailers trailers) {
        for (int i = 0, n = trailers.count(); i < n; i++) {
            CharSequence name = trailers.name(i);
            if (isForbidden(name)) {
                continue;
            }
            TextBytes.write(out, name);
            out.writeByte(':').writeByte(' ');
            TextBytes.write(out, trailers.value(i));
            out.writeShort(CRLF);
        }
    }

    static boolean isForbidden(CharSequence name) {
        for (AsciiString f : FORBIDDEN_TRAILERS) {
            if (f.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
