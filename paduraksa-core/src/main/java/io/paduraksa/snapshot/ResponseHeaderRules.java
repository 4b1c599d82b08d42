package io.paduraksa.snapshot;

import io.netty.util.AsciiString;
import io.paduraksa.config.ResponseHeadersSpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Response-side transforms for one host ({@link CompiledHost#responseHeaders()}); the one for
 * unknown hosts and defaults is {@link Snapshot#defaultResponseHeaders()}. A host's
 * {@code response_headers} is merged over {@code forwarding.response_headers}: its {@code set}
 * replaces a default of the same name (case-insensitive), its {@code remove} also drops such a
 * default, and removes are the union. Immutable; read per request without allocating.
 */
public final class ResponseHeaderRules {
    private final HeaderNameSet removed;
    private final byte[] http1Lines;
    private final AsciiString[] names;
    private final AsciiString[] values;

    private ResponseHeaderRules(HeaderNameSet removed, byte[] http1Lines, AsciiString[] names, AsciiString[] values) {
        this.removed = removed;
        this.http1Lines = http1Lines;
        this.names = names;
        this.values = values;
    }

    /** The defaults alone ({@code forwarding.response_headers}). Compile time only. */
    public static ResponseHeaderRules compile(ResponseHeadersSpec defaults) {
        return compile(defaults, ResponseHeadersSpec.EMPTY);
    }

    /** {@code host} merged over {@code defaults}; both were checked when bound. Compile time only. */
    public static ResponseHeaderRules compile(ResponseHeadersSpec defaults, ResponseHeadersSpec host) {
        return compile(defaults, host, null);
    }

    /**
     * As {@link #compile(ResponseHeadersSpec, ResponseHeadersSpec)}; {@code echoedRequestId}, when
     * not null, is the request-id header the response writers add themselves
     * ({@code forwarding.request_id.echo}): the upstream's own copy is removed, so there is one.
     */
    public static ResponseHeaderRules compile(ResponseHeadersSpec defaults, ResponseHeadersSpec host, String echoedRequestId) {
        Map<String, Map.Entry<String, String>> set = new LinkedHashMap<>();
        putAll(set, defaults.set());
        for (String name : host.remove()) {
            set.remove(lower(name));
        }
        putAll(set, host.set());
        Set<String> removedNames = new LinkedHashSet<>(ForwardingRules.HOP_BY_HOP);
        for (String name : defaults.remove()) {
            removedNames.add(lower(name));
        }
        for (String name : host.remove()) {
            removedNames.add(lower(name));
        }
        removedNames.addAll(set.keySet());
        if (echoedRequestId != null) {
            removedNames.add(lower(echoedRequestId));
        }
        List<Map.Entry<String, String>> entries = new ArrayList<>(set.values());
        AsciiString[] names = new AsciiString[entries.size()];
        AsciiString[] values = new AsciiString[entries.size()];
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        for (int i = 0; i < entries.size(); i++) {
            names[i] = AsciiString.of(lower(entries.get(i).getKey()));
            values[i] = AsciiString.of(entries.get(i).getValue());
            lines.writeBytes((entries.get(i).getKey() + ": " + entries.get(i).getValue() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        return new ResponseHeaderRules(HeaderNameSet.of(removedNames, true), lines.toByteArray(), names, values);
    }

    private static void putAll(Map<String, Map.Entry<String, String>> into, Map<String, String> set) {
        for (Map.Entry<String, String> e : set.entrySet()) {
            into.remove(lower(e.getKey()));
            into.put(lower(e.getKey()), Map.entry(e.getKey(), e.getValue()));
        }
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /**
     * True for a response header that must not reach the client: hop-by-hop ({@code connection},
     * {@code keep-alive}, {@code te}, {@code trailer}, {@code transfer-encoding}, {@code upgrade},
     * {@code proxy-*}), the configured removes, and every name in {@code set} (it is replaced).
     * ASCII case-insensitive; per request, allocates nothing.
     */
    public boolean isRemoved(CharSequence name) {
        return removed.contains(name);
    }

    /** The {@code set} headers as {@code "Name: value\r\n"}... in US-ASCII; empty when none. Do not modify. */
    public byte[] http1Lines() {
        return http1Lines;
    }

    /** Lower-case names of the {@code set} headers (for HTTP/2), in the order of {@link #values()}. Do not modify. */
    public AsciiString[] names() {
        return names;
    }

    /** Values of the {@code set} headers, in the order of {@link #names()}. Do not modify. */
    public AsciiString[] values() {
        return values;
    }

    @Override
    public String toString() {
        return "ResponseHeaderRules(set " + new String(http1Lines, StandardCharsets.US_ASCII).replace("\r\n", "; ").strip()
                + " removed: " + removed + ")";
    }
}
