package io.paduraksa.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * An upstream cluster: destinations, the protocol spoken to them, how to choose one, session
 * affinity, upstream TLS, connection pools, health checks, timeouts, retries, re-resolution and
 * the Host header sent. Every key but {@code destinations} is optional; absent keys take the
 * defaults below (documented in docs/configuration.md).
 */
public record ClusterSpec(
        List<DestinationSpec> destinations,
        String protocol,
        String loadBalancing,
        AffinitySpec affinity,
        UpstreamTlsSpec tls,
        PoolSpec pool,
        HealthSpec health,
        TimeoutsSpec timeouts,
        RetrySpec retry,
        Duration resolveEvery,
        Boolean preserveHost) {

    public ClusterSpec {
        destinations = destinations == null ? List.of() : List.copyOf(destinations);
        protocol = protocol == null ? "http1" : protocol;
        loadBalancing = loadBalancing == null ? "round_robin" : loadBalancing;
        pool = pool == null ? PoolSpec.DEFAULT : pool;
        health = health == null ? new HealthSpec(null, null) : health;
        timeouts = timeouts == null ? TimeoutsSpec.DEFAULT : timeouts;
        retry = retry == null ? RetrySpec.DEFAULT : retry;
        resolveEvery = resolveEvery == null ? Duration.ofSeconds(30) : resolveEvery;
        preserveHost = preserveHost == null ? Boolean.TRUE : preserveHost;
    }

    /** One upstream address ({@code http://} or {@code https://}) and its weight (1 to 1000, default 1). */
    public record DestinationSpec(URI url, Integer weight) {
        public DestinationSpec {
            weight = weight == null ? 1 : weight;
        }
    }

    /** Session affinity by cookie: the name of the cookie that pins a client to a destination. */
    public record AffinitySpec(String cookie) {
        public AffinitySpec {
            cookie = cookie == null ? "PADURAKSA_AFFINITY" : cookie;
        }
    }

    /**
     * TLS towards {@code https://} destinations: verify the certificate (default true) against
     * {@code ca} (a PEM file relative to the configuration file; absent = the system trust store),
     * sending {@code sni} (absent = the destination's host name, none for an IP literal).
     */
    public record UpstreamTlsSpec(Boolean verify, String ca, String sni) {
        public UpstreamTlsSpec {
            verify = verify == null ? Boolean.TRUE : verify;
        }
    }

    /** Connection pool per event loop and destination; {@code maxRequestsPerConnection} 0 = unlimited. */
    public record PoolSpec(Integer maxConnections, Duration idleTimeout, Integer maxRequestsPerConnection) {
        public static final PoolSpec DEFAULT = new PoolSpec(null, null, null);

        public PoolSpec {
            maxConnections = maxConnections == null ? 256 : maxConnections;
            idleTimeout = idleTimeout == null ? Duration.ofSeconds(60) : idleTimeout;
            maxRequestsPerConnection = maxRequestsPerConnection == null ? 0 : maxRequestsPerConnection;
        }
    }

    /** Active probes and passive ejection; either may be absent (then it is off). */
    public record HealthSpec(ActiveHealthSpec active, PassiveHealthSpec passive) {
    }

    /**
     * Active health check: GET {@code path} every {@code interval}, waiting at most {@code timeout};
     * a destination turns healthy after {@code healthyThreshold} successes in a row and unhealthy
     * after {@code unhealthyThreshold} failures in a row.
     */
    public record ActiveHealthSpec(String path, Duration interval, Duration timeout, Integer healthyThreshold,
            Integer unhealthyThreshold) {
        public static final ActiveHealthSpec DEFAULT = new ActiveHealthSpec(null, null, null, null, null);

        public ActiveHealthSpec {
            path = path == null ? "/" : path;
            interval = interval == null ? Duration.ofSeconds(5) : interval;
            timeout = timeout == null ? Duration.ofSeconds(2) : timeout;
            healthyThreshold = healthyThreshold == null ? 2 : healthyThreshold;
            unhealthyThreshold = unhealthyThreshold == null ? 3 : unhealthyThreshold;
        }
    }

    /**
     * Passive health: eject a destination after {@code consecutiveFailures} failures in a row for
     * {@code ejectFor}, longer after repeated ejections, at most {@code maxEjectFor}; with
     * {@code count5xx} a 5xx response counts as a failure too (off by default).
     */
    public record PassiveHealthSpec(Integer consecutiveFailures, Duration ejectFor, Duration maxEjectFor,
            @JsonProperty("count_5xx") Boolean count5xx) {
        public static final PassiveHealthSpec DEFAULT = new PassiveHealthSpec(null, null, null, null);

        public PassiveHealthSpec {
            consecutiveFailures = consecutiveFailures == null ? 5 : consecutiveFailures;
            ejectFor = ejectFor == null ? Duration.ofSeconds(30) : ejectFor;
            maxEjectFor = maxEjectFor == null ? Duration.ofSeconds(300) : maxEjectFor;
            count5xx = count5xx != null && count5xx;
        }

        public PassiveHealthSpec(Integer consecutiveFailures, Duration ejectFor, Duration maxEjectFor) {
            this(consecutiveFailures, ejectFor, maxEjectFor, null);
        }
    }

    /** Upstream timeouts; {@code idle} is the longest silence while a request or response body streams. */
    public record TimeoutsSpec(Duration connect, Duration responseHeaders, Duration idle) {
        public static final TimeoutsSpec DEFAULT = new TimeoutsSpec(null, null, null);

        public TimeoutsSpec {
            connect = connect == null ? Duration.ofSeconds(2) : connect;
            responseHeaders = responseHeaders == null ? Duration.ofSeconds(30) : responseHeaders;
            idle = idle == null ? Duration.ofSeconds(60) : idle;
        }
    }

    /**
     * Retries: {@code attempts} extra tries after the first (0 to 5); retries may be at most
     * {@code budget} of the requests, but {@code minPerSecond} retries a second are always allowed.
     */
    public record RetrySpec(Integer attempts, Share budget, Integer minPerSecond) {
        public static final RetrySpec DEFAULT = new RetrySpec(null, null, null);

        public RetrySpec {
            attempts = attempts == null ? 1 : attempts;
            budget = budget == null ? new Share(0.2) : budget;
            minPerSecond = minPerSecond == null ? 10 : minPerSecond;
        }
    }
}
