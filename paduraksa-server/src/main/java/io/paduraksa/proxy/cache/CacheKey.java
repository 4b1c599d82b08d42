package io.paduraksa.proxy.cache;

import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.http1.AsciiView;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A cache key as bytes: the request's host (lower case, without port or trailing dot), its
 * normalised path and its query, each ended by a 0 byte, and for a response that varies, the
 * value of each request field its {@code Vary} names (also 0-ended; an absent field is a single
 * 1 byte, so absent and empty differ). A 0 cannot occur inside any part: the gate refuses NUL in
 * paths, and hosts and field values cannot carry it.
 *
 * <p>Two roles: a stored key ({@link #copy()}, immutable once made) and a per-thread probe that
 * is rebuilt in place for every lookup ({@link #primary}, {@link #addVary}): 0 B per request.
 * {@link #equals} and {@link #hashCode} compare the bytes, so a probe finds the stored key.
 */
final class CacheKey {
    /** Longest key a lookup builds; longer requests are not cached (bypassed). */
    static final int MAX_LENGTH = 16 * 1024;
    private static final byte END = 0;
    private static final byte ABSENT = 1;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long MIX = 0x9E3779B97F4A7C15L;
    private static final long SEED = ThreadLocalRandom.current().nextLong();

    private byte[] bytes;
    private int length;
    private int hash;
    /** Where the host part ends (its 0 byte), for purges by host and path. */
    private int hostEnd;
    /** Where the path part ends (its 0 byte). */
    private int pathEnd;

    /** A probe with room for {@code capacity} bytes; it grows up to {@link #MAX_LENGTH}. */
    CacheKey(int capacity) {
        this.bytes = new byte[capacity];
    }

    private CacheKey(byte[] bytes, int hash, int hostEnd, int pathEnd) {
        this.bytes = bytes;
        this.length = bytes.length;
        this.hash = hash;
        this.hostEnd = hostEnd;
        this.pathEnd = pathEnd;
    }

    /**
     * Re-points this probe at {@code state}'s host, normalised path and query. False when the key
     * would be longer than {@link #MAX_LENGTH} or there is no host. 0 B (the array grows only
     * until it fits the longest request seen, at most {@link #MAX_LENGTH}).
     */
    boolean primary(RequestState state) {
        CharSequence authority = state.authority();
        byte[] path = state.path();
        int pathLength = state.pathLength();
        int qs = state.queryStart();
        int qe = state.queryEnd();
        int queryLength = qs < 0 ? 0 : qe - qs;
        if (authority == null || authority.isEmpty() || pathLength < 0) {
            return false;
        }
        int need = authority.length() + pathLength + queryLength + 3;
        if (!ensure(need)) {
            return false;
        }
        length = 0;
        appendHost(authority);
        hostEnd = length;
        bytes[length++] = END;
        System.arraycopy(path, 0, bytes, length, pathLength);
        length += pathLength;
        pathEnd = length;
        bytes[length++] = END;
        if (qs >= 0) {
            copy(state.target(), qs, qe, bytes, length);
            length += queryLength;
        }
        bytes[length++] = END;
        hash = hashOf(bytes, 0, length);
        return true;
    }

    /**
     * Appends the first value of each field in {@code names} (lower case) as {@code view} shows it,
     * trimmed of spaces and tabs; false when the key would grow past {@link #MAX_LENGTH}. 0 B.
     */
    boolean addVary(RequestView view, AsciiString[] names) {
        for (AsciiString name : names) {
            CharSequence v = view.header(name);
            if (v == null) {
                if (!ensure(length + 1)) {
                    return false;
                }
                bytes[length++] = ABSENT;
                continue;
            }
            int from = 0;
            int to = v.length();
            while (from < to && isSpace(v.charAt(from))) {
                from++;
            }
            while (to > from && isSpace(v.charAt(to - 1))) {
                to--;
            }
            if (!ensure(length + to - from + 1)) {
                return false;
            }
            for (int i = from; i < to; i++) {
                bytes[length++] = (byte) v.charAt(i);
            }
            bytes[length++] = END;
        }
        hash = hashOf(bytes, 0, length);
        return true;
    }

    /** A stored key from its parts (host in lower case), as {@link #primary} builds it; for tools and tests. */
    static CacheKey of(String host, String path, String query) {
        byte[] h = host.getBytes(StandardCharsets.ISO_8859_1);
        byte[] p = path.getBytes(StandardCharsets.ISO_8859_1);
        byte[] q = query.getBytes(StandardCharsets.ISO_8859_1);
        byte[] b = new byte[h.length + p.length + q.length + 3];
        System.arraycopy(h, 0, b, 0, h.length);
        System.arraycopy(p, 0, b, h.length + 1, p.length);
        System.arraycopy(q, 0, b, h.length + p.length + 2, q.length);
        return new CacheKey(b, hashOf(b, 0, b.length), h.length, h.length + 1 + p.length);
    }

    /** An immutable copy of this key's bytes, to store. */
    CacheKey copy() {
        return new CacheKey(Arrays.copyOf(bytes, length), hash, hostEnd, pathEnd);
    }

    /** Bytes this key holds (the stored weight of its array, without the object). */
    int length() {
        return length;
    }

    /** Whether this key's host is {@code host} (lower case) and its path is {@code path}, or starts with it ({@code prefix}). */
    boolean matches(byte[] host, byte[] path, boolean prefix) {
        if (host != null && (hostEnd != host.length || !Arrays.equals(bytes, 0, hostEnd, host, 0, host.length))) {
            return false;
        }
        if (path == null) {
            return true;
        }
        int pathLength = pathEnd - hostEnd - 1;
        if (prefix ? pathLength < path.length : pathLength != path.length) {
            return false;
        }
        return Arrays.equals(bytes, hostEnd + 1, hostEnd + 1 + path.length, path, 0, path.length);
    }

    private boolean ensure(int need) {
        if (need > MAX_LENGTH) {
            return false;
        }
        if (need > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(MAX_LENGTH, Math.max(need, bytes.length * 2)));
        }
        return true;
    }

    /**
     * Lower case, without the port or a trailing dot; an IPv6 literal keeps its brackets. One pass
     * over the authority (a hit's lookup is a third key building, in JFR samples of CacheHitLoopback).
     */
    private void appendHost(CharSequence authority) {
        int n = authority.length();
        int start = length;
        copy(authority, 0, n, bytes, start);
        int end = start + n;
        // an IPv6 literal ends at its ']', a name or IPv4 address at the port's ':'
        byte stop = bytes[start] == '[' ? (byte) ']' : (byte) ':';
        int i = start;
        while (i < end && bytes[i] != stop) {
            byte c = bytes[i];
            if (c >= 'A' && c <= 'Z') {
                bytes[i] = (byte) (c + 32);
            }
            i++;
        }
        length = stop == ']' && i < end ? i + 1 : i;
        if (length > start && bytes[length - 1] == '.') {
            length--;
        }
    }

    /**
     * Copies {@code s[from, to)} (ASCII, one byte per char) into {@code dst} at {@code at}: in bulk
     * from the HTTP/1.1 head's view or an {@link AsciiString}, else a char at a time. 0 B.
     */
    private static void copy(CharSequence s, int from, int to, byte[] dst, int at) {
        if (s instanceof AsciiView v) {
            v.copyTo(from, dst, at, to - from);
        } else if (s instanceof AsciiString a) {
            System.arraycopy(a.array(), a.arrayOffset() + from, dst, at, to - from);
        } else {
            for (int i = from; i < to; i++) {
                dst[at++] = (byte) s.charAt(i);
            }
        }
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    /**
     * Eight bytes a step, seeded per process (a client cannot pick URLs that collide in every
     * server). Replaced {@code 31 * h + b}, one byte a step.
     */
    private static int hashOf(byte[] b, int from, int to) {
        long h = SEED ^ (to - from);
        int i = from;
        for (; i + 8 <= to; i += 8) {
            h = (h ^ (long) LONGS.get(b, i)) * MIX;
            h ^= h >>> 31;
        }
        long tail = 0;
        for (; i < to; i++) {
            tail = (tail << 8) | (b[i] & 0xFF);
        }
        h = (h ^ tail) * MIX;
        return (int) (h ^ (h >>> 32));
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CacheKey k && k.hash == hash && Arrays.equals(bytes, 0, length, k.bytes, 0, k.length);
    }

    /** For purges and logs: host, path and query, with the 0 separators shown as spaces. */
    @Override
    public String toString() {
        byte[] shown = Arrays.copyOf(bytes, length);
        for (int i = 0; i < shown.length; i++) {
            shown[i] = shown[i] < 0x20 ? (byte) ' ' : shown[i];
        }
        return new String(shown, StandardCharsets.ISO_8859_1).trim();
    }
}
