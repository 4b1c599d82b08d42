package io.paduraksa.server.http3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.RequestView;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

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
    /** The regular fields listed on first {@link #headerCount()} call; grown to the longest list seen. */
    private CharSequence[] listedNames = new CharSequence[16];
    private CharSequence[] listedValues = new CharSequence[16];
    private int listed = -1;

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
        this.listed = -1;
    }

    void clear() {
        this.headers = null;
        if (listed > 0) {
            Arrays.fill(listedNames, 0, listed, null);
            Arrays.fill(listedValues, 0, listed, null);
        }
        this.listed = -1;
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

    /**
     * The regular fields in the order QPACK decoded them, pseudo-header fields left out. Netty's
     * headers can only be walked with an iterator, so the first call per request lists them into
     * this view's arrays (one iterator allocated per request that asks, as only the
     * {@code attacks} policy's {@code all_headers} does).
     */
    @Override
    public int headerCount() {
        if (listed >= 0) {
            return listed;
        }
        int n = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iterator(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            if (name.length() > 0 && name.charAt(0) == ':') {
                continue;
            }
            if (n == listedNames.length) {
                listedNames = Arrays.copyOf(listedNames, n * 2);
                listedValues = Arrays.copyOf(listedValues, n * 2);
            }
            listedNames[n] = name;
            listedValues[n] = e.getValue();
            n++;
        }
        listed = n;
        return n;
    }

    @Override
    public CharSequence headerName(int index) {
        return listedNames[index];
    }

    @Override
    public CharSequence headerValue(int index) {
        return listedValues[index];
    }
}
