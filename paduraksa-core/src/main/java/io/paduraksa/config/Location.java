package io.paduraksa.config;

/**
 * A place in a YAML file: 1-based line and column, as editors count them (the column counts
 * characters, not bytes). Line and column are 0 only when the file has no tokens at all.
 */
public record Location(int line, int column) {
    /** The start of the file, used when a path has no better place (an empty document). */
    public static final Location START = new Location(1, 1);
}
