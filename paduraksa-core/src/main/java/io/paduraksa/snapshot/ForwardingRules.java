package io.paduraksa.snapshot;

import io.netty.util.AsciiString;
import io.paduraksa.config.ForwardingSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Request-side transforms, compiled once per snapshot ({@link Snapshot#forwarding()}): which
 * {@code X-Forwarded-*} headers the forwarder sets, the request-id header, the {@code Via} line,
 * and which client headers never reach an upstream. Immutable; every accessor is read per request
 * and allocates nothing.
 */
public final class ForwardingRules {
    /** What happens to {@code X-Forwarded-For}: set to the client IP, appended to, or passed through untouched. */
    public enum XForwardedFor { REPLACE, APPEND, OFF }

    /** RFC 9110 section 7.6.1 hop-by-hop fields, plus framing and Host, which the forwarder writes itself. */
    static final List<String> HOP_BY_HOP = List.of("connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade");

    private final XForwardedFor xForwardedFor;
    private final boolean xForwardedProto;
    private final boolean xForwardedHost;
    private final boolean xRealIp;
    private final AsciiString requestIdHeader;
    private final boolean propagateRequestId;
    private final byte[] viaLine;
    private final AsciiString viaValue;
    private final HeaderNameSet removed;
    private final boolean propagateTrace;
    private final boolean startTrace;
    private final boolean sampleNewTraces;

    private ForwardingRules(ForwardingSpec spec, HeaderNameSet removed) {
        this.xForwardedFor = XForwardedFor.valueOf(spec.xForwardedFor().toUpperCase(Locale.ROOT));
        this.xForwardedProto = spec.xForwardedProto();
        this.xForwardedHost = spec.xForwardedHost();
        this.xRealIp = spec.xRealIp();
        this.requestIdHeader = AsciiString.of(spec.requestId().header().toLowerCase(Locale.ROOT));
        this.propagateRequestId = spec.requestId().propagate();
        this.viaValue = spec.via().isEmpty() ? null : AsciiString.of("1.1 " + spec.via());
        this.viaLine = viaValue == null ? new byte[0] : ("Via: " + viaValue + "\r\n").getBytes(StandardCharsets.US_ASCII);
        this.removed = removed;
        this.propagateTrace = spec.trace().propagate();
        this.startTrace = spec.trace().startWhenAbsent();
        this.sampleNewTraces = spec.trace().sampled();
    }

    /**
     * Compiles {@code spec}; {@code clientIpHeader} is {@code client_ip.header}, never forwarded.
     * The spec was checked when bound (enumerations, header names). Compile time only.
     */
    public static ForwardingRules compile(ForwardingSpec spec, String clientIpHeader) {
        return compile(spec, clientIpHeader, List.of());
    }

    /**
     * As {@link #compile(ForwardingSpec, String)}; {@code policyFields} are fields a policy adds
     * itself (forward-auth's copied answer headers): a client's own copy of them never passes, on any
     * route, so an upstream that trusts {@code X-User} cannot be lied to.
     */
    public static ForwardingRules compile(ForwardingSpec spec, String clientIpHeader, List<String> policyFields) {
        List<String> names = new ArrayList<>(HOP_BY_HOP);
        names.addAll(policyFields);
        names.add("host");
        names.add("content-length");
        if (!spec.xForwardedFor().equals("off")) {
            names.add("x-forwarded-for");
        }
        if (spec.xForwardedProto()) {
            names.add("x-forwarded-proto");
        }
        if (spec.xForwardedHost()) {
            names.add("x-forwarded-host");
        }
        if (spec.xRealIp()) {
            names.add("x-real-ip");
        }
        // Always removed, also when propagating: the forwarder writes the one request-id field
        // itself (the client's usable value, or a generated one), so a client can never add a second.
        names.add(spec.requestId().header());
        names.add("cf-connecting-ip");
        names.add(clientIpHeader);
        names.addAll(spec.removeRequestHeaders());
        if (spec.trace().propagate() || spec.trace().startWhenAbsent()) {
            // The forwarder writes both itself (ours as the new parent; tracestate only with a valid traceparent).
            names.add("traceparent");
            names.add("tracestate");
        }
        return new ForwardingRules(spec, HeaderNameSet.of(names, true));
    }

    public XForwardedFor xForwardedFor() {
        return xForwardedFor;
    }

    /** Whether the forwarder sets {@code X-Forwarded-Proto} (the client connection's scheme). */
    public boolean xForwardedProto() {
        return xForwardedProto;
    }

    /** Whether the forwarder sets {@code X-Forwarded-Host} (the client's Host). */
    public boolean xForwardedHost() {
        return xForwardedHost;
    }

    /** Whether the forwarder sets {@code X-Real-IP} (the client IP). */
    public boolean xRealIp() {
        return xRealIp;
    }

    /** The request-id header name, lower-case, e.g. {@code x-request-id}. */
    public AsciiString requestIdHeader() {
        return requestIdHeader;
    }

    /** True: a client's id of 1 to 128 visible ASCII characters is kept; otherwise one is generated. */
    public boolean propagateRequestId() {
        return propagateRequestId;
    }

    /** {@code "Via: 1.1 <pseudonym>\r\n"} in US-ASCII, or an empty array when Via is off. Do not modify. */
    public byte[] viaLine() {
        return viaLine;
    }

    /** {@code "1.1 <pseudonym>"} (for HTTP/2), or null when Via is off. */
    public AsciiString viaValue() {
        return viaValue;
    }

    /** W3C Trace Context: a client's valid {@code traceparent} is continued (our span id as the new parent). */
    public boolean propagateTrace() {
        return propagateTrace;
    }

    /** W3C Trace Context: a trace is started when there is none to continue. */
    public boolean startTrace() {
        return startTrace;
    }

    /** Whether the forwarder writes {@code traceparent} at all (otherwise the client's fields pass untouched). */
    public boolean traces() {
        return propagateTrace || startTrace;
    }

    /** The trace flags of traces we start: {@code 01} (sampled) when configured, else {@code 00}. */
    public int newTraceFlags() {
        return sampleNewTraces ? 1 : 0;
    }

    /**
     * True for a request header that must not be forwarded: hop-by-hop ({@code connection},
     * {@code keep-alive}, {@code te}, {@code trailer}, {@code transfer-encoding}, {@code upgrade},
     * {@code proxy-*}), {@code host}, {@code content-length}, the {@code x-forwarded-*} and
     * {@code x-real-ip} headers this configuration sets ({@code x-forwarded-for} unless off: the
     * forwarder writes it, appending or not), the request-id header (always: the forwarder writes the one copy itself),
     * {@code cf-connecting-ip}, {@code client_ip.header}, and {@code remove_request_headers}.
     * Names listed in the client's {@code Connection} header are the forwarder's to drop.
     * ASCII case-insensitive; per request, allocates nothing.
     */
    public boolean isRemovedRequestHeader(CharSequence name) {
        return removed.contains(name);
    }

    /** The removed names, lower-case (besides every {@code proxy-*}); for explain output and tests. */
    public List<String> removedRequestHeaders() {
        return removed.names();
    }

    @Override
    public String toString() {
        return "ForwardingRules(x-forwarded-for " + xForwardedFor + ", proto " + xForwardedProto + ", host " + xForwardedHost
                + ", x-real-ip " + xRealIp + ", request id " + requestIdHeader + (propagateRequestId ? " propagated" : " generated")
                + ", via " + viaValue + ", trace " + (propagateTrace ? "propagated" : "not propagated")
                + (startTrace ? ", started when absent" : "") + ", removed: " + removed + ")";
    }
}
