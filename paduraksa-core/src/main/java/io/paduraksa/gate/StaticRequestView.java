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

    public StaticRequestView method(CharSequence method) {
        this.method = new AsciiString(method);
        return this;
    }

    public StaticRequestView target(CharSequence target) {
        this.target = new AsciiString(target);
        return this;
    }

    public StaticRequestView authority(CharSequence authority) {
        this.authority = authority == null ? null : new AsciiString(authority);
        return this;
    }

    /** Adds a header, copying both (names are matched case-insensitively). */
    public StaticRequestView header(CharSequence name, CharSequence value) {
        if (headerCount == MAX_HEADERS) {
            throw new IllegalArgumentException("more than " + MAX_HEADERS + " headers");
        }
        names[headerCount] = new AsciiString(name);
        values[headerCount] = new AsciiString(value);
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

    /**
     * Compares the length and the hash first, as the protocol views compare the length first:
     * {@link AsciiString#hashCode()} ignores ASCII case and is kept by both strings, so a name whose
     * hash differs cannot match; a name that does is compared as bytes (a word at a time), then
     * ignoring case when it was added in another case.
     */
    @Override
    public CharSequence header(AsciiString lowerCaseName) {
        int length = lowerCaseName.length();
        int hash = lowerCaseName.hashCode();
        for (int i = 0; i < headerCount; i++) {
            AsciiString name = names[i];
            if (name.length() == length && name.hashCode() == hash
                    && (name.contentEquals(lowerCaseName) || name.contentEqualsIgnoreCase(lowerCaseName))) {
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
