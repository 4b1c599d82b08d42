package io.paduraksa.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/** An upstream cluster: destinations, how to choose one, health checks and timeouts. */
public record ClusterSpec(
        List<DestinationSpec> destinations, String loadBalancing, HealthSpec health, TimeoutsSpec timeouts) {

    public ClusterSpec {
        destinations = destinations == null ? List.of() : List.copyOf(destinations);
        loadBalancing = loadBalancing == null ? "round_robin" : loadBalancing;
        health = health == null ? new HealthSpec(null, null) : health;
        timeouts = timeouts == null ? new TimeoutsSpec(null, null, null) : timeouts;
    }

    /** One upstream address ({@code http://} or {@code https://}) and its weight (default 1). */
    public record DestinationSpec(URI url, Integer weight) {
        public DestinationSpec {
            weight = weight == null ? 1 : weight;
        }
    }

    /** Active probes and passive ejection; either may be absent. */
    public record HealthSpec(ActiveHealthSpec active, PassiveHealthSpec passive) {
    }

    /** Active health check: GET {@code path} every {@code interval}. */
    public record ActiveHealthSpec(String path, Duration interval) {
        public ActiveHealthSpec {
            path = path == null ? "/" : path;
            interval = interval == null ? Duration.ofSeconds(5) : interval;
        }
    }

    /** Passive health: eject a destination after consecutive failures, for a while. */
    public record PassiveHealthSpec(Integer consecutiveFailures, Duration ejectFor) {
        public PassiveHealthSpec {
            consecutiveFailures = consecutiveFailures == null ? 5 : consecutiveFailures;
            ejectFor = ejectFor == null ? Duration.ofSeconds(30) : ejectFor;
        }
    }

    /** Upstream timeouts. */
    public record TimeoutsSpec(Duration connect, Duration responseHeaders, Duration idle) {
        public TimeoutsSpec {
            connect = connect == null ? Duration.ofSeconds(2) : connect;
            responseHeaders = responseHeaders == null ? Duration.ofSeconds(30) : responseHeaders;
            idle = idle == null ? Duration.ofSeconds(60) : idle;
        }
    }
}
