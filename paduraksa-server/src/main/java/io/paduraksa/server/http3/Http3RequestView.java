package io.paduraksa.server.http3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.RequestView;
import java.util.List;

/**
 * The gate's view of one HTTP/3 request, over the stream's decoded {@link Http3Headers} (QPACK
 * hands back its own strings; reading allocates nothing). Owned by its {@link Http3Exchange}.
 * Several {@code cookie} fields (RFC 9114 4.2.1 lets clients split them, as HTTP/2) are joined with
 * "; " on first read, so a cookie in a later field is seen by whoever reads cookies.
 */
final class Http3RequestView implements RequestView {
    private final StringBuilder joinedCookies = new StringBuilder(128);
    private boolean cookiesJoined;
    private ClientInfo client;
    private Http3Headers headers;
    private boolean body;

    /** Whether a body follows the HEADERS (DATA frames came, or the stream did not end with them). */
    void hasBody(boolean body) {
        this.body = body;
    }

    @Override
    public boolean hasBody() {
        return body;
    }

    void reset(ClientInfo client, Http3Headers headers) {
        this.client = client;
        this.headers = headers;
        this.cookiesJoined = false;
    }

    void clear() {
        this.headers = null;
    }

    Http3Headers headers() {
        return headers;
    }

    @Override
    public ClientInfo client() {
        return client;
    }

    @Override
    public CharSequence method() {
        return headers.method();
    }

    @Override
    public CharSequence target() {
        return headers.path();
    }

    /** {@code :authority}, or the {@code host} field a client may send instead (RFC 9114 4.3.1; Netty checked they agree). */
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
