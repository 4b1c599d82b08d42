package io.paduraksa.policy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.respond.PrecomputedResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Forward-auth (nginx {@code auth_request}, Traefik ForwardAuth): an auth service decides, by a
 * subrequest the server sends. Per request, {@link #evaluate} looks the request's key (the values of
 * the cache's key headers) up in the decision cache: a hit returns the cached decision (and hands a
 * cached allow's copied headers to the request) synchronously, 0 B; a miss, or no cache, returns
 * NEEDS_ASYNC. The server then sends the subrequest in its own slow path ({@link #key} to capture the
 * key, {@link #decide} with the auth service's answer, or {@link #unavailable()}) and resumes the gate.
 *
 * <p>Denials built from an auth answer (its status, {@code WWW-Authenticate}, {@code Location},
 * {@code Content-Type} and body) are built at run time and shared by the requests that hit the
 * same entry, so they are never released explicitly: their buffers are unpooled and freed by the
 * garbage collector once no entry and no write holds them (a pooled buffer released on eviction could
 * still be written by another loop).
 */
public final class ForwardAuthPolicy extends NamedPolicy implements AsyncPolicy {
    /** The largest auth answer body passed on to the client; a larger one makes the service unavailable. */
    public static final int MAX_BODY = 64 * 1024;
    /** Unpooled, leak detection off, freed by the GC: see the class comment. */
    private static final ByteBufAllocator DENIALS = new UnpooledByteBufAllocator(false, true, false);

    private final URI url;
    private final String method;
    private final String[] forwardHeaders;
    private final AsciiString[] forwardHeadersLower;
    private final String[] copyHeaders;
    private final long timeoutMillis;
    private final PolicyDecision unavailable;
    private final ForwardAuthCache cache;
    private final java.nio.file.Path ca;

    /**
     * @param cacheKey header names the cache is keyed by; null for no cache
     * @param unavailable what a failed auth call decides (a denial, or CONTINUE for {@code allow})
     * @param ca PEM trust anchors for an https:// url; null for the system trust store
     */
    public ForwardAuthPolicy(String name, URI url, String method, List<String> forwardHeaders, List<String> copyHeaders,
            List<String> cacheKey, long ttlNanos, int maxEntries, long timeoutMillis, PolicyDecision unavailable,
            java.nio.file.Path ca) {
        super(name);
        this.ca = ca;
        this.url = url;
        this.method = method;
        this.forwardHeaders = forwardHeaders.toArray(new String[0]);
        this.forwardHeadersLower = lower(forwardHeaders);
        this.copyHeaders = copyHeaders.toArray(new String[0]);
        this.timeoutMillis = timeoutMillis;
        this.unavailable = unavailable;
        this.cache = cacheKey == null ? null : new ForwardAuthCache(lower(cacheKey), ttlNanos, maxEntries);
    }

    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        ForwardAuthCache c = cache;
        if (c == null) {
            return PolicyDecision.NEEDS_ASYNC;
        }
        ForwardAuthCache.Entry e = c.find(request, System.nanoTime());
        if (e == null) {
            return PolicyDecision.NEEDS_ASYNC;
        }
        if (e.fields != null) {
            request.upstreamFields(e.fields);
        }
        return e.decision;
    }

    // ---- the slow path, for the server ----

    public URI url() {
        return url;
    }

    public String method() {
        return method;
    }

    /** The client headers copied to the subrequest, as configured. */
    public String[] forwardHeaders() {
        return forwardHeaders.clone();
    }

    /** Lower-case forms of {@link #forwardHeaders()}, index-aligned, for reading the request. */
    public AsciiString[] forwardHeadersLower() {
        return forwardHeadersLower.clone();
    }

    /** The PEM trust anchors for an https:// url, or null for the system trust store. */
    public java.nio.file.Path ca() {
        return ca;
    }

    public long timeoutMillis() {
        return timeoutMillis;
    }

    /** Captures the request's cache key while its headers are readable (slow path, allocates); null without a cache. */
    public Object key(PolicyInput request) {
        return cache == null ? null : cache.key(request);
    }

    /** The decision when the auth service could not answer (not cached: the next request tries again). */
    public PolicyDecision unavailable() {
        return unavailable;
    }

    /**
     * Turns the auth service's answer into a decision, caches it under {@code key} (from {@link #key})
     * and, for an allow with copied headers, hands them to {@code request}. Slow path: allocates.
     *
     * @param headers the answer's header fields as name and value pairs, in order
     * @param request the request that asked, or null when it has gone (the decision is still cached)
     */
    public PolicyDecision decide(Object key, int status, List<String[]> headers, byte[] body, PolicyInput request) {
        boolean setsCookie = find(headers, "set-cookie") != null;
        PolicyDecision decision;
        UpstreamFields fields = null;
        if (status >= 200 && status < 300) {
            fields = copied(headers);
            decision = PolicyDecision.CONTINUE;
        } else if (status == 401 || status == 403 || isRedirect(status) && find(headers, "location") != null) {
            decision = denial(status, headers, body);
        } else {
            return unavailable;
        }
        if (decision == null) {
            return unavailable;
        }
        if (cache != null && key != null && !setsCookie) {
            // An answer that sets a cookie (a login flow's state) is for one client only: never replayed.
            cache.put((ForwardAuthCache.Key) key, decision, fields, System.nanoTime());
        }
        if (fields != null && request != null) {
            request.upstreamFields(fields);
        }
        return decision;
    }

    private UpstreamFields copied(List<String[]> headers) {
        List<String[]> out = new ArrayList<>(copyHeaders.length);
        for (String name : copyHeaders) {
            String value = find(headers, name.toLowerCase(Locale.ROOT));
            if (value != null && isFieldValue(value)) {
                out.add(new String[] {name, value});
            }
        }
        return out.isEmpty() ? null : new UpstreamFields(out);
    }

    private static PolicyDecision denial(int status, List<String[]> headers, byte[] body) {
        PrecomputedResponse.Builder b = PrecomputedResponse.builder(status);
        for (String[] h : headers) {
            String lower = h[0].toLowerCase(Locale.ROOT);
            boolean passed = lower.equals("www-authenticate") || lower.equals("location") || lower.equals("set-cookie")
                    || lower.equals("content-type") && body.length > 0;
            if (passed && isFieldValue(h[1])) {
                b.header(h[0], h[1]);
            }
        }
        b.header("Cache-Control", "no-store");
        String text = new String(body, StandardCharsets.UTF_8);
        try {
            b.body(text.replace(PrecomputedResponse.REQUEST_ID_VARIABLE, "$ {request_id}"));
        } catch (IllegalArgumentException e) {
            return null;
        }
        return PolicyDecision.respond(b.build(DENIALS));
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /** The first value of a header (lower-case name), or null. */
    private static String find(List<String[]> headers, String lowerName) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(lowerName)) {
                return h[1];
            }
        }
        return null;
    }

    /** One header line of visible ASCII, spaces and tabs (what {@link PrecomputedResponse} accepts). */
    private static boolean isFieldValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0x7E || c < 0x20 && c != '\t') {
                return false;
            }
        }
        return true;
    }

    private static AsciiString[] lower(List<String> names) {
        AsciiString[] out = new AsciiString[names.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = AsciiString.of(names.get(i).toLowerCase(Locale.ROOT));
        }
        return out;
    }

    @Override
    public String toString() {
        return "ForwardAuthPolicy(" + name + ", " + url + (cache == null ? ", no cache)" : ", " + cache.capacity() + " slots)");
    }
}
