package io.paduraksa.snapshot;

import io.netty.util.AsciiString;
import io.paduraksa.config.PaduraksaSpec;
import io.paduraksa.host.HostTable;
import io.paduraksa.net.CountryDatabase;
import io.paduraksa.net.IpRangeSet;
import io.paduraksa.policy.CountryPolicy;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.respond.PrecomputedResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One compiled configuration, immutable once published: everything the gate reads per request
 * (host table, routes, policies, precomputed answers, client-IP settings) and the model the
 * server builds listeners and upstream pools from. Built by {@link SnapshotCompiler}; its pooled
 * buffers are freed by {@link #release()} after it has been replaced and its requests have finished.
 */
public final class Snapshot {
    private final long generation;
    private final String sourceName;
    private final String sourceSha256;
    private final Instant compiledAt;
    private final PaduraksaSpec spec;
    private final HostTable<CompiledHost> hosts;
    private final List<CompiledHost> hostList;
    private final CompiledAction unknownHost;
    private final IpRangeSet trustedProxies;
    private final List<IpRangeSet> proxyProtocolSenders;
    private final AsciiString clientIpHeader;
    private final int normalizeOptions;
    private final Map<String, UpstreamCluster> clusters;
    private final ForwardingRules forwarding;
    private final ResponseHeaderRules defaultResponseHeaders;
    private final Map<String, RequestPolicy> policies;
    private final PrecomputedResponse[] statusAnswers;
    private final List<PrecomputedResponse> ownedResponses;
    private final CountryDatabase countries;

    Snapshot(SnapshotCompiler.Result r) {
        this.generation = r.generation;
        this.sourceName = r.sourceName;
        this.sourceSha256 = r.sourceSha256;
        this.compiledAt = r.compiledAt;
        this.spec = r.spec;
        this.hosts = r.hosts;
        this.hostList = List.copyOf(r.hostList);
        this.unknownHost = r.unknownHost;
        this.trustedProxies = r.trustedProxies;
        this.proxyProtocolSenders = List.copyOf(r.proxyProtocolSenders);
        this.clientIpHeader = r.clientIpHeader;
        this.normalizeOptions = r.normalizeOptions;
        this.clusters = Map.copyOf(r.clusters);
        this.forwarding = r.forwarding;
        this.defaultResponseHeaders = r.defaultResponseHeaders;
        this.policies = Map.copyOf(r.policies);
        this.statusAnswers = r.statusAnswers;
        this.ownedResponses = List.copyOf(r.ownedResponses);
        this.countries = countryDatabase(r.policies);
    }

    /** The database the country policies named (the compiler admits one per configuration), or null. */
    private static CountryDatabase countryDatabase(Map<String, RequestPolicy> policies) {
        for (RequestPolicy p : policies.values()) {
            if (p instanceof CountryPolicy c && c.database() != null) {
                return c.database();
            }
        }
        return null;
    }

    /** Increases by one with every compiled snapshot of a process. */
    public long generation() {
        return generation;
    }

    public String sourceName() {
        return sourceName;
    }

    /** SHA-256 of the configuration text, hex. */
    public String sourceSha256() {
        return sourceSha256;
    }

    public Instant compiledAt() {
        return compiledAt;
    }

    /** The bound configuration (listeners, limits and other settings the server reads at start and reload). */
    public PaduraksaSpec spec() {
        return spec;
    }

    public HostTable<CompiledHost> hosts() {
        return hosts;
    }

    /** Host entries in file order. */
    public List<CompiledHost> hostList() {
        return hostList;
    }

    /**
     * What requests no host entry takes get, the {@code default} action: no Host, a malformed one,
     * or (without a catch-all host) an unknown name.
     */
    public CompiledAction unknownHost() {
        return unknownHost;
    }

    public IpRangeSet trustedProxies() {
        return trustedProxies;
    }

    /** The senders allowed to send a PROXY protocol header to listener {@code index} (empty: PROXY protocol off). */
    public IpRangeSet proxyProtocolSenders(int listenerIndex) {
        return proxyProtocolSenders.get(listenerIndex);
    }

    /** Lower-case name of the header that carries the client IP from a trusted proxy. */
    public AsciiString clientIpHeader() {
        return clientIpHeader;
    }

    /** {@code PathNormalizer} option bits from the {@code normalize} section. */
    public int normalizeOptions() {
        return normalizeOptions;
    }

    public Map<String, UpstreamCluster> clusters() {
        return clusters;
    }

    /** Request-side transforms for every forwarded request ({@code forwarding}). */
    public ForwardingRules forwarding() {
        return forwarding;
    }

    /** Response-side transforms of {@code forwarding.response_headers}, for hosts without their own and unknown hosts. */
    public ResponseHeaderRules defaultResponseHeaders() {
        return defaultResponseHeaders;
    }

    public Map<String, RequestPolicy> policies() {
        return policies;
    }

    /**
     * The country database connections are looked up in (once each, when their {@code ClientInfo}
     * is made), or null when no country policy names one.
     */
    public CountryDatabase countries() {
        return countries;
    }

    /**
     * The standard answer for a protocol-level status (400, 404, 408, 413, 414, 421, 429, 431,
     * 500-505), or null for other codes. Plain text, {@code Cache-Control: no-store}.
     */
    public PrecomputedResponse statusAnswer(int status) {
        return status >= 100 && status < 600 ? statusAnswers[status] : null;
    }

    /** Frees every precomputed buffer; call once, after the snapshot was replaced and drained. */
    public void release() {
        for (int i = 0; i < ownedResponses.size(); i++) {
            ownedResponses.get(i).release();
        }
    }

    @Override
    public String toString() {
        return "Snapshot(generation " + generation + ", " + sourceName + ", " + hostList.size() + " hosts)";
    }
}
