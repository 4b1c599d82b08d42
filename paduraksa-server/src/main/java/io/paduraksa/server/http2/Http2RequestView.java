package io.paduraksa.server.http2;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.RequestView;
import java.util.List;

/**
 * The gate's view of one HTTP/2 request, over the stream's decoded {@link Http2Headers}. HPACK
 * hands back shared {@code AsciiString}s, so reading allocates nothing. Owned by a recycled
 * {@link Http2Exchange}. A WebSocket over HTTP/2 (RFC 8441 extended CONNECT) shows the gate a
 * {@code GET} of its {@code :path}, the request an HTTP/1.1 client's handshake is, so methods,
 * routes, policies and rate limits judge both alike.
 */
final class Http2RequestView implements RequestView {
    private static final AsciiString GET = HttpMethod.GET.asciiName();
    /**
     * Several {@code cookie} fields of one request joined with "; " (RFC 9113 8.2.3: HTTP/2 clients
     * may split the Cookie header, and browsers do), built at most once per request and only when a
     * consumer reads cookies (clearance cookie, forward-auth key, session affinity): read as the first
     * field alone, a cookie in a later field would be invisible.
     */
    private final StringBuilder joinedCookies = new StringBuilder(256);
    private boolean cookiesJoined;
    private ClientInfo client;
    private Http2Headers headers;
    private boolean websocket;
    private boolean body;

    void reset(ClientInfo client, Http2Headers headers, boolean websocket) {
        this.client = client;
        this.headers = headers;
        this.websocket = websocket;
        this.cookiesJoined = false;
    }

    /** Whether DATA follows the HEADERS (they did not end the stream). */
    void hasBody(boolean body) {
        this.body = body;
    }

    @Override
    public boolean hasBody() {
        return body;
    }

    void clear() {
        this.client = null;
        this.headers = null;
    }

    Http2Headers headers() {
        return headers;
    }

    @Override
    public ClientInfo client() {
        return client;
    }

    @Override
    public CharSequence method() {
        return websocket ? GET : headers.method();
    }

    @Override
    public CharSequence target() {
        return headers.path();
    }

    /** {@code :authority}, or the {@code host} header a client may send instead (RFC 9113 8.3.1). */
    @Override
    public CharSequence authority() {
        CharSequence authority = headers.authority();
        return authority != null ? authority : headers.get(HttpHeaderNames.HOST);
    }

    @Override
    public CharSequence header(AsciiString lowerCaseName) {
        if (lowerCaseName.length() == 6 && HttpHeaderNames.COOKIE.contentEquals(lowerCaseName)) {
            return cookies();
        }
        return headers.get(lowerCaseName);
    }

    /**
     * The request's cookies as one value. A single field is returned as it is; several are joined
     * in the order sent (Netty's {@code getAll} keeps it; this allocates its list, on HTTP/2 only and
     * only for requests whose cookies are read).
     */
    private CharSequence cookies() {
        if (cookiesJoined) {
            return joinedCookies;
        }
        CharSequence first = headers.get(HttpHeaderNames.COOKIE);
        if (first == null) {
            return null;
        }
        List<CharSequence> all = headers.getAll(HttpHeaderNames.COOKIE);
        if (all.size() == 1) {
            return first;
        }
        StringBuilder joined = joinedCookies;
        joined.setLength(0);
        for (int i = 0; i < all.size(); i++) {
            if (i > 0) {
                joined.append("; ");
            }
            joined.append(all.get(i));
        }
        cookiesJoined = true;
        return joined;
    }
}
