package io.paduraksa.policy;

import io.netty.util.AsciiString;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A forward-auth policy's decision cache, shared by the event loops: a fixed table (the configured
 * maximum rounded up to a power of two) of immutable entries, each holding the exact key (the
 * values of the key headers), an expiry and the decision. A lookup hashes the key headers' values
 * in place with a per-policy random seed, probes {@value #PROBES} slots and compares the stored
 * values byte by byte, so two keys that share a hash never share a decision. Lookups are lock-free
 * reads of a volatile slot and allocate nothing; storing (after an auth call, the rare path)
 * allocates the entry and overwrites a slot with the same key, an empty or expired one, or the one
 * expiring soonest (that eviction is the table's bound). Two loops storing at once may overwrite
 * each other's entry: that costs one more auth call, never a wrong answer.
 */
final class ForwardAuthCache {
    static final int PROBES = 4;
    private static final long ABSENT = 0x9E3779B97F4A7C15L;

    private final AsciiString[] keyHeaders;
    private final long ttlNanos;
    private final AtomicReferenceArray<Entry> slots;
    private final int mask;
    private final long seed = ThreadLocalRandom.current().nextLong();

    /** One cached decision; immutable. */
    static final class Entry {
        final Key key;
        final long expiresAt;
        final PolicyDecision decision;
        final UpstreamFields fields;

        Entry(Key key, long expiresAt, PolicyDecision decision, UpstreamFields fields) {
            this.key = key;
            this.expiresAt = expiresAt;
            this.decision = decision;
            this.fields = fields;
        }
    }

    ForwardAuthCache(AsciiString[] keyHeaders, long ttlNanos, int maxEntries) {
        this.keyHeaders = keyHeaders;
        this.ttlNanos = ttlNanos;
        int size = Integer.highestOneBit(Math.max(PROBES, maxEntries - 1)) << 1;
        this.slots = new AtomicReferenceArray<>(Math.min(size, 1 << 26));
        this.mask = slots.length() - 1;
    }

    int capacity() {
        return slots.length();
    }

    /** The live entry for the request's key, or null. 0 B. */
    Entry find(PolicyInput in, long now) {
        long h = hash(in);
        int start = (int) h;
        for (int p = 0; p < PROBES; p++) {
            Entry e = slots.get((start + p) & mask);
            if (e != null && e.key.hash == h && now - e.expiresAt < 0 && e.key.matches(in, keyHeaders)) {
                return e;
            }
        }
        return null;
    }

    /** Copies the request's key (slow path: allocates). */
    Key key(PolicyInput in) {
        long h = hash(in);
        int[] lengths = new int[keyHeaders.length];
        int total = 0;
        for (int i = 0; i < keyHeaders.length; i++) {
            CharSequence v = in.header(keyHeaders[i]);
            lengths[i] = v == null ? -1 : v.length();
            total += v == null ? 0 : v.length();
        }
        byte[] data = new byte[total];
        int offset = 0;
        for (int i = 0; i < keyHeaders.length; i++) {
            CharSequence v = in.header(keyHeaders[i]);
            for (int j = 0; v != null && j < lengths[i] && j < v.length(); j++) {
                data[offset + j] = (byte) v.charAt(j);
            }
            offset += Math.max(lengths[i], 0);
        }
        return new Key(h, data, lengths);
    }

    /** Stores a decision for {@code key} until {@code now} plus the TTL (slow path). */
    void put(Key key, PolicyDecision decision, UpstreamFields fields, long now) {
        Entry fresh = new Entry(key, now + ttlNanos, decision, fields);
        int start = (int) key.hash;
        int victim = -1;
        long soonest = Long.MAX_VALUE;
        for (int p = 0; p < PROBES; p++) {
            int i = (start + p) & mask;
            Entry e = slots.get(i);
            if (e == null || now - e.expiresAt >= 0 || e.key.sameAs(key)) {
                slots.set(i, fresh);
                return;
            }
            if (e.expiresAt - now < soonest) {
                soonest = e.expiresAt - now;
                victim = i;
            }
        }
        slots.set(victim, fresh);
    }

    private long hash(PolicyInput in) {
        long h = seed;
        for (int i = 0; i < keyHeaders.length; i++) {
            CharSequence v = in.header(keyHeaders[i]);
            if (v == null) {
                h = RateLimiter.mix(h ^ ABSENT);
                continue;
            }
            int n = v.length();
            h = RateLimiter.mix(h ^ n);
            for (int j = 0; j < n; j++) {
                h = (h ^ (v.charAt(j) & 0xFF)) * 0x100000001B3L;
            }
        }
        return RateLimiter.mix(h);
    }

    /** A request's exact key: the key headers' values, concatenated, with each length (-1: absent). */
    static final class Key {
        final long hash;
        private final byte[] data;
        private final int[] lengths;

        Key(long hash, byte[] data, int[] lengths) {
            this.hash = hash;
            this.data = data;
            this.lengths = lengths;
        }

        boolean matches(PolicyInput in, AsciiString[] headers) {
            int offset = 0;
            for (int i = 0; i < headers.length; i++) {
                CharSequence v = in.header(headers[i]);
                int n = lengths[i];
                if (v == null || n < 0) {
                    if (v != null || n >= 0) {
                        return false;
                    }
                    continue;
                }
                if (v.length() != n) {
                    return false;
                }
                for (int j = 0; j < n; j++) {
                    if ((byte) v.charAt(j) != data[offset + j]) {
                        return false;
                    }
                }
                offset += n;
            }
            return true;
        }

        boolean sameAs(Key other) {
            return hash == other.hash && java.util.Arrays.equals(lengths, other.lengths) && java.util.Arrays.equals(data, other.data);
        }

        /** Equal to a key of the same values (the server coalesces concurrent misses by it). */
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && sameAs(k);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(hash);
        }
    }
}
