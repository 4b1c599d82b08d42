package io.paduraksa.testing;

import io.netty.util.AsciiString;
import io.paduraksa.policy.PolicyInput;
import java.nio.charset.StandardCharsets;

/**
 * A {@link PolicyInput} for policy tests: client IP, normalised path, method, headers, request
 * target and host/route positions set by the test (defaults: ::, "/", GET, no headers, no query,
 * no host). Reading allocates nothing, so allocation tests extend it with their policy and step.
 */
public class TestPolicyInput implements PolicyInput {
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");

    private final byte[] path = new byte[256];
    private int pathLength;
    private long high;
    private long low;
    private CharSequence method = "GET";
    private CharSequence userAgent;
    private final AsciiString[] headerNames = new AsciiString[16];
    private final CharSequence[] headerValues = new CharSequence[16];
    private int headerCount;
    private CharSequence target;
    private int queryStart = -1;
    private int queryEnd = -1;
    private int hostIndex = -1;
    private int routeIndex = -1;
    private boolean tls;
    private boolean peerTrusted;
    private int peerCountry;
    private CharSequence authority;

    public TestPolicyInput() {
        path("/");
    }

    /** Sets the (already normalised) path. */
    public final TestPolicyInput path(String normalised) {
        byte[] bytes = normalised.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, path, 0, bytes.length);
        pathLength = bytes.length;
        return this;
    }

    public final TestPolicyInput clientIp(long high, long low) {
        this.high = high;
        this.low = low;
        return this;
    }

    public final TestPolicyInput method(CharSequence method) {
        this.method = method;
        return this;
    }

    public final TestPolicyInput userAgent(CharSequence userAgent) {
        this.userAgent = userAgent;
        return this;
    }

    /** Adds a header field line (the name is matched case-insensitively; the first line wins, as in the gate). */
    public final TestPolicyInput header(String name, CharSequence value) {
        headerNames[headerCount] = AsciiString.of(name.toLowerCase(java.util.Locale.ROOT));
        headerValues[headerCount] = value;
        headerCount++;
        return this;
    }

    /** Sets the request target; the query is what follows the first {@code ?}. */
    public final TestPolicyInput target(String target) {
        this.target = new AsciiString(target);
        int q = target.indexOf('?');
        this.queryStart = q < 0 ? -1 : q + 1;
        this.queryEnd = q < 0 ? -1 : target.length();
        return this;
    }

    /** The {@code Host} / {@code :authority} value as sent (default: none). */
    public final TestPolicyInput authority(String authority) {
        this.authority = authority == null ? null : new AsciiString(authority);
        return this;
    }

    @Override
    public final CharSequence authority() {
        return authority;
    }

    public final TestPolicyInput hostAndRoute(int host, int route) {
        this.hostIndex = host;
        this.routeIndex = route;
        return this;
    }

    /** The connection's facts: listener TLS, trusted-proxy peer, looked-up country index. */
    public final TestPolicyInput connection(boolean tls, boolean peerTrusted, int peerCountry) {
        this.tls = tls;
        this.peerTrusted = peerTrusted;
        this.peerCountry = peerCountry;
        return this;
    }

    @Override
    public final boolean isTls() {
        return tls;
    }

    @Override
    public final boolean isPeerTrustedProxy() {
        return peerTrusted;
    }

    @Override
    public final int peerCountry() {
        return peerCountry;
    }

    @Override
    public final CharSequence target() {
        return target;
    }

    @Override
    public final int queryStart() {
        return queryStart;
    }

    @Override
    public final int queryEnd() {
        return queryEnd;
    }

    @Override
    public final int hostIndex() {
        return hostIndex;
    }

    @Override
    public final int routeIndex() {
        return routeIndex;
    }

    @Override
    public final long clientIpHigh() {
        return high;
    }

    @Override
    public final long clientIpLow() {
        return low;
    }

    @Override
    public final byte[] path() {
        return path;
    }

    @Override
    public final int pathLength() {
        return pathLength;
    }

    @Override
    public final CharSequence method() {
        return method;
    }

    @Override
    public final CharSequence header(AsciiString lowerCaseName) {
        if (userAgent != null && USER_AGENT.contentEquals(lowerCaseName)) {
            return userAgent;
        }
        for (int i = 0; i < headerCount; i++) {
            if (headerNames[i].contentEquals(lowerCaseName)) {
                return headerValues[i];
            }
        }
        return null;
    }

    @Override
    public final int headerCount() {
        return headerCount;
    }

    @Override
    public final CharSequence headerName(int index) {
        return headerNames[index];
    }

    @Override
    public final CharSequence headerValue(int index) {
        return headerValues[index];
    }

    private boolean hasBody;

    /** Whether a body follows the head (default: none). */
    public final TestPolicyInput hasBody(boolean hasBody) {
        this.hasBody = hasBody;
        return this;
    }

    @Override
    public boolean hasBody() {
        return hasBody;
    }

    private CharSequence matches;

    @Override
    public void matches(CharSequence matches) {
        this.matches = matches;
    }

    /** What the policy last reported it matched (null: nothing). */
    public final CharSequence matches() {
        return matches;
    }
}
