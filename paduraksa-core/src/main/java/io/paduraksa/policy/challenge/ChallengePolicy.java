package io.paduraksa.policy.challenge;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.policy.NamedPolicy;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.PolicyInput;
import io.paduraksa.respond.PrecomputedResponse;

/**
 * The proof-of-work challenge ({@code type: challenge}). Per request, in this order:
 * <ol>
 * <li>a valid clearance cookie ({@link ClearanceCookie}) issued by this policy (and, with
 * {@code bind_host}, for this host) passes: CONTINUE, 0 B;</li>
 * <li>a submitted proof ({@value ChallengePage#PROOF_PARAMETER} in the query) is verified and
 * redeemed once ({@link ChallengeToken#redeemProof}): a good, unused one is answered with a one-shot 302 back to the same target without the parameter and
 * {@code Set-Cookie} (this rare path allocates the answer); a bad or replayed one gets the refusal;</li>
 * <li>a browser ({@code GET} or {@code HEAD} with {@code Accept} naming {@code text/html}: what a
 * navigation sends) gets the challenge page (CHALLENGE; its token is written per request, 0 B);</li>
 * <li>anything else gets the refusal ({@code non_browser}, by default a 403 page saying why).</li>
 * </ol>
 */
public final class ChallengePolicy extends NamedPolicy {
    private static final AsciiString COOKIE = AsciiString.cached("cookie");
    private static final AsciiString ACCEPT = AsciiString.cached("accept");
    private static final String TEXT_HTML = "text/html";

    private final ClearanceCookie cookie;
    private final ChallengeToken token;
    private final PolicyDecision page;
    private final PolicyDecision refused;
    private final ChallengeToken.Clock clock;
    private final ByteBufAllocator alloc;

    /**
     * @param page    the CHALLENGE decision whose answer carries {@code token} as its body slot
     * @param refused what non-browsers and bad proofs get
     * @param alloc   where one-shot redirect answers are built (a pooled allocator)
     */
    public ChallengePolicy(String name, ClearanceCookie cookie, ChallengeToken token, PolicyDecision page,
            PolicyDecision refused, ChallengeToken.Clock clock, ByteBufAllocator alloc) {
        super(name);
        this.cookie = cookie;
        this.token = token;
        this.page = page;
        this.refused = refused;
        this.clock = clock;
        this.alloc = alloc;
    }

    /** Runs per request on the event loop; 0 B except when a proof is submitted. */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        long high = request.clientIpHigh();
        long low = request.clientIpLow();
        CharSequence cookies = request.header(COOKIE);
        if (cookie.isValid(cookies, request.authority(), high, low, clock.nowSeconds())) {
            return PolicyDecision.CONTINUE;
        }
        int queryStart = request.queryStart();
        if (queryStart >= 0) {
            int proof = ProofRedirect.proofValueStart(request.target(), queryStart, request.queryEnd());
            if (proof >= 0) {
                return submitted(request, proof);
            }
        }
        return isBrowser(request) ? page : refused;
    }

    /** The rare path: a browser sends its solution. Allocates the one-shot answer. */
    private PolicyDecision submitted(PolicyInput request, int proofStart) {
        CharSequence target = request.target();
        int end = request.queryEnd();
        int proofEnd = ProofRedirect.proofValueEnd(target, proofStart, end);
        long high = request.clientIpHigh();
        long low = request.clientIpLow();
        String value = cookie.issue(request.authority(), high, low, clock.nowSeconds());
        if (value == null || !token.redeemProof(target, proofStart, proofEnd, high, low)) {
            return refused;
        }
        String location = ProofRedirect.location(target, proofStart, proofEnd, end);
        String setCookie = cookie.name() + "=" + value + "; Path=/; Max-Age="
                + cookie.ttlSeconds() + "; HttpOnly; SameSite=Lax" + (request.isTls() ? "; Secure" : "");
        PrecomputedResponse answer = PrecomputedResponse.builder(302)
                .header("Location", location)
                .header("Set-Cookie", setCookie)
                .header("Cache-Control", "no-store")
                .body("")
                .oneShot()
                .build(alloc);
        return PolicyDecision.respond(answer);
    }

    /** A top-level navigation: GET or HEAD asking for HTML. Other requests cannot run the page. */
    static boolean isBrowser(PolicyInput request) {
        CharSequence method = request.method();
        if (!(contentEquals(method, "GET") || contentEquals(method, "HEAD"))) {
            return false;
        }
        CharSequence accept = request.header(ACCEPT);
        return accept != null && containsIgnoreCase(accept, TEXT_HTML);
    }

    private static boolean contentEquals(CharSequence s, String text) {
        if (s.length() != text.length()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (s.charAt(i) != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** {@code needle} is lower-case ASCII; letters of {@code s} are folded. */
    static boolean containsIgnoreCase(CharSequence s, String needle) {
        int last = s.length() - needle.length();
        for (int i = 0; i <= last; i++) {
            int j = 0;
            while (j < needle.length() && (s.charAt(i + j) | 0x20) == needle.charAt(j)) {
                j++;
            }
            if (j == needle.length()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "ChallengePolicy[" + name + ", difficulty " + token.difficulty() + ", " + cookie + ']';
    }
}
