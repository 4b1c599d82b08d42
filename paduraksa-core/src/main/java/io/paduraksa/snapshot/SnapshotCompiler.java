package io.paduraksa.snapshot;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.config.ActionSpec;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.HostSpec;
import io.paduraksa.config.LoadedConfig;
import io.paduraksa.config.NormalizeSpec;
import io.paduraksa.config.PaduraksaSpec;
import io.paduraksa.config.PolicySpec;
import io.paduraksa.config.ResponseHeadersSpec;
import io.paduraksa.config.RouteSpec;
import io.paduraksa.host.HostNames;
import io.paduraksa.host.HostTable;
import io.paduraksa.net.IpRangeSet;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.route.PathNormalizer;
import io.paduraksa.route.RouteTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns a bound configuration into an immutable {@link Snapshot}: the second of the two config
 * passes (STYLE.md section 4). It checks what binding cannot (references, collisions, exactly one
 * action, CIDRs, header values), reports every error at once with its YAML path, line and column,
 * and never touches the running snapshot. Runs off the event loops (start-up, reload, {@code check}).
 */
public final class SnapshotCompiler {
    private static final AtomicLong GENERATIONS = new AtomicLong();

    private final LoadedConfig config;
    private final CompileContext context;
    private final Map<String, UpstreamCluster> clusters = new LinkedHashMap<>();
    private final ActionCompiler actions;
    private Map<String, RequestPolicy> policies = Map.of();

    private SnapshotCompiler(LoadedConfig config, ByteBufAllocator alloc) {
        this.config = config;
        this.context = new CompileContext(config);
        this.actions = new ActionCompiler(context, alloc, clusters);
    }

    /**
     * Compiles {@code config}; precomputed buffers come from {@code alloc} (pass
     * {@code PooledByteBufAllocator.DEFAULT}: duplicates of pooled buffers cost 0 B per write).
     *
     * @throws ConfigException with every error found
     */
    public static Snapshot compile(LoadedConfig config, ByteBufAllocator alloc) throws ConfigException {
        return new SnapshotCompiler(config, alloc).compile();
    }

    private Snapshot compile() throws ConfigException {
        PaduraksaSpec spec = config.spec();
        Result r = new Result();
        try {
            r.trustedProxies = trustedProxies(spec);
            for (int i = 0; i < spec.listeners().size(); i++) {
                r.proxyProtocolSenders.add(context.ranges(spec.listeners().get(i).proxyProtocol(), "listeners[" + i + "].proxy_protocol"));
            }
            r.clientIpHeader = headerName(spec.clientIp().header());
            r.normalizeOptions = normalizeOptions(spec);
            new ClusterCompiler(context).compile(spec.clusters(), clusters);
            r.forwarding = ForwardingRules.compile(spec.forwarding(), spec.clientIp().header(), policyFields(spec));
            echoConflicts(spec);
            if (spec.forwarding().requestId().propagate() && !spec.forwarding().requestId().forward()) {
                context.error("forwarding.request_id.propagate", "a client's request id is kept only to be forwarded"
                        + " (expected request_id: {forward: true}, or propagate: false)");
            }
            r.defaultResponseHeaders = ResponseHeaderRules.compile(spec.forwarding().responseHeaders(), ResponseHeadersSpec.EMPTY,
                    replacedRequestId(spec, r.forwarding));
            policies = new PolicyCompiler(context, actions).compile(spec.policies());
            r.unknownHost = actions.action(spec.defaultAnswer(), "default", true);
            r.statusAnswers = actions.statusAnswers();
            compileHosts(spec, r);
            cacheStore(spec);
        } catch (RuntimeException e) {
            actions.releaseAll();
            throw e;
        }
        if (context.hasErrors()) {
            actions.releaseAll();
            throw new ConfigException(context.errorsInFileOrder());
        }
        r.generation = GENERATIONS.incrementAndGet();
        r.sourceName = config.fileName();
        r.sourceSha256 = sha256(config.text());
        r.compiledAt = Instant.now();
        r.spec = spec;
        r.clusters = clusters;
        r.policies = policies;
        r.ownedResponses = actions.owned();
        return new Snapshot(r);
    }

    /** The cache store's own rule: an object larger than the whole store could never be kept. */
    private void cacheStore(PaduraksaSpec spec) {
        if (spec.cache().maxObjectSize().bytes() > spec.cache().maxSize().bytes()) {
            context.error("cache.max_object_size", "max_object_size " + spec.cache().maxObjectSize() + " is larger than max_size "
                    + spec.cache().maxSize() + " (expected max_object_size <= max_size)");
        }
    }

    /** The header fields forward-auth policies copy to upstream requests. */
    private static List<String> policyFields(PaduraksaSpec spec) {
        List<String> names = new ArrayList<>();
        for (PolicySpec p : spec.policies().values()) {
            if (p instanceof PolicySpec.ForwardAuth fa) {
                names.addAll(fa.copyResponseHeaders());
            }
        }
        return names;
    }

