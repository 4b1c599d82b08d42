package io.paduraksa.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The whole configuration file as the operator wrote it, after binding and before compiling.
 * Absent sections become empty collections or their documented defaults.
 */
public record PaduraksaSpec(
        List<ListenerSpec> listeners,
        ClientIpSpec clientIp,
        NormalizeSpec normalize,
        Map<String, ClusterSpec> clusters,
        ForwardingSpec forwarding,
        Map<String, PolicySpec> policies,
        List<HostSpec> hosts,
        @JsonProperty("default") ActionSpec defaultAnswer,
        LimitsSpec limits,
        ServerSpec server,
        Map<String, ErrorPageSpec> errorPages,
        AccessLogSpec accessLog,
        CacheSpec cache) {

    public PaduraksaSpec {
        listeners = listeners == null ? List.of() : List.copyOf(listeners);
        clientIp = clientIp == null ? ClientIpSpec.DEFAULT : clientIp;
        normalize = normalize == null ? NormalizeSpec.DEFAULT : normalize;
        clusters = clusters == null ? Map.of() : SpecMaps.ordered(clusters);
        forwarding = forwarding == null ? ForwardingSpec.DEFAULT : forwarding;
        policies = policies == null ? Map.of() : SpecMaps.ordered(policies);
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        defaultAnswer = defaultAnswer == null ? ActionSpec.DEFAULT_UNKNOWN_HOST : defaultAnswer;
        limits = limits == null ? LimitsSpec.DEFAULT : limits;
        server = server == null ? ServerSpec.DEFAULT : server;
        errorPages = errorPages == null ? Map.of() : SpecMaps.ordered(errorPages);
        accessLog = accessLog == null ? AccessLogSpec.DEFAULT : accessLog;
        cache = cache == null ? CacheSpec.DEFAULT : cache;
    }
}
