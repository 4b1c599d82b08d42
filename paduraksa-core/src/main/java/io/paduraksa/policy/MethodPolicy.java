package io.paduraksa.policy;

import io.paduraksa.respond.HttpToken;
import io.netty.util.AsciiString;
import java.util.List;

/**
 * Allows only the listed request methods. Methods are case-sensitive tokens (RFC 9110 section
 * 9.1): {@code get} is not {@code GET}. Per request {@link #evaluate} compares the method as sent
 * with a few precompiled {@link AsciiString}s; no String, 0 B.
 */
public final class MethodPolicy extends NamedPolicy {

    private final AsciiString[] allowed;
    private final PolicyDecision denied;

    /**
     * @param allowedMethods at least one method token, e.g. {@code GET}, {@code HEAD}
     * @param denied         what a request with another method gets (405 by default in config)
     * @throws IllegalArgumentException for an empty list or a value that is not a token
     */
    public MethodPolicy(String name, List<String> allowedMethods, PolicyDecision denied) {
        super(name);
        if (name == null || denied == null || allowedMethods == null) {
            throw new IllegalArgumentException("method policy '" + name + "': name, allow and denied must not be null");
        }
        if (allowedMethods.isEmpty()) {
            throw new IllegalArgumentException("method policy '" + name + "': allow is empty (expected at least one method, e.g. GET)");
        }
        this.denied = denied;
        this.allowed = new AsciiString[allowedMethods.size()];
        for (int i = 0; i < allowed.length; i++) {
            allowed[i] = AsciiString.cached(requireToken(name, i, allowedMethods.get(i)));
        }
    }

    /** Runs per request on the event loop; 0 B. */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        return isAllowed(request.method()) ? PolicyDecision.CONTINUE : denied;
    }

    /** {@code method} is one of the allowed methods, compared exactly. 0 B. */
    public boolean isAllowed(CharSequence method) {
        if (method == null) {
            return false;
        }
        AsciiString[] methods = allowed;
        for (int i = 0; i < methods.length; i++) {
            if (methods[i].contentEquals(method)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "MethodPolicy[" + name + ", allow " + java.util.Arrays.toString(allowed) + " -> " + denied + ']';
    }

    private static String requireToken(String policy, int index, String method) {
        if (!HttpToken.isToken(method)) {
            throw new IllegalArgumentException("method policy '" + policy + "': allow[" + index + "] '" + method
                    + "' is not a method token (expected letters, digits or !#$%&'*+-.^_`|~ as in RFC 9110, e.g. GET)");
        }
        return method;
    }
}
