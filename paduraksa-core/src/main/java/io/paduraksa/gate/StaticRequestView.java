package io.paduraksa.gate;

import io.netty.util.AsciiString;

/**
 * A {@link RequestView} over {@link AsciiString}s, for requests that do not come from a connection:
 * {@code paduraksa explain}, tests and benchmarks. Shaped like the HTTP/2 view (which reads Netty's
 * {@code Http2Headers}); reading allocates nothing, building does.
 */
public final class StaticRequestView implements RequestView {
    /** Most headers one view holds. */
    public static final int MAX_HEADERS = 64;

    private final AsciiString[] names = new AsciiString[MAX_HEADERS];
    private final AsciiString[] values = new AsciiString[MAX_HEADERS];
    private int headerCount;
    private ClientInfo client;
    private AsciiString method = AsciiString.cached("GET");
    private AsciiString target = AsciiString.cached("/");
    private AsciiString authority;

    public StaticRequestView client(ClientInfo client) {
        this.client = client;
        return this;
    }

    public StaticRequestView method(String method) {
        this.method = AsciiString.of(method);
        return this;
    }

    public StaticRequestView target(String target) {
        this.target = AsciiString.of(target);
        return this;
    }

    public StaticRequestView authority(String authority) {
        this.authority = authority == null ? null : AsciiString.of(authority);
        return this;
    }

    /** Adds a header (names are matched case-insensitively). */
    public StaticRequestView header(String name, String value) {
        if (headerCount == MAX_HEADERS) {
            throw new IllegalArgumentException("more than " + MAX_HEADERS + " headers");
        }
        names[headerCount] = AsciiString.of(name);
        values[headerCount] = AsciiString.of(value);
        headerCount++;
        return this;
    }

    public StaticRequestView clearHeaders() {
        headerCount = 0;
        return this;
    }

    @Override
    public ClientInfo client() {
        return client;
    }

    @Override
    public CharSequence method() {
        return method;
    }

    @Override
    public CharSequence target() {
        return target;
    }

    @Override
    public CharSequence authority() {
        return authority;
    }

    @Override
    public CharSequence header(AsciiString lowerCaseName) {
        for (int i = 0; i < headerCount; i++) {
            if (names[i].contentEqualsIgnoreCase(lowerCaseName)) {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public int headerCount() {
        return headerCount;
    }

    @Override
    public CharSequence headerName(int index) {
        return names[index];
    }

    @Override
    public CharSequence headerValue(int index) {
        return values[index];
    }
}
