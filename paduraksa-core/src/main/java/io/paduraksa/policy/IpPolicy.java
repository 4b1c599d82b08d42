package io.paduraksa.policy;

import io.paduraksa.net.IpRangeSet;

/**
 * Allows or denies by client IP. Per request: one or two binary searches over sorted ranges, no
 * allocation. The deny list is checked first and always wins; with an allow list, a client
 * outside it is denied; otherwise the request continues.
 *
 * <p>{@code allow == null} means "no allow list". A non-null but empty allow set denies everyone:
 * the compiler should pass null for an absent or empty {@code allow:}.
 */
public final class IpPolicy extends NamedPolicy {
    private final IpRangeSet allow;
    private final IpRangeSet deny;
    private final PolicyDecision denied;

    /**
     * @param allow  clients allowed; null for no allow list
     * @param deny   clients denied before anything else; null for none
     * @param denied what a denied client gets (a precomputed 403, a drop...)
     */
    public IpPolicy(String name, IpRangeSet allow, IpRangeSet deny, PolicyDecision denied) {
        super(name);
        if (name == null || denied == null) {
            throw new IllegalArgumentException("an IP policy needs a name and a denial decision");
        }
        this.allow = allow;
        this.deny = deny == null || deny.isEmpty() ? null : deny;
        this.denied = denied;
    }

    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        long high = request.clientIpHigh();
        long low = request.clientIpLow();
        if (deny != null && deny.contains(high, low)) {
            return denied;
        }
        if (allow != null && !allow.contains(high, low)) {
            return denied;
        }
        return PolicyDecision.CONTINUE;
    }

    @Override
    public String toString() {
        return "IpPolicy[" + name + ", allow=" + allow + ", deny=" + deny + ", denied=" + denied + "]";
    }
}
