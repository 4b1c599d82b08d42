package io.paduraksa.snapshot;

import io.netty.util.AsciiString;
import io.paduraksa.config.ForwardingSpec;
import io.paduraksa.text.TextBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Request-side transforms, compiled once per snapshot ({@link Snapshot#forwarding()}): which
 * {@code X-Forwarded-*} headers the forwarder sets, the request-id header, the {@code Via} line,
 * and which client headers never reach an upstream. Immutable; every accessor is read per request
 * and allocates nothing.
 *
 * <p>Client identity: a field that claims the client's address or the origin it reached
 * ({@link #IDENTITY_HEADERS}, {@code forwarding.identity_headers}, {@code client_ip.header}) is
 * compared with {@code -} and {@code _} folded together, and reaches an upstream only from a
 * trusted proxy and only when that proxy is the one that sets it: {@code client_ip.header},
 * {@code X-Forwarded-For} with {@code x_forwarded_for: off}, and
 * {@code forwarding.identity_headers_from_trusted_proxies}, spelt exactly (a trusted proxy passes its
 * client's {@code CF_Connecting_IP} on untouched). A name the forwarder writes itself is always
 * replaced by its own value.
 */
public final class ForwardingRules {
    /** What happens to {@code X-Forwarded-For}: set to the client IP, appended to, or passed through untouched. */
    public enum XForwardedFor { REPLACE, APPEND, OFF }

    /** RFC 9110 section 7.6.1 hop-by-hop fields, plus framing and Host, which the forwarder writes itself. */
    static final List<String> HOP_BY_HOP = List.of("connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade");

    /**
     * Fields that common servers and frameworks read as the client's address (or the scheme, host
     * and port it reached us on, which they build absolute URLs and "is secure" checks from). From
     * the request-ip, Rack, Spring, Tomcat RemoteIpValve, gunicorn and Django readers, CDNs (Akamai,
     * Cloudflare, Fastly, Azure Front Door, DigitalOcean, App Engine) and the classic PHP
     * {@code get_client_ip} snippets. {@code forwarding.identity_headers} adds to it.
     */
    public static final List<String> IDENTITY_HEADERS = List.of(
            "forwarded", "forwarded-for", "x-forwarded-for", "x-forwarded", "x-original-forwarded-for",
            "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-forwarded-scheme", "x-forwarded-protocol",
            "x-forwarded-ssl", "x-forwarded-server", "x-url-scheme", "front-end-https",
            "x-real-ip", "true-client-ip", "x-client-ip", "client-ip", "x-cluster-client-ip", "fastly-client-ip",
            "cf-connecting-ip", "cf-connecting-ipv6", "cf-pseudo-ipv4", "do-connecting-ip", "x-originating-ip",
            "x-remote-ip", "x-remote-addr", "x-proxyuser-ip", "x-appengine-user-ip", "x-azure-clientip", "x-azure-socketip",
            "wl-proxy-client-ip", "wl-proxy-ssl", "proxy-client-ip", "x-envoy-external-address");

    private final XForwardedFor xForwardedFor;
    private final boolean xForwardedProto;
    private final boolean xForwardedHost;
    private final boolean xRealIp;
    private final AsciiString requestIdHeader;
    private final boolean propagateRequestId;
    private final boolean forwardRequestId;
    private final byte[] viaLine;
    private final AsciiString viaValue;
    private final HeaderNameSet removed;
    private final HeaderNameSet identity;
    private final HeaderNameSet fromTrustedProxies;
    /** The outline of {@code removed} and {@code identity} together (the trusted proxies' names are identity names too). */
    private final HeaderNameSet.Outline removable;
    private final boolean dropUnderscores;
    private final boolean echoRequestId;
    private final byte[] requestIdPrefix;
    private final boolean propagateTrace;
    private final boolean startTrace;
    private final boolean sampleNewTraces;

    private ForwardingRules(ForwardingSpec spec, HeaderNameSet removed, HeaderNameSet identity, HeaderNameSet fromTrustedProxies) {
        this.xForwardedFor = XForwardedFor.valueOf(spec.xForwardedFor().toUpperCase(Locale.ROOT));
        this.xForwardedProto = spec.xForwardedProto();
        this.xForwardedHost = spec.xForwardedHost();
        this.xRealIp = spec.xRealIp();
        this.requestIdHeader = AsciiString.of(spec.requestId().header().toLowerCase(Locale.ROOT));
        this.propagateRequestId = spec.requestId().propagate();
        this.forwardRequestId = spec.requestId().forward();
        this.viaValue = spec.via().isEmpty() ? null : AsciiString.of("1.1 " + spec.via());
        this.viaLine = viaValue == null ? new byte[0] : ("Via: " + viaValue + "\r\n").getBytes(StandardCharsets.US_ASCII);
        this.removed = removed;
        this.identity = identity;
        this.fromTrustedProxies = fromTrustedProxies;
        this.removable = HeaderNameSet.Outline.union(removed, identity);
        this.dropUnderscores = spec.headersWithUnderscores().equals("drop");
        this.echoRequestId = spec.requestId().echo();
        this.requestIdPrefix = (spec.requestId().header() + ": ").getBytes(StandardCharsets.US_ASCII);
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
        // Removed whenever the id is forwarded, also when propagating: the forwarder writes the one request-id
        // field itself (the client's usable value, or a generated one), so a client can never add a second.
        if (spec.requestId().forward()) {
            names.add(spec.requestId().header());
        }
        names.addAll(spec.removeRequestHeaders());
        if (spec.trace().propagate() || spec.trace().startWhenAbsent()) {
            // The forwarder writes both itself (ours as the new parent; tracestate only with a valid traceparent).
            names.add("traceparent");
            names.add("tracestate");
        }
        // The client's address as a trusted proxy set it (the gate believed it): it passes from that
        // proxy, unless the forwarder writes that name itself (then it is in names above).
        List<String> trusted = new ArrayList<>();
        trusted.add(clientIpHeader);
        if (spec.xForwardedFor().equals("off")) {
            trusted.add("x-forwarded-for");
        }
        trusted.addAll(spec.identityHeadersFromTrustedProxies());
        List<String> identity = new ArrayList<>(IDENTITY_HEADERS);
        identity.addAll(spec.identityHeaders());
        identity.addAll(trusted);
        return new ForwardingRules(spec, HeaderNameSet.of(names, true), HeaderNameSet.of(identity, false, true),
                HeaderNameSet.of(trusted, false));
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

    /** Whether the request id goes back to the client in {@link #requestIdHeader()} on the gate's own answers. */
    public boolean echoRequestId() {
        return echoRequestId;
    }

    /**
     * Whether the request id the upstream got goes back to the client on forwarded responses, in place of the
     * upstream's own field of that name: {@code echo} with {@code forward} (without it the upstream's field passes).
     */
    public boolean echoForwardedRequestId() {
        return echoRequestId && forwardRequestId;
    }

    /** Whether the forwarder sends the request id upstream in {@link #requestIdHeader()} ({@code request_id.forward}). */
    public boolean forwardRequestId() {
        return forwardRequestId;
    }

    /** {@code "X-Request-Id: "} as configured (case kept), in US-ASCII, for HTTP/1.1 response lines. Do not modify. */
    public byte[] requestIdLinePrefix() {
        return requestIdPrefix;
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
     * and {@code remove_request_headers}; with {@code headers_with_underscores: drop} every name with
     * a {@code _}; and every client identity field (see the class comment), as from a peer that is not
     * a trusted proxy. Names listed in the client's {@code Connection} header are the forwarder's to drop.
     * ASCII case-insensitive; per request, allocates nothing.
     */
    public boolean isRemovedRequestHeader(CharSequence name) {
        return isRemovedRequestHeader(name, false);
    }

    /**
     * As {@link #isRemovedRequestHeader(CharSequence)} for a request whose connection peer is
     * ({@code fromTrustedProxy}) or is not a trusted proxy: from a trusted proxy the identity fields
     * it sets itself pass. Per request; allocates nothing.
     */
    public boolean isRemovedRequestHeader(CharSequence name, boolean fromTrustedProxy) {
        return isRemovedRequestHeader(name, fromTrustedProxy, true);
    }

    /**
     * As {@link #isRemovedRequestHeader(CharSequence, boolean)}; {@code mayHaveUnderscore} false is the caller's
     * word that {@code name} has no {@code _} (an HTTP/1.1 parser notes it while it checks the names' bytes), which
     * saves searching it for one. Per request; allocates nothing.
     */
    public boolean isRemovedRequestHeader(CharSequence name, boolean fromTrustedProxy, boolean mayHaveUnderscore) {
        if (!removable.mayContain(name)) {
            // most names are in no set (their length and ends say so): only an underscore can remove them
            return mayHaveUnderscore && dropUnderscores && TextBytes.indexOf(name, '_') >= 0;
        }
        return isRemovedInFull(name, fromTrustedProxy);
    }

    /** {@link #isRemovedRequestHeader(CharSequence, boolean)} past the outlines: every set compared by its names (the reference for the outlines' tests). */
    boolean isRemovedInFull(CharSequence name, boolean fromTrustedProxy) {
        int n = name.length();
        byte[] a = TextBytes.bytes(name); // read in place or copied once, for all three sets
        if (a == null) {
            if (removed.contains(name) || (dropUnderscores && TextBytes.indexOf(name, '_') >= 0)) {
                return true;
            }
            return identity.contains(name) && !(fromTrustedProxy && fromTrustedProxies.contains(name));
        }
        int offset = TextBytes.offset(name, a);
        if (removed.contains(a, offset, n) || (dropUnderscores && hasUnderscore(a, offset, n))) {
            return true;
        }
        return identity.contains(a, offset, n) && !(fromTrustedProxy && fromTrustedProxies.contains(a, offset, n));
    }

    private static boolean hasUnderscore(byte[] a, int offset, int n) {
        for (int i = offset, end = offset + n; i < end; i++) {
            if (a[i] == '_') {
                return true;
            }
        }
        return false;
    }

    /** The client identity names, lower-case with {@code -} (matched with {@code _} folded in); for tests. */
    public List<String> identityHeaders() {
        return identity.names();
    }

    /** The identity names that pass from a trusted proxy, lower-case; for tests. */
    public List<String> identityHeadersFromTrustedProxies() {
        return fromTrustedProxies.names();
    }

    @Override
    public String toString() {
        return "ForwardingRules(x-forwarded-for " + xForwardedFor + ", proto " + xForwardedProto + ", host " + xForwardedHost
                + ", x-real-ip " + xRealIp + ", request id " + requestIdHeader + (propagateRequestId ? " propagated" : " generated")
                + ", via " + viaValue + ", trace " + (propagateTrace ? "propagated" : "not propagated")
                + (startTrace ? ", started when absent" : "") + ", removed: " + removed + ", identity: " + identity
                + ", from trusted proxies: " + fromTrustedProxies + (dropUnderscores ? ", names with _ dropped" : "") + ")";
    }
}
