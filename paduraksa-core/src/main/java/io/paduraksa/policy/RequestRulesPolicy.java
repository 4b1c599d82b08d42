package io.paduraksa.policy;

import io.netty.util.AsciiString;
import java.util.Arrays;
import java.util.List;

/**
 * Request rules: denies when a {@code deny} rule matches, when an {@code allow} rule does not,
 * when {@code Content-Length} is over {@code maxBody}, or, with the bot signal, when a
 * browser-looking client lacks headers every browser sends. Per request {@link #evaluate} reads a
 * few headers and walks the query in place; 0 B.
 *
 * <p><b>Order</b>: body size (answered with its own decision, 413 by default), then deny rules, then
 * allow rules, then the bot signal.
 *
 * <p><b>Body size</b>: only a {@code Content-Length} is checked here (a value that is not digits
 * counts as too large); a chunked body has no length up front and is bounded by the server's
 * {@code limits.max_body_size} while it streams.
 *
 * <p><b>Bot signal</b>: a {@code User-Agent} starting with {@code Mozilla/} (any case) claims to be a
 * browser; every current browser (Chrome, Edge, Firefox, Safari, and their mobile and headless
 * forms) also sends a non-empty {@code Accept} and {@code Accept-Language}. A request that claims
 * {@code Mozilla/} but lacks either is denied. False positives: link-preview and monitoring bots
 * that borrow a browser UA, a few embedded web views, and privacy tools that strip
 * {@code Accept-Language}; clients that do not claim {@code Mozilla/} (curl, API clients) are not
 * affected.
 */
public final class RequestRulesPolicy extends NamedPolicy {
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
    private static final AsciiString ACCEPT = AsciiString.cached("accept");
    private static final AsciiString ACCEPT_LANGUAGE = AsciiString.cached("accept-language");
    private static final byte[] MOZILLA = {'m', 'o', 'z', 'i', 'l', 'l', 'a', '/'};
    /** More digits than this cannot be a length we accept (10^18 B). */
    private static final int MAX_LENGTH_DIGITS = 18;

    private final RequestRule[] deny;
    private final RequestRule[] allow;
    private final long maxBody;
    private final boolean botSignal;
    private final PolicyDecision denied;
    private final PolicyDecision tooLarge;

    /**
     * @param maxBody   largest accepted Content-Length in bytes, or -1 for no check
     * @param denied    what a rule or bot-signal denial returns (403 by default)
     * @param tooLarge  what a too-large body returns (413 by default)
     */
    public RequestRulesPolicy(String name, List<RequestRule> deny, List<RequestRule> allow, long maxBody, boolean botSignal,
            PolicyDecision denied, PolicyDecision tooLarge) {
        super(name);
        if (name == null || deny == null || allow == null || denied == null || tooLarge == null) {
            throw new IllegalArgumentException("request policy '" + name + "': name, rule lists and decisions must not be null");
        }
        if (deny.isEmpty() && allow.isEmpty() && maxBody < 0 && !botSignal) {
            throw new IllegalArgumentException("request policy '" + name + "' checks nothing (expected deny, allow, max_body or bot_signal)");
        }
        this.deny = deny.toArray(new RequestRule[0]);
        this.allow = allow.toArray(new RequestRule[0]);
        this.maxBody = maxBody;
        this.botSignal = botSignal;
        this.denied = denied;
        this.tooLarge = tooLarge;
    }

    /** Runs per request on the event loop; 0 B. */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        if (maxBody >= 0 && isBodyTooLarge(request.header(CONTENT_LENGTH), maxBody)) {
            return tooLarge;
        }
        RequestRule[] rules = deny;
        for (int i = 0; i < rules.length; i++) {
            if (rules[i].matchesAny(request)) {
                return denied;
            }
        }
        rules = allow;
        for (int i = 0; i < rules.length; i++) {
            if (!rules[i].matchesAll(request)) {
                return denied;
            }
        }
        return botSignal && looksLikeBot(request) ? denied : PolicyDecision.CONTINUE;
    }

    /** A Content-Length over {@code max}; a value that is not 1 to 18 digits counts as too large. 0 B. */
    static boolean isBodyTooLarge(CharSequence contentLength, long max) {
        if (contentLength == null) {
            return false;
        }
        int n = contentLength.length();
        if (n == 0 || n > MAX_LENGTH_DIGITS) {
            return true;
        }
        long length = 0;
        for (int i = 0; i < n; i++) {
            char c = contentLength.charAt(i);
            if (c < '0' || c > '9') {
                return true;
            }
            length = length * 10 + (c - '0');
        }
        return length > max;
    }

    /** Claims to be a browser but lacks Accept or Accept-Language. 0 B. */
    static boolean looksLikeBot(PolicyInput request) {
        CharSequence userAgent = request.header(USER_AGENT);
        if (userAgent == null || RequestRule.decodedPrefixEnd(userAgent, 0, userAgent.length(), MOZILLA, true, false) < 0) {
            return false;
        }
        return isMissing(request.header(ACCEPT)) || isMissing(request.header(ACCEPT_LANGUAGE));
    }

    private static boolean isMissing(CharSequence value) {
        return value == null || value.length() == 0;
    }

    @Override
    public String toString() {
        return "RequestRulesPolicy[" + name + ", deny " + Arrays.toString(deny) + ", allow " + Arrays.toString(allow)
                + (maxBody >= 0 ? ", max body " + maxBody : "") + (botSignal ? ", bot signal" : "") + " -> " + denied + ']';
    }
}
