package io.paduraksa.route;

import java.util.List;

/**
 * A set of segment-aware path prefixes (see {@link PathPrefix} for the rule), matched against
 * the normalised path. Built once per snapshot; {@link #matches} and {@link #matchIndex} run per
 * request on the event loop and allocate nothing.
 *
 * <p>Each configured prefix is normalised with {@link PathNormalizer} under the default options,
 * so {@code /a/./b} and {@code /%61/b} both mean {@code /a/b}, and an invalid prefix fails the
 * build. With {@code ignoreCase}, ASCII letters match regardless of case (for deny lists in front
 * of case-insensitive upstreams).
 */
public final class PathPrefixSet {

    private final byte[][] prefixes;
    private final boolean ignoreCase;

    private PathPrefixSet(byte[][] prefixes, boolean ignoreCase) {
        this.prefixes = prefixes;
        this.ignoreCase = ignoreCase;
    }

    /**
     * Compiles {@code prefixes} (configuration order is kept for {@link #matchIndex}).
     *
     * @throws IllegalArgumentException naming the first invalid prefix
     */
    public static PathPrefixSet of(List<String> prefixes, boolean ignoreCase) {
        byte[][] compiled = new byte[prefixes.size()][];
        for (int i = 0; i < compiled.length; i++) {
            compiled[i] = PathPrefix.compile(prefixes.get(i), ignoreCase);
        }
        return new PathPrefixSet(compiled, ignoreCase);
    }

    /** Some prefix matches {@code path[0, len)} (a normalised path). 0 B. */
    public boolean matches(byte[] path, int len) {
        return matchIndex(path, len) >= 0;
    }

    /** Index of the first prefix (configuration order) matching {@code path[0, len)}, or -1. 0 B. */
    public int matchIndex(byte[] path, int len) {
        byte[][] p = prefixes;
        if (ignoreCase) {
            for (int i = 0; i < p.length; i++) {
                if (PathPrefix.matchesIgnoreCase(p[i], path, len)) {
                    return i;
                }
            }
            return -1;
        }
        for (int i = 0; i < p.length; i++) {
            if (PathPrefix.matches(p[i], path, len)) {
                return i;
            }
        }
        return -1;
    }

    public int size() {
        return prefixes.length;
    }

    public boolean isEmpty() {
        return prefixes.length == 0;
    }

    /** The normalised prefix at {@code index} (lower-cased when the set ignores case), for explain output. */
    public String prefix(int index) {
        return PathPrefix.toString(prefixes[index]);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(ignoreCase ? "PathPrefixSet(ignoreCase)[" : "PathPrefixSet[");
        for (int i = 0; i < prefixes.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(prefix(i));
        }
        return sb.append(']').toString();
    }
}
