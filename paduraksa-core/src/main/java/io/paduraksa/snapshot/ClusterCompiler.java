package io.paduraksa.snapshot;

import io.netty.util.AsciiString;
import io.paduraksa.config.ClusterSpec;
import io.paduraksa.net.IpParser;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Compiles {@code clusters} into {@link UpstreamCluster}s: destinations split into host, port and
 * authority, the protocol checked against the destinations' schemes, the CA file resolved against
 * the configuration file and checked to be readable. Value ranges were checked when the file was
 * bound. Compile time only.
 */
final class ClusterCompiler {
    private final CompileContext context;

    ClusterCompiler(CompileContext context) {
        this.context = context;
    }

    void compile(Map<String, ClusterSpec> specs, Map<String, UpstreamCluster> into) {
        for (Map.Entry<String, ClusterSpec> e : specs.entrySet()) {
            into.put(e.getKey(), cluster(e.getKey(), e.getValue(), "clusters." + e.getKey()));
        }
    }

    private UpstreamCluster cluster(String name, ClusterSpec c, String path) {
        UpstreamCluster.LoadBalancing lb = UpstreamCluster.LoadBalancing.of(c.loadBalancing());
        if (lb == null) {
            context.error(path + ".load_balancing", "unknown load balancing '" + c.loadBalancing()
                    + "' (expected one of: round_robin, least_requests, power_of_two_choices, random, first_available)");
        }
        UpstreamCluster.Protocol protocol = UpstreamCluster.Protocol.of(c.protocol());
        if (protocol == null) {
            context.error(path + ".protocol", "unknown protocol '" + c.protocol() + "' (expected one of: http1, h2c, h2)");
        }
        if (c.destinations().isEmpty()) {
            context.error(path + ".destinations", "a cluster needs at least one destination (expected a list of {url: http://host:port})");
        }
        List<UpstreamCluster.Destination> destinations = new ArrayList<>();
        for (int i = 0; i < c.destinations().size(); i++) {
            UpstreamCluster.Destination d = destination(c.destinations().get(i), i, path + ".destinations[" + i + "]");
            if (d != null) {
                checkScheme(d, protocol, path + ".destinations[" + i + "].url");
                destinations.add(d);
            }
        }
        return new UpstreamCluster(name, destinations,
                protocol == null ? UpstreamCluster.Protocol.HTTP1 : protocol,
                lb == null ? UpstreamCluster.LoadBalancing.ROUND_ROBIN : lb,
                c.affinity() == null ? null : c.affinity().cookie(),
                tls(c, destinations, path + ".tls"),
                new UpstreamCluster.Pool(c.pool().maxConnections(), c.pool().idleTimeout(), c.pool().maxRequestsPerConnection()),
                health(c.health()),
                new UpstreamCluster.Timeouts(c.timeouts().connect(), c.timeouts().responseHeaders(), c.timeouts().idle()),
                new UpstreamCluster.Retry(c.retry().attempts(), c.retry().budget().fraction(), c.retry().minPerSecond()),
                c.resolveEvery(), c.preserveHost());
    }

    private UpstreamCluster.Destination destination(ClusterSpec.DestinationSpec d, int index, String path) {
        if (d.weight() < 1 || d.weight() > 1000) {
            context.error(path + ".weight", "weight " + d.weight() + " is out of range (expected 1-1000)");
        }
        URI url = d.url();
        if (url == null || url.getHost() == null) {
            context.error(path + ".url", "a destination needs a url (expected http://host:port or https://host:port)");
            return null;
        }
        boolean tls = "https".equalsIgnoreCase(url.getScheme());
        int defaultPort = tls ? 443 : 80;
        int port = url.getPort() > 0 ? url.getPort() : defaultPort;
        String written = url.getHost().toLowerCase(Locale.ROOT);
        boolean ipv6 = written.startsWith("[");
        String host = ipv6 ? written.substring(1, written.length() - 1) : written;
        boolean ipLiteral = ipv6 || IpParser.parse(host, new long[2]);
        String authority = (ipv6 ? "[" + host + "]" : host) + (port == defaultPort ? "" : ":" + port);
        return new UpstreamCluster.Destination(index, url, tls, host, port, d.weight(), ipLiteral, AsciiString.of(authority));
    }

    /** {@code h2} is negotiated by ALPN inside TLS; {@code h2c} is cleartext prior knowledge (RFC 9113 section 3). */
    private void checkScheme(UpstreamCluster.Destination d, UpstreamCluster.Protocol protocol, String path) {
        if (protocol == UpstreamCluster.Protocol.H2 && !d.tls()) {
            context.error(path, "'" + d.url() + "' is cleartext but protocol h2 runs over TLS"
                    + " (expected an https:// destination, or protocol h2c for cleartext HTTP/2)");
        } else if (protocol == UpstreamCluster.Protocol.H2C && d.tls()) {
            context.error(path, "'" + d.url() + "' uses TLS but protocol h2c is cleartext HTTP/2"
                    + " (expected an http:// destination, or protocol h2 for HTTP/2 over TLS)");
        }
    }

    private UpstreamCluster.Tls tls(ClusterSpec c, List<UpstreamCluster.Destination> destinations, String path) {
        ClusterSpec.UpstreamTlsSpec spec = c.tls();
        if (spec == null) {
            return new UpstreamCluster.Tls(true, null, null);
        }
        boolean anyTls = false;
        for (int i = 0; i < destinations.size(); i++) {
            anyTls |= destinations.get(i).tls();
        }
        if (!anyTls && !destinations.isEmpty()) {
            context.error(path, "tls is set but no destination is https:// (expected https:// destinations, or no tls section)");
        }
        Path ca = null;
        if (spec.ca() != null) {
            ca = context.resolve(spec.ca());
            if (!Files.isReadable(ca)) {
                context.error(path + ".ca", "cannot read '" + ca + "' (expected a PEM file of CA certificates, relative to the configuration file)");
            }
        }
        return new UpstreamCluster.Tls(spec.verify(), ca, spec.sni());
    }

    /** Absent sections are off; their durations and thresholds still hold the defaults, so no field is null. */
    private static UpstreamCluster.Health health(ClusterSpec.HealthSpec h) {
        ClusterSpec.ActiveHealthSpec a = h.active() == null ? ClusterSpec.ActiveHealthSpec.DEFAULT : h.active();
        ClusterSpec.PassiveHealthSpec p = h.passive() == null ? ClusterSpec.PassiveHealthSpec.DEFAULT : h.passive();
        return new UpstreamCluster.Health(h.active() == null ? null : a.path(), a.interval(), a.timeout(),
                a.healthyThreshold(), a.unhealthyThreshold(),
                h.passive() == null ? 0 : p.consecutiveFailures(), p.ejectFor(), p.maxEjectFor(), p.count5xx());
    }
}
