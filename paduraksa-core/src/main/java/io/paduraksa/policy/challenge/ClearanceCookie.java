package io.paduraksa.policy.challenge;

/**
 * The clearance cookie a solved challenge earns:
 * {@code 1.<key id>.<expiry, unix seconds>.<MAC>}, where MAC is the first 128 bits (RFC 4868
 * truncation) of HMAC-SHA-256, in lower-case hex, over {@code "C"}, the text before the MAC, the
 * issuing policy's scope ({@link ChallengeKey#scope}: a digest of its name, so a cookie earned at
 * one challenge policy is refused by another that shares its keys), the client binding (masked
 * address and prefix length) and, with {@code bind_host}, the request's host name. The address
 * itself is not in the cookie: the MAC binds it, and an unkeyed digest of an IPv4 address would be
 * reversible by trying all 2^32.
 *
 * <p>{@link #isValid} runs per request on the event loop: it walks the {@code Cookie} header in
 * place, allocates nothing, and compares MACs in constant time. A cookie is valid when it names a
 * listed key, is unexpired (and expires no later than the configured lifetime from now, so a
 * shortened {@code ttl} takes effect), and its MAC matches this client's binding. {@link #issue}
 * runs on the rare verification path and allocates.
 */
public final class ClearanceCookie {
    static final char VERSION = '1';
    private static final int MAC_HEX = 32;
    /** Clock difference tolerated between the boxes of one deployment sharing a key. */
    private static final long SKEW_SECONDS = 60;

    private final String name;
    private final ChallengeKey[] keys;
    private final long ttlSeconds;
    private final ClientBinding binding;
    private final byte[] scope;
    private final boolean bindHost;

    /**
     * @param keys     the first signs new cookies; all verify (rotation)
     * @param policy   the issuing policy's name: its cookies are valid only at a policy of that name
     * @param bindHost whether a cookie is valid only for the host name it was issued for
     */
    public ClearanceCookie(String name, ChallengeKey[] keys, long ttlSeconds, ClientBinding binding, String policy,
            boolean bindHost) {
        if (keys.length == 0 || ttlSeconds <= 0) {
            throw new IllegalArgumentException("a clearance cookie needs a key and a positive lifetime");
        }
        this.name = name;
        this.keys = keys.clone();
        this.ttlSeconds = ttlSeconds;
        this.binding = binding;
        this.scope = ChallengeKey.scope(policy);
        this.bindHost = bindHost;
    }

    public String name() {
        return name;
    }

    public long ttlSeconds() {
        return ttlSeconds;
    }

    /**
     * Whether the {@code Cookie} header (null: none) holds a valid clearance for this client at
     * {@code authority} (the {@code Host} or {@code :authority} value, null when absent; read only
     * with {@code bind_host}). 0 B.
     */
    public boolean isValid(CharSequence cookieHeader, CharSequence authority, long high, long low, long nowSeconds) {
        if (cookieHeader == null) {
            return false;
        }
        int end = cookieHeader.length();
        int i = 0;
        while (i < end) {
            int pairEnd = indexOf(cookieHeader, ';', i, end);
            int start = skipSpaces(cookieHeader, i, pairEnd);
            int valueStart = start + name.length() + 1;
            if (valueStart <= pairEnd && cookieHeader.charAt(valueStart - 1) == '=' && regionEquals(cookieHeader, start, name)
                    && verify(cookieHeader, valueStart, trimEnd(cookieHeader, valueStart, pairEnd), authority, high, low, nowSeconds)) {
                return true; // every occurrence is tried: a stale cookie for another path may come first
            }
            i = pairEnd + 1;
        }
        return false;
    }

    /** Whether {@code s[from, to)} is a valid cookie value for this client at {@code nowSeconds}. 0 B. */
    public boolean verify(CharSequence s, int from, int to, CharSequence authority, long high, long low, long nowSeconds) {
        int macStart = to - MAC_HEX;
        if (macStart - from < 6 || s.charAt(from) != VERSION || s.charAt(from + 1) != '.' || s.charAt(macStart - 1) != '.') {
            return false;
        }
        int kidEnd = indexOf(s, '.', from + 2, macStart - 1);
        ChallengeKey key = key(keys, s, from + 2, kidEnd);
        long expiry = parseSeconds(s, kidEnd + 1, macStart - 1);
        if (key == null || expiry <= nowSeconds || expiry > nowSeconds + ttlSeconds + SKEW_SECONDS) {
            return false;
        }
        ChallengeHmac hmac = ChallengeHmac.get();
        if (!gather(hmac, s, from, macStart - 1, authority, high, low)) {
            return false;
        }
        return ChallengeHmac.hexEquals(s, macStart, hmac.mac(key), MAC_HEX);
    }

    /** The MAC's input: "C", the signed text, this policy's scope, the client binding, the host if bound. */
    private boolean gather(ChallengeHmac hmac, CharSequence s, int from, int to, CharSequence authority, long high, long low) {
        hmac.put((byte) 'C');
        boolean fits = hmac.put(s, from, to) && hmac.put(scope);
        hmac.putBinding(high, low, binding.bits(high, low));
        return fits && (!bindHost || hmac.putHost(authority));
    }

    /**
     * A new cookie value for this client at {@code authority} (read only with {@code bind_host}),
     * signed with the first key, valid for the lifetime; null when the host name is too long to
     * bind. Allocates.
     */
    public String issue(CharSequence authority, long high, long low, long nowSeconds) {
        ChallengeKey key = keys[0];
        String signed = VERSION + "." + key.id() + "." + (nowSeconds + ttlSeconds);
        ChallengeHmac hmac = ChallengeHmac.get();
        if (!gather(hmac, signed, 0, signed.length(), authority, high, low)) {
            return null;
        }
        byte[] mac = hmac.mac(key);
        StringBuilder sb = new StringBuilder(signed.length() + 1 + MAC_HEX).append(signed).append('.');
        for (int i = 0; i < MAC_HEX / 2; i++) {
            sb.append((char) ChallengeHmac.hexDigit(mac[i] >> 4)).append((char) ChallengeHmac.hexDigit(mac[i]));
        }
        return sb.toString();
    }

    /** The key whose id is {@code s[from, to)}, or null. */
    static ChallengeKey key(ChallengeKey[] keys, CharSequence s, int from, int to) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i].idEquals(s, from, to)) {
                return keys[i];
            }
        }
        return null;
    }

    /** Unix seconds written as 1 to 12 decimal digits, or -1. */
    static long parseSeconds(CharSequence s, int from, int to) {
        if (to <= from || to - from > 12) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    static int indexOf(CharSequence s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return to;
    }

    private static int skipSpaces(CharSequence s, int from, int to) {
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        return from;
    }

    private static int trimEnd(CharSequence s, int from, int to) {
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        return to;
    }

    /** Cookie names are case-sensitive (RFC 6265 section 5.4 compares them as written). */
    private static boolean regionEquals(CharSequence s, int from, String text) {
        for (int i = 0; i < text.length(); i++) {
            if (s.charAt(from + i) != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "ClearanceCookie[" + name + ", " + ttlSeconds + " s, " + keys.length + " keys, " + binding + (bindHost ? ", host" : "") + ']';
    }
}