    // ---- client IP and normalisation ----

    /** {@code trusted_proxies} plus every CIDR of {@code trusted_proxies_files} (relative to the config file). */
    private IpRangeSet trustedProxies(PaduraksaSpec spec) {
        IpRangeSet.Builder b = IpRangeSet.builder();
        context.addRanges(b, spec.clientIp().trustedProxies(), "client_ip.trusted_proxies");
        List<String> files = spec.clientIp().trustedProxiesFiles();
        for (int i = 0; i < files.size(); i++) {
            String path = "client_ip.trusted_proxies_files[" + i + "]";
            Path file = context.resolve(files.get(i));
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                context.error(path, "cannot read '" + file + "': " + e.getMessage() + " (expected a text file with one CIDR per line)");
                continue;
            }
            for (int n = 0; n < lines.size(); n++) {
                String line = lines.get(n);
                int hash = line.indexOf('#');
                String cidr = (hash >= 0 ? line.substring(0, hash) : line).strip();
                if (!cidr.isEmpty()) {
                    try {
                        b.add(cidr);
                    } catch (IllegalArgumentException e) {
                        context.error(path, file + ":" + (n + 1) + ": " + e.getMessage());
                    }
                }
            }
        }
        return b.build();
    }

    /** The header is checked to be a token when the file is bound; here it is only lower-cased once. */
    private static AsciiString headerName(String name) {
        return AsciiString.of(name.toLowerCase(Locale.ROOT));
    }

    private int normalizeOptions(PaduraksaSpec spec) {
        try {
            NormalizeSpec n = spec.normalize();
            return PathNormalizer.options(n.encodedSlash(), n.backslash(), n.pathParameters());
        } catch (IllegalArgumentException e) {
            context.error("normalize", e.getMessage());
            return 0;
        }
    }

    // ---- hosts and routes ----

    /**
     * Two passes: the routes of every host first (they may add error-page answers), then each host
     * with its own versions of those answers ({@code error_pages}) and its names in the table.
     */
    private void compileHosts(PaduraksaSpec spec, Result r) {
        List<HostSpec> hosts = spec.hosts();
        List<RouteTable<CompiledRoute>> routeTables = new ArrayList<>(hosts.size());
        List<RequestPolicy[]> hostPolicies = new ArrayList<>(hosts.size());
        for (int i = 0; i < hosts.size(); i++) {
            String path = "hosts[" + i + "]";
            HostSpec h = hosts.get(i);
            if (h.names().isEmpty()) {
                context.error(path + ".names", "a host needs at least one name (expected a list such as [example.com, \"*.example.com\"])");
            }
            if (h.routes().isEmpty()) {
                context.error(path + ".routes", "a host needs at least one route (expected a list such as [{path: /, forward: app}])");
            }
            hostPolicies.add(policyRefs(h.policies(), path + ".policies"));
            routeTables.add(routes(h, path));
        }
        HostTable.Builder<CompiledHost> table = HostTable.builder();
        String catchAll = null;
        for (int i = 0; i < hosts.size(); i++) {
            String path = "hosts[" + i + "]";
            HostSpec h = hosts.get(i);
            CompiledHost host = new CompiledHost(i, h.names(), hostPolicies.get(i), routeTables.get(i), responseHeaders(spec, h, r),
                    hostAnswers(h, path));
            r.hostList.add(host);
            for (int j = 0; j < h.names().size(); j++) {
                String namePath = path + ".names[" + j + "]";
                String name = h.names().get(j);
                if (name.equals(HostNames.CATCH_ALL) && catchAll != null) {
                    context.error(namePath, "a second catch-all '*', after " + catchAll + " (expected at most one catch-all host)");
                    continue;
                }
                try {
                    table.add(name, host);
                    catchAll = name.equals(HostNames.CATCH_ALL) ? namePath : catchAll;
                } catch (IllegalArgumentException e) {
                    context.error(namePath, e.getMessage());
                }
            }
        }
        // ActionSpec.DEFAULT_UNKNOWN_HOST by identity: the file has no default of its own.
        if (catchAll != null && spec.defaultAnswer() != ActionSpec.DEFAULT_UNKNOWN_HOST) {
            context.error("default", "the catch-all host " + catchAll + " '*' answers every valid host name no other entry"
                    + " names, so default would only answer requests without a valid Host (expected either a catch-all host"
                    + " or default, not both; with a catch-all host, those requests get 421)");
        }
        r.hosts = table.build();
    }

    private RouteTable<CompiledRoute> routes(HostSpec h, String path) {
        RouteTable.Builder<CompiledRoute> routes = RouteTable.builder();
        for (int k = 0; k < h.routes().size(); k++) {
            CompiledRoute route = route(h.routes().get(k), k, path + ".routes[" + k + "]");
            if (route != null) {
                try {
                    routes.add(route.prefix(), route);
                } catch (IllegalArgumentException e) {
                    context.error(path + ".routes[" + k + "].path", e.getMessage());
                }
            }
        }
        return routes.build();
    }

    /** The host's versions of the error-page answers, or null when it has no {@code error_pages} of its own. */
    private PrecomputedResponse[] hostAnswers(HostSpec h, String path) {
        if (h.errorPages().isEmpty()) {
            return null;
        }
        String pagesPath = path + ".error_pages";
        ErrorPages pages = ErrorPages.compile(h.errorPages(), pagesPath, actions.errorPages(), context);
        return actions.hostAnswers(pages, pagesPath);
    }

    /** The host's response headers merged over the defaults; hosts without their own share the defaults. */
    private static ResponseHeaderRules responseHeaders(PaduraksaSpec spec, HostSpec h, Result r) {
        if (h.responseHeaders().set().isEmpty() && h.responseHeaders().remove().isEmpty()) {
            return r.defaultResponseHeaders;
        }
        return ResponseHeaderRules.compile(spec.forwarding().responseHeaders(), h.responseHeaders(), replacedRequestId(spec, r.forwarding));
    }

    /**
     * With {@code forwarding.request_id.echo} the response writers add the request-id field
     * themselves: a {@code response_headers.set} of the same name would send it twice.
     */
    private void echoConflicts(PaduraksaSpec spec) {
        String id = echoedRequestId(spec);
        if (id == null) {
            return;
        }
        echoConflict(spec.forwarding().responseHeaders(), "forwarding.response_headers.set.", id);
        for (int i = 0; i < spec.hosts().size(); i++) {
            echoConflict(spec.hosts().get(i).responseHeaders(), "hosts[" + i + "].response_headers.set.", id);
        }
    }

    private void echoConflict(ResponseHeadersSpec headers, String path, String id) {
        for (String name : headers.set().keySet()) {
            if (name.equalsIgnoreCase(id)) {
                context.error(path + name, "'" + name + "' is the request id that forwarding.request_id.echo sends back"
                        + " (expected another header, or request_id: {echo: false})");
            }
        }
    }

    /** The request-id header the response writers add ({@code forwarding.request_id.echo}), or null. */
    private static String echoedRequestId(PaduraksaSpec spec) {
        return spec.forwarding().requestId().echo() ? spec.forwarding().requestId().header() : null;
    }

    /**
     * The request-id header that replaces the upstream's own on forwarded responses, as spelled in the file, or
     * null: {@link ForwardingRules#echoForwardedRequestId} decides (with {@code request_id.forward} off the upstream
     * got no id from us and its field passes).
     */
    private static String replacedRequestId(PaduraksaSpec spec, ForwardingRules forwarding) {
        return forwarding.echoForwardedRequestId() ? spec.forwarding().requestId().header() : null;
    }

    private CompiledRoute route(RouteSpec spec, int index, String path) {
        String problem = CompileContext.prefixProblem(spec.path());
        if (problem != null) {
            context.error(path + ".path", problem);
        }
        RequestPolicy[] routePolicies = policyRefs(spec.policies(), path + ".policies");
        CompiledAction action = actions.action(spec.action(), path, true);
        if (spec.cache() != null && action != null && action.kind() != CompiledAction.Kind.FORWARD) {
            context.error(path + ".cache", "a cache stores upstream responses (expected it on a route with forward)");
        }
        if (problem != null || action == null) {
            return null;
        }
        return new CompiledRoute(spec.path(), index, routePolicies, action, RouteCache.compile(spec.cache()));
    }

    private RequestPolicy[] policyRefs(List<String> names, String path) {
        List<RequestPolicy> out = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            RequestPolicy p = policies.get(name);
            if (p != null) {
                out.add(p);
            } else if (!config.spec().policies().containsKey(name)) {
                context.error(path + "[" + i + "]", "unknown policy '" + name + "' (expected one of: " + CompileContext.known(config.spec().policies()) + ")");
            }
        }
        return out.toArray(new RequestPolicy[0]);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** What {@link Snapshot}'s constructor reads. */
    static final class Result {
        long generation;
        String sourceName;
        String sourceSha256;
        Instant compiledAt;
        PaduraksaSpec spec;
        HostTable<CompiledHost> hosts;
        final List<CompiledHost> hostList = new ArrayList<>();
        CompiledAction unknownHost;
        IpRangeSet trustedProxies;
        final List<IpRangeSet> proxyProtocolSenders = new ArrayList<>();
        AsciiString clientIpHeader;
        int normalizeOptions;
        Map<String, UpstreamCluster> clusters;
        ForwardingRules forwarding;
        ResponseHeaderRules defaultResponseHeaders;
        Map<String, RequestPolicy> policies;
        PrecomputedResponse[] statusAnswers;
        List<PrecomputedResponse> ownedResponses;
    }
}
