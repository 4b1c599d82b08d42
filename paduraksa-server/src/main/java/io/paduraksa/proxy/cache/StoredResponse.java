package io.paduraksa.proxy.cache;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import io.paduraksa.respond.RateLimitFields;
import io.paduraksa.snapshot.ResponseHeaderRules;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One stored response: status, the fields to replay (immutable {@link AsciiString}s, shared by
 * every thread that replays them), the body in one pooled direct buffer, and its freshness
 * (RFC 9111 4.2: the age when stored, the freshness lifetime, the stale windows). Or, for a
 * response that varies, a marker under the primary key that names the request fields
 * ({@link #vary()}) whose values complete the key of each variant.
 *
 * <p>Reference counted apart from its body: the store holds one reference; a hit takes one with
 * {@link #tryRetain()} (it fails once the store let go, so an eviction on another thread never
 * frees a body that a hit is about to duplicate) and gives it back after its retained duplicate of
 * the body was handed to the channel. The last reference releases the body. 0 B per hit.
 */
final class StoredResponse {
    /**
     * Heap bytes an entry costs beside its key's bytes, its fields and its body: the objects, the
     * body's buffer object and pool bookkeeping, Caffeine's node. Measured: 828 B of heap per entry
     * with three fields and a 45-byte key, 183 B more than the weight with 256 here counted
     * ({@code CacheStoreMemoryTest}); 512 keeps the weight above it.
     */
    static final int ENTRY_OVERHEAD = 512;
    /** Heap bytes per stored field beside its characters: two AsciiStrings and their arrays' headers. */
    static final int FIELD_OVERHEAD = 96;
    /**
     * Heap bytes of the HTTP/1.1 block ({@link #http1Lines}) beside its fields' characters: the
     * record, the array's header, the status line and each field's ": " and CRLF (4 per field, counted apart).
     * With the block, {@code CacheStoreMemoryTest} measured 946 B of heap per entry against 1,066 B
     * weighed (901 B weighed without these terms: too little).
     */
    static final int HTTP1_OVERHEAD = 96;

    private static final AsciiString[] NONE = {};
    private static final AtomicIntegerFieldUpdater<StoredResponse> REFS =
            AtomicIntegerFieldUpdater.newUpdater(StoredResponse.class, "refs");

    private final int status;
    private final AsciiString[] names;
    private final AsciiString[] values;
    private final ByteBuf body;
    private final long contentLength;
    private final long storedNanos;
    private final long initialAgeSeconds;
    private final long freshSeconds;
    private final long staleWhileRevalidateSeconds;
    private final long staleIfErrorSeconds;
    private final AsciiString[] vary;
    private final boolean hasRateLimitField;
    private final int weight;
    private volatile int refs = 1;
    /** The HTTP/1.1 head block for the rules of the last hit; replaced when a reload brought other rules. */
    private volatile Http1Block http1;

    /**
     * A response to replay; {@code body} (exactly the body's bytes, or null for none) is owned by
     * this entry from now on. {@code contentLength} is -1 for a response that has no length (204).
     */
    StoredResponse(int status, AsciiString[] names, AsciiString[] values, ByteBuf body, long contentLength, long storedNanos,
                   long initialAgeSeconds, long freshSeconds, long staleWhileRevalidateSeconds, long staleIfErrorSeconds,
                   int keyLength) {
        this.status = status;
        this.names = names;
        this.values = values;
        this.body = body;
        this.contentLength = contentLength;
        this.storedNanos = storedNanos;
        this.initialAgeSeconds = initialAgeSeconds;
        this.freshSeconds = freshSeconds;
        this.staleWhileRevalidateSeconds = staleWhileRevalidateSeconds;
        this.staleIfErrorSeconds = staleIfErrorSeconds;
        this.vary = null;
        this.hasRateLimitField = anyRateLimitField(names);
        this.weight = weigh(keyLength, names, values, body);
    }

    /** The marker of a response that varies on {@code vary} (lower-case names), kept as long as its variant. */
    StoredResponse(AsciiString[] vary, long storedNanos, long initialAgeSeconds, long freshSeconds, long staleSeconds, int keyLength) {
        this.status = 0;
        this.names = NONE;
        this.values = NONE;
        this.body = null;
        this.contentLength = -1;
        this.storedNanos = storedNanos;
        this.initialAgeSeconds = initialAgeSeconds;
        this.freshSeconds = freshSeconds;
        this.staleWhileRevalidateSeconds = staleSeconds;
        this.staleIfErrorSeconds = staleSeconds;
        this.vary = vary;
        this.hasRateLimitField = false;
        this.weight = weigh(keyLength, vary, NONE, null);
    }

    private static int weigh(int keyLength, AsciiString[] names, AsciiString[] values, ByteBuf body) {
        long w = ENTRY_OVERHEAD + keyLength + (body == null ? 0 : body.capacity()) + (values.length > 0 ? HTTP1_OVERHEAD : 0);
        for (int i = 0; i < names.length; i++) {
            int chars = names[i].length() + (i < values.length ? values[i].length() : 0);
            w += FIELD_OVERHEAD + (i < values.length ? 2L * chars + 4 : chars); // a response's fields again in its block
        }
        return (int) Math.min(Integer.MAX_VALUE, w);
    }

    int status() {
        return status;
    }

    int fieldCount() {
        return names.length;
    }

    AsciiString name(int i) {
        return names[i];
    }

    AsciiString value(int i) {
        return values[i];
    }

    /**
     * The status line and every field that {@code rules} keep, as HTTP/1.1 lines: encoded at the
     * first hit under these rules (a reload's new rules encode it again), then one copy per hit.
     * Null when {@code withoutRateLimit} and a stored field is a {@code RateLimit-*} field (the
     * exchange leaves those out field by field). 0 B once encoded.
     */
    byte[] http1Lines(ResponseHeaderRules rules, boolean withoutRateLimit) {
        if (withoutRateLimit && hasRateLimitField) {
            return null;
        }
        Http1Block b = http1;
        if (b == null || b.rules != rules) {
            b = new Http1Block(rules, encodeHttp1(rules)); // racing hits may each encode: the same bytes
            http1 = b;
        }
        return b.lines;
    }

    /** As the exchange writes a head field by field: "HTTP/1.1 " status, the standard phrase, then "Name: value" lines. */
    private byte[] encodeHttp1(ResponseHeaderRules rules) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 32 * names.length);
        out.writeBytes(("HTTP/1.1 " + status + " " + HttpResponseStatus.valueOf(status).reasonPhrase() + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        for (int i = 0; i < names.length; i++) {
            if (!rules.isRemoved(names[i])) {
                out.writeBytes(names[i].toByteArray());
                out.write(':');
                out.write(' ');
                out.writeBytes(values[i].toByteArray());
                out.write('\r');
                out.write('\n');
            }
        }
        return out.toByteArray();
    }

    private static boolean anyRateLimitField(AsciiString[] names) {
        for (AsciiString n : names) {
            if (RateLimitFields.isField(n)) {
                return true;
            }
        }
        return false;
    }

    private record Http1Block(ResponseHeaderRules rules, byte[] lines) {
    }

    /** The body's bytes, or null; read only (duplicate it to write). */
    ByteBuf body() {
        return body;
    }

    long contentLength() {
        return contentLength;
    }

    /** Lower-case names of the request fields the variants differ in, or null when this is a response. */
    AsciiString[] vary() {
        return vary;
    }

    /** Bytes this entry counts against the store's bound. */
    int weight() {
        return weight;
    }

    /** The response's current age in seconds (RFC 9111 4.2.3: its age when stored plus the time since). */
    long ageSeconds(long nowNanos) {
        return initialAgeSeconds + Math.max(0, nowNanos - storedNanos) / 1_000_000_000L;
    }

    boolean isFresh(long nowNanos) {
        return ageSeconds(nowNanos) < freshSeconds;
    }

    /** Stale, but within its stale-while-revalidate window. */
    boolean mayServeWhileRevalidating(long nowNanos) {
        return ageSeconds(nowNanos) < freshSeconds + staleWhileRevalidateSeconds;
    }

    /** Within its stale-if-error window (fresh included). */
    boolean mayServeOnError(long nowNanos) {
        return ageSeconds(nowNanos) < freshSeconds + staleIfErrorSeconds;
    }

    /** No rule can serve it any more (fresh, or within a stale window): the store may drop it. */
    boolean isDead(long nowNanos) {
        return ageSeconds(nowNanos) >= freshSeconds + Math.max(staleWhileRevalidateSeconds, staleIfErrorSeconds);
    }

    /** Takes a reference for a hit; false when the store already let the entry go. */
    boolean tryRetain() {
        for (;;) {
            int r = refs;
            if (r <= 0) {
                return false;
            }
            if (REFS.compareAndSet(this, r, r + 1)) {
                return true;
            }
        }
    }

    /** Gives a reference back; the last one releases the body. */
    void release() {
        if (REFS.decrementAndGet(this) == 0 && body != null) {
            body.release();
        }
    }

    @Override
    public String toString() {
        return vary != null ? "StoredResponse(vary " + Arrays.toString(vary) + ")"
                : "StoredResponse(" + status + ", " + contentLength + " B, fresh " + freshSeconds + "s)";
    }
}
