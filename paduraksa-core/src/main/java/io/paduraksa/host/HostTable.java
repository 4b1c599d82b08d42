package io.paduraksa.host;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.net.IpParser;
import io.paduraksa.text.AsciiText;
import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Finds the configured entry for a request's {@code Host} header or {@code :authority}.
 *
 * <p>Precedence, most specific first: an exact name (IPv6 literals compared by value), then the
 * wildcard with the longest matching parent ({@code *.a.w3.test} before {@code *.w3.test}), then
 * the catch-all entry {@code *}; else a miss (null), which the gate answers with {@code default}.
 * {@code *.w3.test} matches {@code a.w3.test} and {@code a.b.w3.test} but not {@code w3.test}.
 * Only a valid name reaches a wildcard or the catch-all: labels of 1-63 letters, digits and
 * hyphens (none first or last), at most 253 characters, an all-digit last label only in a dotted
 * quad, or a bracketed IPv6 address. Anything malformed ({@code a..b.test}, {@code a b}, raw
 * Unicode: clients send IDNs as punycode, a 64-character label) is a miss whatever is configured,
 * so the catch-all's policies cannot be skipped and a malformed Host never counts as a valid one.
 *
 * <p>{@link #find} runs per request and allocates nothing in steady state: it reads the header's bytes
 * (in place in an {@code AsciiString}'s array, else after one bulk copy into a per-thread scratch) and
 * strips the port and one trailing dot by index. An exact name is one hash over
 * the range and one probe. On a miss, one backward pass over the name checks it and hashes it from
 * its end ({@link AsciiKeyTable#step}), probing the wildcard table with the hash of the suffix after
 * every dot, so a lookup is O(characters) with one probe per label, however deep the name.
 *
 * <p>Port: one to five digits up to 65535 after the last {@code :}; an empty port ({@code host:})
 * is tolerated, as RFC 3986 section 3.2.3 allows it. Immutable and safe to share between event
 * loops; built once per config load by {@link Builder}.
 */
public final class HostTable<T> {
    /** Longest name we look up: 253 characters plus the one trailing dot. */
    private static final int MAX_NAME = 253;
    private static final int MAX_LABEL = 63;
    /** The longest IPv6 text, {@code ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255}. */
    private static final int MAX_IPV6_TEXT = 45;
    /** What {@link #scan} and {@link #literalIndex} return for a valid name that no entry of theirs takes. */
    private static final int NO_ENTRY = -1;
    /** What {@link #scan} and {@link #literalIndex} return for a name that is not a valid host name. */
    private static final int MALFORMED = -2;
    /** The longest text {@link #find} can take: a name of {@link #MAX_NAME}, one trailing dot and {@code :65535}. */
    static final int MAX_TEXT = MAX_NAME + 1 + 6;
    /** Per thread, since the table is shared by event loops: the host text copied out, and the parse target for IP literals. */
    private static final FastThreadLocal<Scratch> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected Scratch initialValue() {
            return new Scratch();
        }
    };

    private static final class Scratch {
        final byte[] text = new byte[MAX_TEXT];
        final long[] address = new long[2];
    }

    /** How an entry was found, for {@code explain} ({@link #describe}). */
    public enum Match { EXACT, WILDCARD, CATCH_ALL }

    /** What {@link #describe} reports: the entry, how it matched, and the configured name that did. */
    public record Found<T>(T value, Match match, String name) {
    }

    private final AsciiKeyTable exact;
    private final AsciiKeyTable wildcards;
    private final int longestWildcard;
    private final Object catchAll;
    /** A miss in the exact table needs the backward pass: there are wildcards or a catch-all. */
    private final boolean scans;
    private final long[] literalHigh;
    private final long[] literalLow;
    private final Object[] literalValues;
    private final String[] literalNames;
    private final List<String> names;

    private HostTable(Builder<T> b) {
        List<String> exactKeys = new ArrayList<>();
        List<Object> exactValues = new ArrayList<>();
        List<String> wildcardKeys = new ArrayList<>();
        List<Object> wildcardValues = new ArrayList<>();
        List<Object> literals = new ArrayList<>();
        List<HostNames.Name> literalEntries = new ArrayList<>();
        Object any = null;
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
                    literalEntries.add(n);
                    literals.add(v);
                }
                case CATCH_ALL -> any = v;
            }
        }
        this.exact = new AsciiKeyTable(exactKeys, exactValues, false);
        this.wildcards = new AsciiKeyTable(wildcardKeys, wildcardValues, true);
        this.longestWildcard = wildcards.maxKeyLength();
        this.catchAll = any;
        this.scans = !wildcardKeys.isEmpty() || any != null;
        this.literalHigh = new long[literalEntries.size()];
        this.literalLow = new long[literalEntries.size()];
        this.literalValues = literals.toArray();
        this.literalNames = new String[literalEntries.size()];
        for (int i = 0; i < literalEntries.size(); i++) {
            literalNames[i] = literalEntries.get(i).canonical();
            literalHigh[i] = literalEntries.get(i).ipHigh();
            literalLow[i] = literalEntries.get(i).ipLow();
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

    /**
     * The entry for the {@code Host} value in {@code s[from, to)}, or null. Every lookup reads bytes: in
     * place when they are in an array ({@link TextBytes}: an {@link AsciiString} of HTTP/3 and tests, the
     * HTTP/2 view), any other text (the HTTP/1.1 view, a String from {@code explain}) copied once into a
     * per-thread scratch; a char above 255 becomes 0xFF,
     * which no name and no address contains. A text longer than {@link #MAX_TEXT} names no entry.
     */
    public T find(CharSequence s, int from, int to) {
        int n = to - from;
        if (n <= 0 || n > MAX_TEXT) {
            return null;
        }
        byte[] inPlace = TextBytes.array(s);
        if (inPlace != null) {
            int base = TextBytes.offset(s);
            return find(inPlace, base + from, base + to);
        }
        byte[] text = SCRATCH.get().text;
        copy(s, from, n, text);
        return find(text, 0, n);
    }

    @SuppressWarnings("unchecked")
    private T find(byte[] a, int from, int to) {
        if (a[from] == '[') {
            return (T) findLiteral(a, from, to);
        }
        int end = nameEnd(a, from, to);
        if (end > from && a[end - 1] == '.') {
            end--;
        }
        if (end <= from || end - from > MAX_NAME) {
            return null;
        }
        Object value = exact.get(a, from, end);
        if (value == null && scans) {
            int slot = scan(a, from, end);
            value = slot >= 0 ? wildcards.value(slot) : slot == NO_ENTRY ? catchAll : null;
        }
        return (T) value;
    }

    private static void copy(CharSequence s, int from, int n, byte[] out) {
        if (s instanceof AsciiText t) {
            t.copyTo(from, out, 0, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(from + i);
            out[i] = c <= 0xFF ? (byte) c : (byte) 0xFF;
        }
    }

    /**
     * What {@link #find} finds for {@code hostHeader}, and how: for {@code paduraksa explain}, never
     * on the request path (allocates). Null for a miss.
     */
    @SuppressWarnings("unchecked")
    public Found<T> describe(CharSequence hostHeader) {
        T value = hostHeader == null ? null : find(hostHeader);
        if (value == null) {
            return null;
        }
        int to = hostHeader.length();
        byte[] text = new byte[to];
        copy(hostHeader, 0, to, text);
        if (text[0] == '[') {
            int i = literalIndex(text, 0, to);
            return i >= 0 ? new Found<>(value, Match.EXACT, literalNames[i]) : new Found<>(value, Match.CATCH_ALL, HostNames.CATCH_ALL);
        }
        int end = nameEnd(text, 0, to);
        end = text[end - 1] == '.' ? end - 1 : end;
        if (exact.get(text, 0, end) != null) {
            return new Found<>(value, Match.EXACT, new String(text, 0, end, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
        }
        int slot = scan(text, 0, end);
        return slot >= 0 ? new Found<>((T) wildcards.value(slot), Match.WILDCARD, "*." + wildcards.key(slot))
                : new Found<>(value, Match.CATCH_ALL, HostNames.CATCH_ALL);
    }

    /** True when the table has the catch-all entry {@code *}. */
    public boolean hasCatchAll() {
        return catchAll != null;
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
    private static int nameEnd(byte[] a, int from, int to) {
        int i = to;
        int port = 0;
        for (int scale = 1; i > from && to - i < 5; scale *= 10) {
            int c = a[i - 1];
            if (!isDigit(c)) {
                break;
            }
            port += (c - '0') * scale; // the digits read from the last, once
            i--;
        }
        return i > from && a[i - 1] == ':' && port <= 65535 ? i - 1 : to;
    }

    private static boolean portInRange(byte[] a, int from, int to) {
        int port = 0;
        for (int i = from; i < to; i++) {
            port = port * 10 + (a[i] - '0');
        }
        return port <= 65535;
    }

    /** {@code a[from, to)} after {@code ]}: nothing, or {@code :} and zero to five digits up to 65535. */
    private static boolean isPortSuffix(byte[] a, int from, int to) {
        if (from == to) {
            return true;
        }
        if (a[from] != ':' || to - from > 6) {
            return false;
        }
        for (int i = from + 1; i < to; i++) {
            if (!isDigit(a[i])) {
                return false;
            }
        }
        return portInRange(a, from + 1, to);
    }

    /**
     * The backward pass over {@code a[from, end)}: checks that it is a valid host name and, at every
     * dot, probes the wildcard table with the hash of the suffix after it (computed on the way, so
     * no suffix is hashed twice). The last hit is the longest parent. Returns its slot,
     * {@link #NO_ENTRY} or {@link #MALFORMED}.
     */
    private int scan(byte[] a, int from, int end) {
        int h = AsciiKeyTable.SEED;
        int found = NO_ENTRY;
        int labelEnd = end;
        boolean numericTail = true;
        for (int i = end - 1; i >= from; i--) {
            int c = a[i] & 0xFF;
            if (c == '.') {
                if (!isLabel(a, i + 1, labelEnd)) {
                    return MALFORMED;
                }
                if (end - i - 1 <= longestWildcard) {
                    int slot = wildcards.slot(a, i + 1, end, h);
                    found = slot >= 0 ? slot : found;
                }
                labelEnd = i;
            } else if (c == '-' || (c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
                if (labelEnd == end) {
                    numericTail = false;
                }
            } else if (!isDigit(c)) {
                return MALFORMED;
            }
            h = AsciiKeyTable.step(h, c);
        }
        if (!isLabel(a, from, labelEnd)) {
            return MALFORMED;
        }
        // RFC 3986 section 3.2.2: a name whose last label is all digits can only be an IPv4 address.
        return numericTail && !isIpv4(a, from, end) ? MALFORMED : found;
    }

    /** One label of a valid name: 1-63 bytes (already checked to be letters, digits, hyphens), no hyphen first or last. */
    private static boolean isLabel(byte[] a, int from, int to) {
        int length = to - from;
        return length > 0 && length <= MAX_LABEL && a[from] != '-' && a[to - 1] != '-';
    }

    private static boolean isIpv4(byte[] a, int from, int to) {
        long[] address = SCRATCH.get().address;
        return IpParser.parse(a, from, to, address) && IpParser.isMappedIpv4(address[0], address[1]);
    }

    /** An IPv6 literal: its entry, else the catch-all for a valid address, else null. */
    private Object findLiteral(byte[] a, int from, int to) {
        if (literalHigh.length == 0 && catchAll == null) {
            return null;
        }
        int i = literalIndex(a, from, to);
        return i >= 0 ? literalValues[i] : i == NO_ENTRY ? catchAll : null;
    }

    /** The index of the literal entry for {@code a[from, to)} (from at {@code [}), {@link #NO_ENTRY} or {@link #MALFORMED}. */
    private int literalIndex(byte[] a, int from, int to) {
        int close = -1;
        boolean colon = false;
        int limit = Math.min(to, from + 2 + MAX_IPV6_TEXT);
        for (int i = from + 1; i < limit; i++) {
            int c = a[i];
            if (c == ']') {
                close = i;
                break;
            }
            colon |= c == ':';
        }
        // A colon inside is what makes it IPv6: "[192.0.2.1]" is not a valid Host (RFC 3986 section 3.2.2).
        if (close < 0 || !colon || !isPortSuffix(a, close + 1, to)) {
            return MALFORMED;
        }
        long[] address = SCRATCH.get().address;
        if (!IpParser.parse(a, from + 1, close, address)) {
            return MALFORMED;
        }
        for (int i = 0; i < literalHigh.length; i++) {
            if (literalHigh[i] == address[0] && literalLow[i] == address[1]) {
                return i;
            }
        }
        return NO_ENTRY;
    }

    private static boolean isDigit(int c) {
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
            if (earlier != null && name.kind() == HostNames.Kind.CATCH_ALL) {
                throw new IllegalArgumentException("a second catch-all '*' (expected at most one catch-all entry)");
            }
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
