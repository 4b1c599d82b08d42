package io.paduraksa.config;

/**
 * One problem in a configuration file, in the one shape every error takes:
 * {@code edge.yaml:41:17: hosts[2].routes[0].forward: unknown cluster 'billing' (expected one of: api, static)}.
 *
 * @param file    the file name as given to the loader
 * @param line    1-based line, 0 when unknown
 * @param column  1-based column, 0 when unknown
 * @param path    the YAML path as written ({@code hosts[2].routes[0].forward}); empty for the document
 * @param problem what is wrong, with the offending value and the expectation in parentheses
 */
public record ConfigError(String file, int line, int column, String path, String problem) {

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(file.length() + path.length() + problem.length() + 16);
        sb.append(file).append(':').append(line).append(':').append(column).append(": ");
        if (!path.isEmpty()) {
            sb.append(path).append(": ");
        }
        return sb.append(problem).toString();
    }
}
