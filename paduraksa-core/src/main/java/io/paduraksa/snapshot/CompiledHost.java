package io.paduraksa.snapshot;

import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.route.RouteTable;
import java.util.List;

/** A host entry: the names it was configured with, its policy chain, its ordered routes and its response-header rules. */
public final class CompiledHost {
    private final int index;
    private final List<String> names;
    private final RequestPolicy[] policies;
    private final RouteTable<CompiledRoute> routes;
    private final ResponseHeaderRules responseHeaders;

    public CompiledHost(int index, List<String> names, RequestPolicy[] policies, RouteTable<CompiledRoute> routes,
            ResponseHeaderRules responseHeaders) {
        this.index = index;
        this.names = List.copyOf(names);
        this.policies = policies;
        this.routes = routes;
        this.responseHeaders = responseHeaders;
    }

    /** Position in the file ({@code hosts[index]}). */
    public int index() {
        return index;
    }

    public List<String> names() {
        return names;
    }

    /** Policies every request to this host runs, before the route's. Do not modify. */
    public RequestPolicy[] policies() {
        return policies;
    }

    public RouteTable<CompiledRoute> routes() {
        return routes;
    }

    /** Response-header transforms for responses forwarded for this host (its own merged over the defaults). */
    public ResponseHeaderRules responseHeaders() {
        return responseHeaders;
    }

    @Override
    public String toString() {
        return "hosts[" + index + "] " + names;
    }
}
