package io.paduraksa.host;

import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.net.IpParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the configured entry for a request's {@code Host} header or {@code :authority}.
 *
 * <p>{@link #find} runs per request and allocates nothing in steady state: it reads the raw
 * header range in place, strips the port and one trailing dot by index, looks the name up
 * case-insensitively in a hash table of lower-case bytes, then (on a miss) drops the first label
 * once and looks the parent up among the wildcards, so {@code *.w3.test} matches
 * {@code a.w3.test} but neither {@code a.b.w3.test} nor {@code w3.test}. An IPv6 literal
 * ({@code [2001:db8::1]:8443}) is parsed into 128 bits and compared by value, so every spelling
 * of an address matches. Anything unknown or malformed is a miss (null), including raw Unicode:
 * clients send IDNs as punycode.
 *
 * <p>Port: one to five digits up to 65535 after the last {@code :}; an empty port ({@code host:})
 * is tolerated, as RFC 3986 section 3.2.3 allows it. Immutable and safe to share between event
 * loops; built once per config load by {@link Builder}.
 */
public final class HostTable<T> {
    /** Longest name we look up: 253 characters plus the one trailing dot. */
    private static final int MAX_NAME = 253;
    /** The longest IPv6 text, {@code ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255}. */
    private static final int MAX_IPV6_TEXT = 45;
    /** Parse target for IPv6 literals: one per thread, since the table is shared by event loops. */
    private static final FastThreadLocal<long[]> ADDRESS = new FastThreadLocal<>() {
        @Override
        protected long[] initialValue() {
            return new long[2];
        }
    };

    private final AsciiKeyTable exact;
    private final AsciiKeyTable wildcards;
    private final boolean hasWildcards;
    private final long[] literalHigh;
    private final long[] literalLow;
    private final Object[] literalValues;
    private final List<String> names;

    private HostTable(Builder<T> b) {
        List<String> exactKeys = new ArrayList<>();
        List<Object> exactValues = new ArrayList<>();
        List<String> wildcardKeys = new ArrayList<>();
        List<Object> wildcardValues = new ArrayList<>();
        List<Object> literals = new ArrayList<>();
        List<HostNames.Name> literalNames = new ArrayList<>();
        for (int i = 0; i < b.names.size(); i++) {
            HostNames.Name n = b.names.get(i);
            Object v = b.values.get(i);
            switch (n.kind()) {
                case EXACT -> {
                    exactKeys.add(n.lookupKey());
                    exactValues.add(v);
                }
                case WILDCARD -> {
                    wildcardKeys.add(n.lookupKey());
                    wildcardValues.add(v);
                }
                case IPV6_LITERAL -> {
                    literalNames.add(n);
                    literals.add(v);
                }
            }
        }
        this.exact = new AsciiKeyTable(exactKeys, exactValues);
        this.wildcards = new AsciiKeyTable(wildcardKeys, wildcardValues);
        this.hasWildcards = !wildcardKeys.isEmpty();
        this.literalHigh = new long[literalNames.size()];
        this.literalLow = new long[literalNames.size()];
        this.literalValues = literals.toArray();
        for (int i = 0; i < literalNames.size(); i++) {
            literalHigh[i] = literalNames.get(i).ipHigh();
            literalLow[i] = literalNames.get(i).ipLow();
        }
        List<String> canonical = new ArrayList<>(b.names.size());
        for (HostNames.Name n : b.names) {
            canonical.add(n.canonical());
        }
        this.names = List.copyOf(canonical);
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /** The entry for a whole {@code Host} value, or null (also for a null or empty one). */
    public T find(CharSequence hostHeader) {
        return hostHeader == null ? null : find(hostHeader, 0, hostHeader.length());
    }

    /** The entry for the {@code Host} value in {@code s[from, to)}, or null. */
    @SuppressWarnings("unchecked")
    public T find(CharSequence s, int from, int to) {
        if (from >= to) {
            return null;
        }
        if (s.charAt(from) == '[') {
            return (T) findLiteral(s, from, to);
        }
        int end = nameEnd(s, from, to);
        if (end > from && s.charAt(end - 1) == '.') {
            end--;
        }
        if (end <= from || end - from > MAX_NAME) {
            return null;
        }
        Object value = exact.get(s, from, end);
        if (value == null && hasWildcards) {
            value = findWildcard(s, from, end);
        }
        return (T) value;
    }

    /** Entries of every kind. */
    public int size() {
        return names.size();
    }

    /** Canonical names in the order they were added (tooling; not for the request path). */
    public List<String> names() {
        return names;
    }

    @Override
    public String toString() {
        return "HostTable[" + names.size() + " names]";
    }

    /**
     * Where the name ends: before a valid {@code :port}, or at {@code to} when the text does not
     * end in one. The port is at most five digits, so only the last six characters are looked at;
     * a colon anywhere else stays in the name and makes it a miss.
     */
    private static int nameEnd(CharSequence s, int from, int to) {
        int i = to;
        while (i > from && to - i < 5 && isDigit(s.charAt(i - 1))) {
            i--;
        }
        if (i > from && s.charAt(i - 1) == ':' && portInRange(s, i, to)) {
            return i - 1;
        }
        return to;
    }

    private static boolean portInRange(CharSequence s, int from, int to) {
        int port = 0;
        for (int i = from; i < to; i++) {
            port = port * 10 + (s.charAt(i) - '0');
        }
        return port <= 65535;
    }

    /** {@code s[from, to)} after {@code ]}: nothing, or {@code :} and zero to five digits up to 65535. */
    private static boolean isPortSuffix(CharSequence s, int from, int to) {
        if (from == to) {
            return true;
        }
        if (s.charAt(from) != ':' || to - from > 6) {
            return false;
        }
        for (int i = from + 1; i < to; i++) {
            if (!isDigit(s.charAt(i))) {
                return false;
            }
        }
        return portInRange(s, from + 1, to);
    }

    private Object findWildcard(CharSequence s, int from, int end) {
        int dot = firstLabelEnd(s, from, end);
        return dot > from && dot + 1 < end ? wildcards.get(s, dot + 1, end) : null;
    }

    /** The index of the dot after a valid first label (1-63 letters, digits, hyphens), or -1. */
    private static int firstLabelEnd(CharSequence s, int from, int end) {
        int limit = Math.min(end, from + 64);
        for (int i = from; i < limit; i++) {
            char c = s.charAt(i);
            if (c == '.') {
                return i;
            }
            if (!(isDigit(c) || c == '-' || (c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
                return -1;
            }
        }
        return -1;
    }

    private Object findLiteral(CharSequence s, int from, int to) {
        if (literalHigh.length == 0) {
            return null;
        }
        int close = -1;
        boolean colon = false;
        int limit = Math.min(to, from + 2 + MAX_IPV6_TEXT);
        for (int i = from + 1; i < limit; i++) {
            char c = s.charAt(i);
            if (c == ']') {
                close = i;
                break;
            }
            colon |= c == ':';
        }
        // A colon inside is what makes it IPv6: "[192.0.2.1]" is not a valid Host (RFC 3986 section 3.2.2).
        if (close < 0 || !colon || !isPortSuffix(s, close + 1, to)) {
            return null;
        }
        long[] address = ADDRESS.get();
        if (!IpParser.parse(s, from + 1, close, address)) {
            return null;
        }
        for (int i = 0; i < literalHigh.length; i++) {
            if (literalHigh[i] == address[0] && literalLow[i] == address[1]) {
                return literalValues[i];
            }
        }
        return null;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Collects names at compile time. {@link #add} checks each name as it comes and throws
     * {@link IllegalArgumentException} for an invalid name or one that is the same entry as an
     * earlier name (after case folding, trailing-dot removal, IDN to punycode, IPv6 canonical
     * form); the message names both. A failed add changes nothing, so a caller reports each
     * problem with its own position and carries on, collecting every error in one pass.
     */
    public static final class Builder<T> {
        private final Map<String, String> configuredByCanonical = new HashMap<>();
        private final List<HostNames.Name> names = new ArrayList<>();
        private final List<T> values = new ArrayList<>();

        private Builder() {
        }

        public Builder<T> add(String configuredName, T value) {
            if (value == null) {
                throw new IllegalArgumentException("host name '" + configuredName + "' has no value");
            }
            HostNames.Name name = HostNames.parse(configuredName);
            String earlier = configuredByCanonical.putIfAbsent(name.canonical(), configuredName);
            if (earlier != null) {
                throw new IllegalArgumentException(earlier.equals(configuredName)
                        ? "duplicate host name '" + configuredName + "'"
                        : "host name '" + configuredName + "' is the same as '" + earlier
                                + "', added before (both are '" + name.canonical() + "')");
            }
            names.add(name);
            values.add(value);
            return this;
        }

        public HostTable<T> build() {
            return new HostTable<>(this);
        }
    }
}
