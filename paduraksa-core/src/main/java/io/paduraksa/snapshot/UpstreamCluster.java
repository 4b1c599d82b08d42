package io.paduraksa.snapshot;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * A cluster as the snapshot describes it: the model the forwarder (server module) builds its
 * pools, balancers and health checks from. Immutable; compared by value across reloads so that
 * unchanged clusters keep their connections.
 */
public record UpstreamCluster(
        String name,
        List<Destination> destinations,
        LoadBalancing loadBalancing,
        Health health,
        Duration connectTimeout,
        Duration responseHeadersTimeout,
        Duration idleTimeout) {

    public UpstreamCluster {
        destinations = List.copyOf(destinations);
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

        public String configName() {
            return configName;
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

    /** One upstream: scheme, host, port and weight. */
    public record Destination(URI url, boolean tls, String host, int port, int weight) {
    }

    /** Health settings; {@code activePath} is null when active checks are off. */
    public record Health(String activePath, Duration activeInterval, int passiveFailures, Duration passiveEjectFor) {
    }
}
