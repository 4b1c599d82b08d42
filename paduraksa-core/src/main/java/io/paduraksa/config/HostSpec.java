package io.paduraksa.config;

import java.util.List;

/**
 * A virtual host: its names (exact, {@code *.parent} single-label wildcards, IDN allowed,
 * bracketed IPv6 literals), the policies every request to it runs, and its ordered routes.
 */
public record HostSpec(List<String> names, List<String> policies, List<RouteSpec> routes) {
    public HostSpec {
        names = names == null ? List.of() : List.copyOf(names);
        policies = policies == null ? List.of() : List.copyOf(policies);
        routes = routes == null ? List.of() : List.copyOf(routes);
    }
}
