package io.paduraksa.route;

import java.util.ArrayList;
import java.util.List;

/**
 * A host's routes: ordered (path prefix, value) entries, where the first entry whose prefix
 * matches the normalised path wins (segment-aware, case-sensitive; see {@link PathPrefix}).
 * Built once per snapshot with {@link #builder()}; {@link #match} and {@link #matchIndex} run per
 * request on the event loop and allocate nothing.
 *
 * <p>Entries are arrays walked by index. Before comparing bytes, each entry is filtered by the
 * path's second byte (the first after the leading slash), which rules out most non-matching
 * routes with one compare; a {@code /} entry has no second byte and always passes the filter.
 *
 * @param <T> what a route leads to (the compiled route, an action, a slot number...)
 */
public final class RouteTable<T> {

    /** Marks an entry whose prefix is just {@code /}: it has no second byte to filter on. */
    private static final int ANY = -1;

    private final byte[][] prefixes;
    private final int[] secondBytes;
    private final Object[] values;

    private RouteTable(byte[][] prefixes, Object[] values) {
        this.prefixes = prefixes;
        this.values = values;
        this.secondBytes = new int[prefixes.length];
        for (int i = 0; i < prefixes.length; i++) {
            secondBytes[i] = prefixes[i].length > 1 ? prefixes[i][1] : ANY;
        }
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /** The value of the first entry matching {@code path[0, len)} (a normalised path), or null. 0 B. */
    @SuppressWarnings("unchecked")
    public T match(byte[] path, int len) {
        int i = matchIndex(path, len);
        return i < 0 ? null : (T) values[i];
    }

    /** The index (configuration order) of the first entry matching {@code path[0, len)}, or -1. 0 B. */
    public int matchIndex(byte[] path, int len) {
        // A normalised path always starts with '/'; "/" alone has no second byte.
        int second = len > 1 ? path[1] : ANY;
        byte[][] p = prefixes;
        int[] seconds = secondBytes;
        for (int i = 0; i < p.length; i++) {
            int s = seconds[i];
            if ((s == ANY || s == second) && PathPrefix.matches(p[i], path, len)) {
                return i;
            }
        }
        return -1;
    }

    public int size() {
        return values.length;
    }

    @SuppressWarnings("unchecked")
    public T value(int index) {
        return (T) values[index];
    }

    /** The normalised prefix of entry {@code index}, for explain output and logs. */
    public String prefix(int index) {
        return PathPrefix.toString(prefixes[index]);
    }

    /**
     * The index of an earlier entry that matches every path entry {@code index} matches (so
     * {@code index} can never win), or -1. For compile-time warnings about unreachable routes.
     */
    public int shadowingIndex(int index) {
        // If an earlier prefix matches this prefix taken as a path, it matches every path this one does.
        byte[] self = prefixes[index];
        for (int i = 0; i < index; i++) {
            if (PathPrefix.matches(prefixes[i], self, self.length)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RouteTable[");
        for (int i = 0; i < values.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(prefix(i)).append(" -> ").append(values[i]);
        }
        return sb.append(']').toString();
    }

    /** Collects entries in order; compile time only. */
    public static final class Builder<T> {
        private final List<byte[]> prefixes = new ArrayList<>();
        private final List<T> values = new ArrayList<>();

        private Builder() {
        }

        /**
         * Appends an entry; earlier entries win.
         *
         * @throws IllegalArgumentException naming {@code prefix} when it is not a valid path, or when {@code value} is null
         */
        public Builder<T> add(String prefix, T value) {
            if (value == null) {
                throw new IllegalArgumentException("route '" + prefix + "' has no value");
            }
            prefixes.add(PathPrefix.compile(prefix, false));
            values.add(value);
            return this;
        }

        public RouteTable<T> build() {
            return new RouteTable<>(prefixes.toArray(new byte[0][]), values.toArray());
        }
    }
}
