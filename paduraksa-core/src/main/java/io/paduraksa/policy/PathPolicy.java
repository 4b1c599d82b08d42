package io.paduraksa.policy;

import io.paduraksa.route.PathPrefixSet;
import java.util.List;

/**
 * Allows or denies by segment-aware path prefix on the normalised path (the bytes the upstream
 * receives, see {@link io.paduraksa.route.PathNormalizer}). Per request {@link #evaluate} walks two
 * small prefix arrays; 0 B.
 *
 * <ul>
 *   <li>{@code deny} is checked first and wins. It matches ASCII case-<em>insensitively</em>: a
 *       deny of {@code /admin} also stops {@code /ADMIN} and {@code /Admin/x}, which a
 *       case-insensitive upstream (IIS, a Windows or macOS file system, many routers) would serve
 *       as {@code /admin}.</li>
 *   <li>When {@code allow} is non-empty, a path outside it is denied. It matches case-
 *       <em>sensitively</em>: {@code /Public} does not pass an allow of {@code /public}. Both
 *       choices fail closed: case differences can only cause a denial, never a bypass.</li>
 * </ul>
 * Prefix matching is segment-aware: {@code /admin} covers {@code /admin} and {@code /admin/x} but
 * not {@code /administrator}; {@code /admin/} does not cover {@code /admin}.
 */
public final class PathPolicy extends NamedPolicy {

    private final PathPrefixSet allow;
    private final PathPrefixSet deny;
    private final boolean hasAllowList;
    private final PolicyDecision denied;

    /**
     * @param allow  prefixes a path must be under (empty: any path)
     * @param deny   prefixes that are always denied
     * @param denied what a denial returns
     * @throws IllegalArgumentException naming an invalid prefix
     */
    public PathPolicy(String name, List<String> allow, List<String> deny, PolicyDecision denied) {
        super(name);
        if (name == null || denied == null || allow == null || deny == null) {
            throw new IllegalArgumentException("path policy '" + name + "': name, allow, deny and denied must not be null");
        }
        this.allow = compile(name, "allow", allow, false);
        this.deny = compile(name, "deny", deny, true);
        this.hasAllowList = !allow.isEmpty();
        this.denied = denied;
    }

    /** Runs per request on the event loop; 0 B. */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        byte[] path = request.path();
        int length = request.pathLength();
        if (deny.matches(path, length)) {
            return denied;
        }
        if (hasAllowList && !allow.matches(path, length)) {
            return denied;
        }
        return PolicyDecision.CONTINUE;
    }

    @Override
    public String toString() {
        return "PathPolicy[" + name + ", allow " + allow + ", deny " + deny + " -> " + denied + ']';
    }

    private static PathPrefixSet compile(String policy, String list, List<String> prefixes, boolean ignoreCase) {
        try {
            return PathPrefixSet.of(prefixes, ignoreCase);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("path policy '" + policy + "' " + list + ": " + e.getMessage(), e);
        }
    }
}
