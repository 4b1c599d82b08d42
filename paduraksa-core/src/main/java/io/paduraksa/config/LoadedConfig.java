package io.paduraksa.config;

/**
 * A configuration file that bound cleanly: its name and text, the {@code *Spec} tree, and where
 * every YAML path sits, so that the snapshot compiler can report its own errors at the right line
 * and column. Made at start-up, by {@code check} and on reload, off the event loops; not read per
 * request.
 *
 * @param fileName  the file as given to the loader, first part of every error
 * @param text      the YAML text as read
 * @param spec      what the operator wrote, with defaults filled in
 * @param positions where each YAML path is in {@code text}
 */
public record LoadedConfig(String fileName, String text, PaduraksaSpec spec, YamlPositions positions) {

    /**
     * An error about the value at {@code yamlPath}, located at that value (or at its nearest
     * ancestor present in the file, for a missing key):
     * {@code error("hosts[2].routes[0].forward", "unknown cluster 'billing' (expected one of: api, static)")}
     * prints {@code edge.yaml:41:17: hosts[2].routes[0].forward: unknown cluster 'billing' (expected one of: api, static)}.
     */
    public ConfigError error(String yamlPath, String problem) {
        Location at = positions.locate(yamlPath);
        return new ConfigError(fileName, at.line(), at.column(), yamlPath, problem);
    }
}
