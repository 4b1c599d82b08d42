package io.paduraksa.server.http2;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.RequestView;

/**
 * The gate's view of one HTTP/2 request, over the stream's decoded {@link Http2Headers}. HPACK
 * hands back shared {@code AsciiString}s, so reading allocates nothing. Owned by a recycled
 * {@link Http2Exchange}.
 */
final class Http2RequestView implements RequestView {
    private ClientInfo client;
    private Http2Headers headers;

    void reset(ClientInfo client, Http2Headers headers) {
        this.client = client;
        this.headers = headers;
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
        return headers.method();
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
        return headers.get(lowerCaseName);
    }
}
