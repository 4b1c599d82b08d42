package io.paduraksa.testing;

import io.netty.util.AsciiString;
import io.paduraksa.policy.PolicyInput;
import java.nio.charset.StandardCharsets;

/**
 * A {@link PolicyInput} for policy tests: client IP, normalised path, method and User-Agent set
 * by the test (defaults: ::, "/", GET, no User-Agent). Reading allocates nothing, so allocation
 * tests extend it with their policy and step.
 */
public class TestPolicyInput implements PolicyInput {
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");

    private final byte[] path = new byte[256];
    private int pathLength;
    private long high;
    private long low;
    private CharSequence method = "GET";
    private CharSequence userAgent;

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
        return USER_AGENT.contentEquals(lowerCaseName) ? userAgent : null;
    }
}
