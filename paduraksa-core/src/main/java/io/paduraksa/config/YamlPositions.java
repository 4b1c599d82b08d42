package io.paduraksa.config;

import java.util.Map;

/**
 * Where each YAML path sits in the file, so that errors found after binding (the snapshot
 * compiler's, which works on {@code *Spec} records and Jackson-free values) point at the line and
 * column the operator wrote. Built by the one streaming pass of {@link YamlReader} over Jackson's
 * {@code YAMLParser} tokens, recording {@code currentTokenLocation()} per path; never per request.
 *
 * <p>Paths are written as in error messages: {@code hosts[2].routes[0].forward},
 * {@code hosts[0].names[1]}, {@code clusters.api.timeouts}, {@code clusters["api.v2"]} for keys
 * with dots, brackets, quotes or spaces, and the empty string for the document.
 */
public final class YamlPositions {
    private final Map<String, Location> values;
    private final Location root;

    YamlPositions(Map<String, Location> values) {
        this.values = values;
        this.root = values.getOrDefault(YamlPath.ROOT, Location.START);
    }

    /**
     * Reads {@code yamlText} once and records every path. A syntax error ends the scan: paths
     * before it are kept, the error itself is reported by {@link ConfigLoader}, not here.
     */
    public static YamlPositions scan(String yamlText) {
        return YamlReader.read("", yamlText).positions();
    }

    /**
     * Where the value at {@code yamlPath} starts: a scalar's first character (its opening quote if
     * quoted), a mapping's first key or opening brace, a list's first dash or opening bracket. A path
     * that is not in the file (a missing key, an index past the end) gives its nearest ancestor that
     * is; a path outside the document gives the document's start.
     */
    public Location locate(String yamlPath) {
        String path = yamlPath;
        while (!path.isEmpty()) {
            Location at = values.get(path);
            if (at != null) {
                return at;
            }
            path = YamlPath.parent(path);
        }
        return root;
    }
}
