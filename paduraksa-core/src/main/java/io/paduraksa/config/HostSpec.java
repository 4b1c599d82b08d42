package io.paduraksa.config;

import java.util.List;
import java.util.Map;

/**
 * A virtual host: its names (exact, {@code *.parent} wildcards of any depth, IDN allowed,
 * bracketed IPv6 literals, or {@code *}, the catch-all), the policies every request to it runs, its
 * ordered routes, the response headers it sets and removes on forwarded responses (merged over
 * {@code forwarding.response_headers}) and its own error pages (layered over {@code error_pages}).
 */
public record HostSpec(List<String> names, List<String> policies, List<RouteSpec> routes,
        ResponseHeadersSpec responseHeaders, Map<String, ErrorPageSpec> errorPages) {
    public HostSpec {
        names = names == null ? List.of() : List.copyOf(names);
        policies = policies == null ? List.of() : List.copyOf(policies);
        routes = routes == null ? List.of() : List.copyOf(routes);
        responseHeaders = responseHeaders == null ? ResponseHeadersSpec.EMPTY : responseHeaders;
        errorPages = errorPages == null ? Map.of() : SpecMaps.ordered(errorPages);
    }
}
