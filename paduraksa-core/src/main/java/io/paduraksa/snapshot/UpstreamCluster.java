package io.paduraksa.snapshot;

import io.netty.util.AsciiString;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A cluster as the snapshot describes it: the model the forwarder (server module) builds its
 * pools, balancers and health checks from. Immutable, built once per configuration load; nothing
 * here runs per request except reading its fields. Compared across reloads with
 * {@link #sameConnections} so that unchanged clusters keep their connections.
 *
 * @param affinityCookie the affinity cookie's name, or null when affinity is off
 * @param resolveEvery   how often host-name destinations are resolved again; zero = once
 * @param preserveHost   true: forward the client's Host; false: send the destination's {@link Destination#authority()}
 */
public record UpstreamCluster(
        String name,
        List<Destination> destinations,
        Protocol protocol,
        LoadBalancing loadBalancing,
        String affinityCookie,
        Tls tls,
        Pool pool,
        Health health,
        Timeouts timeouts,
        Retry retry,
        Duration resolveEvery,
        boolean preserveHost) {

    public UpstreamCluster {
        destinations = List.copyOf(destinations);
    }

    /** The protocol spoken to every destination: HTTP/1.1, cleartext HTTP/2 (prior knowledge), HTTP/2 over TLS (ALPN). */
    public enum Protocol {
        HTTP1("http1"),
        H2C("h2c"),
        H2("h2");

        private final String configName;

        Protocol(String configName) {
            this.configName = configName;
        }

        /** The protocol for a config name, or null. */
        public static Protocol of(String configName) {
            for (Protocol p : values()) {
                if (p.configName.equals(configName)) {
                    return p;
                }
            }
            return null;
        }
    }

    /** How a destination is chosen. */
    public enum LoadBalancing {
        ROUND_ROBIN("round_robin"),
        LEAST_REQUESTS("least_requests"),
        POWER_OF_TWO_CHOICES("power_of_two_choices"),
        RANDOM("random"),
        FIRST_AVAILABLE("first_available");

        private final String configName;

        LoadBalancing(String configName) {
            this.configName = configName;
        }

        /** The policy for a config name, or null. */
        public static LoadBalancing of(String configName) {
            for (LoadBalancing lb : values()) {
                if (lb.configName.equals(configName)) {
                    return lb;
                }
            }
            return null;
        }
    }

    /**
     * One upstream.
     *
     * @param index     position in {@code destinations}
     * @param tls       true for {@code https://}
     * @param host      lower-case host name or IP literal, IPv6 without brackets
     * @param port      the URL's port, or 80 / 443 by scheme
     * @param ipLiteral true when {@code host} is an IPv4 or IPv6 address (no resolution, no default SNI)
     * @param authority {@code host} or {@code host:port} when the port is not the scheme's default,
     *                  IPv6 in brackets: the Host header sent when {@code preserveHost} is false
     */
    public record Destination(int index, URI url, boolean tls, String host, int port, int weight, boolean ipLiteral,
            AsciiString authority) {

        /** Whether {@code other} is the same endpoint at the same position; the weight does not matter to a pool. */
        public boolean sameEndpoint(Destination other) {
            return index == other.index && tls == other.tls && port == other.port && host.equals(other.host)
                    && url.equals(other.url) && authority.equals(other.authority);
        }
    }

    /**
     * TLS towards {@code https://} destinations.
     *
     * @param caFile the PEM trust anchors, or null for the system trust store
     * @param sni    the server name to send, or null: the destination's host unless it is an IP literal
     */
    public record Tls(boolean verify, Path caFile, String sni) {
    }

    /** Connection pool per event loop and destination; {@code maxRequestsPerConnection} 0 = unlimited. */
    public record Pool(int maxConnections, Duration idleTimeout, int maxRequestsPerConnection) {
    }

    /**
     * Health settings. The active values are filled with their defaults even when active checks
     * are off, and the passive durations likewise, so that no field is null except {@code activePath}.
     *
     * @param activePath      the probe path, or null when active checks are off
     * @param passiveFailures consecutive failures that eject a destination; 0 = passive checks off
     * @param passiveCount5xx whether a 5xx response counts as a passive failure
     */
    public record Health(String activePath, Duration activeInterval, Duration activeTimeout, int healthyThreshold,
            int unhealthyThreshold, int passiveFailures, Duration passiveEjectFor, Duration passiveMaxEjectFor,
            boolean passiveCount5xx) {
    }

    /** Upstream timeouts; {@code idle} is the longest silence while a request or response body streams. */
    public record Timeouts(Duration connect, Duration responseHeaders, Duration idle) {
    }

    /**
     * Retries.
     *
     * @param attempts     extra tries after the first, 0 to 5
     * @param budget       the largest share of requests that may be retries, 0.0 to 1.0
     * @param minPerSecond retries a second allowed whatever the budget says
     */
    public record Retry(int attempts, double budget, int minPerSecond) {
    }

    /**
     * Whether the connection-relevant parts (destinations, protocol, tls, pool, timeouts) equal
     * {@code other}'s: pools of an unchanged cluster survive a reload. Destinations are compared by
     * endpoint and position, not weight (a new weight changes balancing, not connections); load
     * balancing, affinity, health, retry, resolve_every and preserve_host do not matter here either.
     * Reload only.
     */
    public boolean sameConnections(UpstreamCluster other) {
        return other != null && sameEndpoints(other.destinations) && protocol == other.protocol
                && tls.equals(other.tls) && pool.equals(other.pool) && timeouts.equals(other.timeouts);
    }

    private boolean sameEndpoints(List<Destination> others) {
        if (destinations.size() != others.size()) {
            return false;
        }
        for (int i = 0; i < destinations.size(); i++) {
            if (!destinations.get(i).sameEndpoint(others.get(i))) {
                return false;
            }
        }
        return true;
    }
}
