package io.paduraksa.snapshot;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.config.ActionSpec;
import io.paduraksa.config.ClusterSpec;
import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.HostSpec;
import io.paduraksa.config.LoadedConfig;
import io.paduraksa.config.PaduraksaSpec;
import io.paduraksa.config.PolicySpec;
import io.paduraksa.config.RedirectSpec;
import io.paduraksa.config.RespondSpec;
import io.paduraksa.config.RouteSpec;
import io.paduraksa.host.HostTable;
import io.paduraksa.net.IpRangeSet;
import io.paduraksa.policy.IpPolicy;
import io.paduraksa.policy.MethodPolicy;
import io.paduraksa.policy.PathPolicy;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.policy.UserAgentPolicy;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.ReasonPhrases;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns a bound configuration into an immutable {@link Snapshot}: the second of the two config
 * passes (STYLE.md section 4). It checks what binding cannot (references, collisions, exactly one
 * action, CIDRs, header values), reports every error at once with its YAML path, line and column,
 * and never touches the running snapshot. Runs off the event loops (start-up, reload, {@code check}).
 */
public final class SnapshotCompiler {
    /** Protocol-level answers every snapshot carries (see {@link Snapshot#statusAnswer}). */
    static final int[] STATUS_ANSWERS = {400, 403, 404, 405, 408, 413, 414, 421, 429, 431, 500, 501, 502, 503, 504, 505};

    private static final AtomicLong GENERATIONS = new AtomicLong();
    private static final String TEXT_PLAIN = "text/plain; charset=utf-8";

    private final LoadedConfig config;
    private final ByteBufAllocator alloc;
    private final List<ConfigError> errors = new ArrayList<>();
    private final Map<Object, PrecomputedResponse> responses = new HashMap<>();
    private final List<PrecomputedResponse> owned = new ArrayList<>();
    private final Map<String, UpstreamCluster> clusters = new LinkedHashMap<>();
    private final Map<String, RequestPolicy> policies = new LinkedHashMap<>();

