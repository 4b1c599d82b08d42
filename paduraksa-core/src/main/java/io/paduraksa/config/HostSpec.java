package io.paduraksa.config;

import java.util.List;

/**
 * A virtual host: its names (exact, {@code *.parent} single-label wildcards, IDN allowed,
 * bracketed IPv6 literals), the policies every request to it runs, its ordered routes, and the
 * response headers it sets and removes on forwarded responses (merged over {@code forwarding.response_headers}).
 */
public record HostSpec(List<String> names, List<String> policies, List<RouteSpec> routes,
        ResponseHeadersSpec responseHeaders) {
    public HostSpec {
        names = names == null ? List.of() : List.copyOf(names);
        policies = policies == null ? List.of() : List.copyOf(policies);
        routes = routes == null ? List.of() : List.copyOf(routes);
        responseHeaders = responseHeaders == null ? ResponseHeadersSpec.EMPTY : responseHeaders;
    }
}