    private SnapshotCompiler(LoadedConfig config, ByteBufAllocator alloc) {
        this.config = config;
        this.alloc = alloc;
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
                r.proxyProtocolSenders.add(ranges(spec.listeners().get(i).proxyProtocol(), "listeners[" + i + "].proxy_protocol"));
            }
            r.clientIpHeader = headerName(spec.clientIp().header(), "client_ip.header");
            r.normalizeOptions = normalizeOptions(spec);
            compileClusters(spec);
            compilePolicies(spec);
            r.unknownHost = action(spec.defaultAnswer(), "default", true);
            r.statusAnswers = statusAnswers();
            compileHosts(spec, r);
        } catch (RuntimeException e) {
            releaseOwned();
            throw e;
        }
        if (!errors.isEmpty()) {
            releaseOwned();
            // In file order, like the binding pass, whatever order the sections were compiled in.
            errors.sort(Comparator.comparingInt(ConfigError::line).thenComparingInt(ConfigError::column));
            throw new ConfigException(errors);
        }
        r.generation = GENERATIONS.incrementAndGet();
        r.sourceName = config.fileName();
        r.sourceSha256 = sha256(config.text());
        r.compiledAt = Instant.now();
        r.spec = spec;
        r.clusters = clusters;
        r.policies = policies;
        r.ownedResponses = owned;
        return new Snapshot(r);
    }

    // ---- client IP and normalisation ----

    private IpRangeSet ranges(List<String> cidrs, String path) {
        IpRangeSet.Builder b = IpRangeSet.builder();
        addRanges(b, cidrs, path);
        return b.build();
    }

    private void addRanges(IpRangeSet.Builder b, List<String> cidrs, String path) {
        for (int i = 0; i < cidrs.size(); i++) {
            try {
                b.add(cidrs.get(i));
            } catch (IllegalArgumentException e) {
                error(path + "[" + i + "]", e.getMessage());
            }
        }
    }

    /** {@code trusted_proxies} plus every CIDR of {@code trusted_proxies_files} (relative to the config file). */
    private IpRangeSet trustedProxies(PaduraksaSpec spec) {
        IpRangeSet.Builder b = IpRangeSet.builder();
        addRanges(b, spec.clientIp().trustedProxies(), "client_ip.trusted_proxies");
        List<String> files = spec.clientIp().trustedProxiesFiles();
        for (int i = 0; i < files.size(); i++) {
            String path = "client_ip.trusted_proxies_files[" + i + "]";
            Path file = resolve(files.get(i));
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                error(path, "cannot read '" + file + "': " + e.getMessage() + " (expected a text file with one CIDR per line)");
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
                        error(path, file + ":" + (n + 1) + ": " + e.getMessage());
                    }
                }
            }
        }
        return b.build();
    }

    /** A path from the configuration, relative to the configuration file's directory. */
    private Path resolve(String configured) {
        Path p = Path.of(configured);
        Path parent = Path.of(config.fileName()).toAbsolutePath().getParent();
        return p.isAbsolute() || parent == null ? p : parent.resolve(p);
    }

    private AsciiString headerName(String name, String path) {
        if (name == null || name.isEmpty() || !isToken(name)) {
            error(path, "'" + name + "' is not a header name (expected a token such as CF-Connecting-IP)");
            return AsciiString.cached("cf-connecting-ip");
        }
        return AsciiString.of(name.toLowerCase(Locale.ROOT));
    }

    private int normalizeOptions(PaduraksaSpec spec) {
        try {
            return PathNormalizer.options(spec.normalize());
        } catch (IllegalArgumentException e) {
            error("normalize", e.getMessage());
            return 0;
        }
    }

    // ---- clusters ----

    private void compileClusters(PaduraksaSpec spec) {
        for (Map.Entry<String, ClusterSpec> e : spec.clusters().entrySet()) {
            String path = "clusters." + e.getKey();
            ClusterSpec c = e.getValue();
            UpstreamCluster.LoadBalancing lb = UpstreamCluster.LoadBalancing.of(c.loadBalancing());
            if (lb == null) {
                error(path + ".load_balancing", "unknown load balancing '" + c.loadBalancing()
                        + "' (expected one of: round_robin, least_requests, power_of_two_choices, random, first_available)");
            }
            if (c.destinations().isEmpty()) {
                error(path + ".destinations", "a cluster needs at least one destination (expected a list of {url: http://host:port})");
            }
            List<UpstreamCluster.Destination> destinations = new ArrayList<>();
            for (int i = 0; i < c.destinations().size(); i++) {
                UpstreamCluster.Destination d = destination(c.destinations().get(i), path + ".destinations[" + i + "]");
                if (d != null) {
                    destinations.add(d);
                }
            }
            ClusterSpec.HealthSpec h = c.health();
            UpstreamCluster.Health health = new UpstreamCluster.Health(
                    h.active() == null ? null : h.active().path(),
                    h.active() == null ? null : h.active().interval(),
                    h.passive() == null ? 0 : h.passive().consecutiveFailures(),
                    h.passive() == null ? null : h.passive().ejectFor());
            if (h.active() != null && !h.active().path().startsWith("/")) {
                error(path + ".health.active.path", "'" + h.active().path() + "' is not a path (expected it to start with /)");
            }
            clusters.put(e.getKey(), new UpstreamCluster(e.getKey(), destinations, lb == null ? UpstreamCluster.LoadBalancing.ROUND_ROBIN : lb,
                    health, c.timeouts().connect(), c.timeouts().responseHeaders(), c.timeouts().idle()));
        }
    }

    private UpstreamCluster.Destination destination(ClusterSpec.DestinationSpec d, String path) {
        if (d.weight() < 1 || d.weight() > 1000) {
            error(path + ".weight", "weight " + d.weight() + " is out of range (expected 1-1000)");
        }
        if (d.url() == null || d.url().getHost() == null) {
            error(path + ".url", "a destination needs a url (expected http://host:port or https://host:port)");
            return null;
        }
        boolean tls = "https".equalsIgnoreCase(d.url().getScheme());
        int port = d.url().getPort() > 0 ? d.url().getPort() : tls ? 443 : 80;
        return new UpstreamCluster.Destination(d.url(), tls, d.url().getHost(), port, d.weight());
    }

    // ---- policies ----

    private void compilePolicies(PaduraksaSpec spec) {
        for (Map.Entry<String, PolicySpec> e : spec.policies().entrySet()) {
            String path = "policies." + e.getKey();
            RequestPolicy p = policy(e.getKey(), e.getValue(), path);
            if (p != null) {
                policies.put(e.getKey(), p);
            }
        }
    }

    private RequestPolicy policy(String name, PolicySpec spec, String path) {
        CompiledAction denial = action(spec.action(), path + ".action", false);
        PolicyDecision denied = denial == null ? PolicyDecision.DROP : decision(denial);
        try {
            return switch (spec) {
                case PolicySpec.Ip ip -> ipPolicy(name, ip, path, denied);
                case PolicySpec.UserAgent ua -> userAgentPolicy(name, ua, path, denied);
                case PolicySpec.PathPrefix pp -> pathPolicy(name, pp, path, denied);
                case PolicySpec.Method m -> methodPolicy(name, m, path, denied);
            };
        } catch (IllegalArgumentException e) {
            error(path, e.getMessage());
            return null;
        }
    }

    private RequestPolicy ipPolicy(String name, PolicySpec.Ip ip, String path, PolicyDecision denied) {
        if (ip.allow().isEmpty() && ip.deny().isEmpty()) {
            error(path, "an ip policy needs allow or deny (expected a list of CIDRs in at least one)");
            return null;
        }
        IpRangeSet allow = ip.allow().isEmpty() ? null : ranges(ip.allow(), path + ".allow");
        IpRangeSet deny = ip.deny().isEmpty() ? null : ranges(ip.deny(), path + ".deny");
        return new IpPolicy(name, allow, deny, denied);
    }

    private RequestPolicy userAgentPolicy(String name, PolicySpec.UserAgent ua, String path, PolicyDecision denied) {
        if (ua.deny().isEmpty() && !ua.denyEmpty()) {
            error(path + ".deny", "a user_agent policy needs needles (expected a non-empty list, or deny_empty: true)");
            return null;
        }
        for (int i = 0; i < ua.deny().size(); i++) {
            if (ua.deny().get(i) == null || ua.deny().get(i).isEmpty()) {
                error(path + ".deny[" + i + "]", "empty needle would match every user agent (expected a non-empty substring)");
                return null;
            }
        }
        return new UserAgentPolicy(name, ua.deny(), ua.denyEmpty(), denied);
    }

    private RequestPolicy pathPolicy(String name, PolicySpec.PathPrefix pp, String path, PolicyDecision denied) {
        if (pp.allow().isEmpty() && pp.deny().isEmpty()) {
            error(path, "a path policy needs allow or deny (expected a list of path prefixes in at least one)");
            return null;
        }
        boolean ok = checkPrefixes(pp.allow(), path + ".allow") & checkPrefixes(pp.deny(), path + ".deny");
        return ok ? new PathPolicy(name, pp.allow(), pp.deny(), denied) : null;
    }

    private boolean checkPrefixes(List<String> prefixes, String path) {
        boolean ok = true;
        for (int i = 0; i < prefixes.size(); i++) {
            String problem = prefixProblem(prefixes.get(i));
            if (problem != null) {
                error(path + "[" + i + "]", problem);
                ok = false;
            }
        }
        return ok;
    }

    private RequestPolicy methodPolicy(String name, PolicySpec.Method m, String path, PolicyDecision denied) {
        if (m.allow().isEmpty()) {
            error(path + ".allow", "a method policy needs allowed methods (expected a list such as [GET, HEAD])");
            return null;
        }
        for (int i = 0; i < m.allow().size(); i++) {
            String method = m.allow().get(i);
            if (method == null || method.isEmpty() || !isToken(method)) {
                error(path + ".allow[" + i + "]", "'" + method + "' is not a method (expected a token such as GET)");
                return null;
            }
        }
        return new MethodPolicy(name, m.allow(), denied);
    }

    private static PolicyDecision decision(CompiledAction a) {
        return switch (a.kind()) {
            case RESPOND -> PolicyDecision.respond(a.response());
            case DROP -> PolicyDecision.DROP;
            case FORWARD -> throw new IllegalStateException("policy actions never forward");
        };
    }

    // ---- hosts and routes ----

    private void compileHosts(PaduraksaSpec spec, Result r) {
        HostTable.Builder<CompiledHost> table = HostTable.builder();
        List<HostSpec> hosts = spec.hosts();
        for (int i = 0; i < hosts.size(); i++) {
            String path = "hosts[" + i + "]";
            HostSpec h = hosts.get(i);
            if (h.names().isEmpty()) {
                error(path + ".names", "a host needs at least one name (expected a list such as [example.com, \"*.example.com\"])");
            }
            if (h.routes().isEmpty()) {
                error(path + ".routes", "a host needs at least one route (expected a list such as [{path: /, forward: app}])");
            }
            RequestPolicy[] hostPolicies = policyRefs(h.policies(), path + ".policies");
            RouteTable.Builder<CompiledRoute> routes = RouteTable.builder();
            for (int k = 0; k < h.routes().size(); k++) {
                CompiledRoute route = route(h.routes().get(k), k, path + ".routes[" + k + "]");
                if (route != null) {
                    try {
                        routes.add(route.prefix(), route);
                    } catch (IllegalArgumentException e) {
                        error(path + ".routes[" + k + "].path", e.getMessage());
                    }
                }
            }
            CompiledHost host = new CompiledHost(i, h.names(), hostPolicies, routes.build());
            r.hostList.add(host);
            for (int j = 0; j < h.names().size(); j++) {
                try {
                    table.add(h.names().get(j), host);
                } catch (IllegalArgumentException e) {
                    error(path + ".names[" + j + "]", e.getMessage());
                }
            }
        }
        r.hosts = table.build();
    }

    private CompiledRoute route(RouteSpec spec, int index, String path) {
        String problem = prefixProblem(spec.path());
        if (problem != null) {
            error(path + ".path", problem);
        }
        RequestPolicy[] routePolicies = policyRefs(spec.policies(), path + ".policies");
        CompiledAction action = action(spec.action(), path, true);
        if (problem != null || action == null) {
            return null;
        }
        return new CompiledRoute(spec.path(), index, routePolicies, action);
    }

    private RequestPolicy[] policyRefs(List<String> names, String path) {
        List<RequestPolicy> out = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            RequestPolicy p = policies.get(name);
            if (p != null) {
                out.add(p);
            } else if (!config.spec().policies().containsKey(name)) {
                error(path + "[" + i + "]", "unknown policy '" + name + "' (expected one of: " + known(config.spec().policies()) + ")");
            }
        }
        return out.toArray(new RequestPolicy[0]);
    }

    private static String prefixProblem(String prefix) {
        if (prefix == null || !prefix.startsWith("/")) {
            return "'" + prefix + "' is not a path prefix (expected it to start with /)";
        }
        byte[] out = new byte[prefix.length() * 3 + 1];
        int length = PathNormalizer.normalize(prefix, 0, prefix.length(), out, 0);
        if (length < 0) {
            return "'" + prefix + "' is not a valid path: " + PathNormalizer.describe(length);
        }
        if (!new String(out, 0, length, StandardCharsets.US_ASCII).equals(prefix)) {
            return "'" + prefix + "' is not in normal form (expected '" + new String(out, 0, length, StandardCharsets.US_ASCII)
                    + "': prefixes are matched against normalised paths)";
        }
        return null;
    }

    // ---- actions and responses ----

    /** Compiles an action, or records why it cannot be; {@code mayForward} is false for policy denials. */
    private CompiledAction action(ActionSpec spec, String path, boolean mayForward) {
        int count = spec.actionCount();
        if (count != 1) {
            error(path, (count == 0 ? "no action" : "more than one action")
                    + " (expected exactly one of: respond, redirect, " + (mayForward ? "forward, " : "") + "drop)");
            return null;
        }
        if (spec.forward() != null) {
            if (!mayForward) {
                error(path + ".forward", "a policy denial cannot forward (expected respond, redirect or drop)");
                return null;
            }
            UpstreamCluster cluster = clusters.get(spec.forward());
            if (cluster == null) {
                error(path + ".forward", "unknown cluster '" + spec.forward() + "' (expected one of: " + known(config.spec().clusters()) + ")");
                return null;
            }
            return CompiledAction.forward(cluster);
        }
        if (spec.drop()) {
            return CompiledAction.drop();
        }
        PrecomputedResponse response = spec.respond() != null
                ? respond(spec.respond(), path + ".respond")
                : redirect(spec.redirect(), path + ".redirect");
        return response == null ? null : CompiledAction.respond(response);
    }

    private PrecomputedResponse respond(RespondSpec spec, String path) {
        if (spec.status() < 200 || spec.status() > 599) {
            error(path + ".status", "status " + spec.status() + " cannot be an answer (expected 200-599)");
            return null;
        }
        return cached(spec, path, () -> {
            PrecomputedResponse.Builder b = PrecomputedResponse.builder(spec.status());
            String body = spec.body() != null ? spec.body() : spec.status() >= 400 ? defaultBody(spec.status()) : "";
            if (!body.isEmpty()) {
                b.header("Content-Type", spec.contentType() != null ? spec.contentType() : TEXT_PLAIN);
            }
            if (spec.cacheControl() != null) {
                b.header("Cache-Control", spec.cacheControl());
            } else if (spec.body() == null && spec.status() >= 400) {
                // A generated error page must not be cached by a CDN in front of us.
                b.header("Cache-Control", "no-store");
            }
            for (Map.Entry<String, String> h : spec.headers().entrySet()) {
                b.header(h.getKey(), h.getValue());
            }
            return b.body(body);
        });
    }

    private PrecomputedResponse redirect(RedirectSpec spec, String path) {
        int s = spec.status();
        if (s != 301 && s != 302 && s != 303 && s != 307 && s != 308) {
            error(path + ".status", "status " + s + " is not a redirect (expected 301, 302, 303, 307 or 308)");
            return null;
        }
        if (spec.location() == null || spec.location().isEmpty()) {
            error(path + ".location", "a redirect needs a location (expected a URL or an absolute path)");
            return null;
        }
        return cached(spec, path + ".location", () -> PrecomputedResponse.builder(s).header("Location", spec.location()).body(""));
    }

    private PrecomputedResponse[] statusAnswers() {
        PrecomputedResponse[] answers = new PrecomputedResponse[600];
        for (int status : STATUS_ANSWERS) {
            answers[status] = cached("status:" + status, "", () -> PrecomputedResponse.builder(status)
                    .header("Content-Type", TEXT_PLAIN)
                    .header("Cache-Control", "no-store")
                    .body(defaultBody(status)));
        }
        return answers;
    }

    /** Builds each distinct answer once: 520 hosts denying with the same 403 share one buffer. */
    private PrecomputedResponse cached(Object key, String path, ResponseRecipe recipe) {
        PrecomputedResponse existing = responses.get(key);
        if (existing != null) {
            return existing;
        }
        try {
            PrecomputedResponse built = recipe.builder().build(alloc);
            owned.add(built);
            responses.put(key, built);
            return built;
        } catch (IllegalArgumentException e) {
            error(path, e.getMessage());
            return null;
        }
    }

    private static String defaultBody(int status) {
        return status + " " + ReasonPhrases.of(status) + "\nrequest id: " + PrecomputedResponse.REQUEST_ID_VARIABLE + "\n";
    }

    @FunctionalInterface
    private interface ResponseRecipe {
        PrecomputedResponse.Builder builder();
    }

    // ---- small things ----

    private void error(String path, String problem) {
        errors.add(config.error(path, problem));
    }

    private void releaseOwned() {
        Map<PrecomputedResponse, Boolean> seen = new IdentityHashMap<>();
        for (PrecomputedResponse p : owned) {
            if (seen.put(p, Boolean.TRUE) == null) {
                p.release();
            }
        }
        owned.clear();
    }

    private static String known(Map<String, ?> names) {
        return names.isEmpty() ? "none defined" : String.join(", ", new TreeSet<>(names.keySet()));
    }

    static boolean isToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                return false;
            }
        }
        return !s.isEmpty();
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
        Map<String, RequestPolicy> policies;
        PrecomputedResponse[] statusAnswers;
        List<PrecomputedResponse> ownedResponses;
    }
}
